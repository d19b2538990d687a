"""The pytest plugin, driven through pytest's own `pytester`: collection, outcomes,
messages, the expected-failures file, corpus errors, and staying import-light."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

pytest_plugins = ["pytester"]

CORPUS = """\
- id: demo-one-block
  rules: [R-BLOCK-1]
  description: One block before the answer.
  deltas: ["<think>the user wants a greeting</think>", "Hello there!"]
  visible: "Hello there!"
  reasoning: ["the user wants a greeting"]
- id: demo-no-tags
  rules: [R-FID-1]
  description: Plain answer text passes through, long enough to show any hold-back.
  deltas: ["Just an answer, long enough ", "to lag well behind the output due."]
  visible: "Just an answer, long enough to lag well behind the output due."
  reasoning: []
- id: demo-bracket
  rules: [R-VOCAB-3]
  description: Needs the bracket feature.
  deltas: ["[THINK]private musing here[/THINK]Answer."]
  visible: "Answer."
  reasoning: ["private musing here"]
  context: {features: [bracket]}
"""

SCRUBBERS = """\
class Passthrough:
    '''Returns every delta unchanged: leaks every block.'''

    def feed(self, delta):
        return delta

    def flush(self):
        return ""


class Hoarder:
    '''Scrubs correctly but emits nothing before flush() (SHOULD R-STREAM-2).'''

    supported_features = frozenset({"bracket"})

    def __init__(self, **context):
        from scrubcheck.scrubbers.reference import ReferenceScrubber
        self.inner = ReferenceScrubber(**context)
        self.kept = []

    def feed(self, delta):
        self.kept.append(self.inner.feed(delta))
        return ""

    def flush(self):
        out = "".join(self.kept) + self.inner.flush()
        self.kept = []
        return out


class Recorder:
    '''Passes text through and notes every delta it is fed in fed.log.'''

    def feed(self, delta):
        with open("fed.log", "a", encoding="utf-8") as log:
            log.write(repr(delta) + "\\n")
        return delta

    def flush(self):
        return ""


class HangsOnGreeting:
    '''The reference, except that it hangs once it has seen the word "greeting".'''

    def __init__(self, **context):
        from scrubcheck.scrubbers.reference import ReferenceScrubber
        self.inner = ReferenceScrubber(**context)
        self.seen = ""

    def feed(self, delta):
        self.seen += delta
        if "greeting" in self.seen:
            import time
            time.sleep(3600)
        return self.inner.feed(delta)

    def flush(self):
        return self.inner.flush()
"""


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makefile(".yaml", **{"corpus/demo": CORPUS})
    pytester.makepyfile(scrubbers_under_test=SCRUBBERS)
    return pytester


NO_LINEAR = ("-k", "not linear-time")  # for tests about scenarios: skip the timing check


def run(project: pytest.Pytester, scrubber: str, *args: str) -> pytest.RunResult:
    return project.runpytest("-p", "no:cacheprovider", "--scrubber", scrubber,
                             "--scrubcheck-corpus", "corpus", "--scrubcheck-jobs", "2", *args)


def test_collects_one_readable_test_per_scenario(project) -> None:
    result = run(project, "scrubbers_under_test.py:Passthrough", "--collect-only", "-q")
    result.stdout.fnmatch_lines([
        "scrubcheck::scrubber::linear-time",
        "scrubcheck::demo::demo-one-block",
        "scrubcheck::demo::demo-no-tags",
        "scrubcheck::demo::demo-bracket",
        "4 tests collected*",
    ])


def test_a_conforming_scrubber_passes(project) -> None:
    result = run(project, "reference")
    result.assert_outcomes(passed=4)  # the three scenarios and the linear-time check
    result.stdout.fnmatch_lines(["scrubcheck: scrubber reference, corpus corpus, level must, "
                                 "timeout 60 s, 2 jobs"])


def test_a_leaking_scrubber_fails_with_the_report_text(project) -> None:
    result = run(project, "scrubbers_under_test.py:Passthrough", "-rs", *NO_LINEAR)
    result.assert_outcomes(passed=1, failed=1, skipped=1)
    result.stdout.fnmatch_lines([
        "*_ demo::demo-one-block _*",
        "demo::demo-one-block: FAIL (leaks reasoning): leak R-LEAK-1 in *",
        "*[[]1[]] leak * R-LEAK-1 (MUST)*",
        "*chunking: *",
        "*deltas:   [[]*<think>*",
        "*got:      <think>the*user*",
        "*replay:   scrubcheck show demo-one-block --scrubber "
        "scrubbers_under_test.py:Passthrough --chunking * --corpus corpus",
    ])
    # expected vs got with the difference marked, for the fidelity failure
    result.stdout.fnmatch_lines(["*expected: Hello*there!", "*got:      *", "*^"])
    # UNSUPPORTED is a skip with its reason, counted in pytest's summary
    result.stdout.fnmatch_lines(["SKIPPED [[]1[]] corpus/demo.yaml:13: UNSUPPORTED: *features*"])
    assert result.ret == pytest.ExitCode.TESTS_FAILED


def test_the_summary_names_the_bug_behind_the_failures(project) -> None:
    """One bug, one line at the end, with its smallest stream: not one block per test."""
    result = run(project, "scrubbers_under_test.py:Passthrough", *NO_LINEAR)
    result.stdout.fnmatch_lines([
        "*scrubcheck: the bugs behind the failures*",
        "1 bug explains 1 of 1 failing scenario *",
        "  1. LEAK  a delimiter is shown",
        '     smallest stream: feed("<think>") flush()',
    ])
    quiet = run(project, "scrubbers_under_test.py:Passthrough", "--scrubcheck-no-explain",
                *NO_LINEAR)
    assert "the bugs behind the failures" not in quiet.stdout.str()


def test_filters_by_area_rule_and_keyword(project) -> None:
    # the scrubber-wide check comes with any selection, as in `scrubcheck run --rule`
    result = run(project, "reference", "--scrubcheck-rule", "R-FID-*", "--collect-only", "-q")
    result.stdout.fnmatch_lines(["scrubcheck::scrubber::linear-time",
                                 "scrubcheck::demo::demo-no-tags", "2 tests collected*"])
    # ... but not with an empty one: nothing is collected, and pytest says so
    result = run(project, "reference", "--scrubcheck-area", "nothing-here", "--collect-only")
    result.stdout.fnmatch_lines(["*no tests collected*"])
    result = run(project, "reference", "-k", "R-BLOCK-1", "--collect-only", "-q")
    result.stdout.fnmatch_lines(["scrubcheck::demo::demo-one-block", "1/4 tests collected*"])
    result = run(project, "reference", "-k", "R-ROBUST-2", "--collect-only", "-q")
    result.stdout.fnmatch_lines(["scrubcheck::scrubber::linear-time", "1/4 tests collected*"])


def test_should_failures_count_only_at_level_should(project) -> None:
    result = run(project, "scrubbers_under_test.py:Hoarder", "--scrubcheck-rule", "R-FID-1",
                 "-rP", *NO_LINEAR)
    result.assert_outcomes(passed=1)
    # not a failure at level must, but not hidden either
    result.stdout.fnmatch_lines(["*scrubcheck SHOULD failures*",
                                 "demo::demo-no-tags: FAIL (SHOULD): holdback R-STREAM-2*"])
    result = run(project, "scrubbers_under_test.py:Hoarder", "--scrubcheck-rule", "R-FID-1",
                 "--scrubcheck-level", "should", *NO_LINEAR)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*holdback · R-STREAM-2 (SHOULD)*",
                                 "*deltas:   list('Just an answer, long enough to lag*')"])


def test_xfail_file_marks_listed_scenarios_and_warns_about_stale_ids(project) -> None:
    project.makefile(".txt", known_failures=textwrap.dedent("""\
        # scenarios this scrubber is known to fail
        demo-one-block      # leaks: fix in 2.0
        scrubcheck::demo::demo-no-tags
        gone-from-the-corpus
        linear-time         # a known id too: the scrubber-wide check
    """))
    result = run(project, "scrubbers_under_test.py:Passthrough",
                 "--scrubcheck-xfail", "known_failures.txt", "-k", "not R-ROBUST-2")
    result.assert_outcomes(xfailed=1, xpassed=1, skipped=1)
    result.stdout.fnmatch_lines([
        "*ScrubcheckWarning: known_failures.txt: 1 stale id(s) not in the corpus: "
        "gone-from-the-corpus",
    ])
    result.stdout.fnmatch_lines([
        "*ScrubcheckWarning: known_failures.txt: 1 listed id(s) now pass, remove them: "
        "demo-no-tags",
    ])
    assert result.ret == pytest.ExitCode.OK


def test_corpus_errors_fail_collection_with_their_location(project) -> None:
    project.makefile(".yaml", **{"corpus/broken": textwrap.dedent("""\
        - id: fine-scenario
          rules: [R-FID-1]
          description: Fine.
          deltas: ["ok"]
          visible: "ok"
          reasoning: []
        - id: bad-scenario
          rules: [R-FID-1]
          description: Misspelt key.
          deltas: ["ok"]
          visbile: "ok"
          reasoning: []
    """)})
    result = run(project, "reference")
    result.stdout.fnmatch_lines(["*scrubcheck corpus error(s):",
                                 "*broken.yaml:*[[]bad-scenario[]]*"])
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.assert_outcomes(errors=1)


def test_an_unloadable_scrubber_fails_collection(project) -> None:
    result = run(project, "scrubbers_under_test.py:NoSuchClass")
    result.stdout.fnmatch_lines(["*cannot load scrubber 'scrubbers_under_test.py:NoSuchClass'*"])
    assert result.ret == pytest.ExitCode.INTERRUPTED


def test_without_the_option_nothing_is_collected(project) -> None:
    project.makepyfile(test_plain="def test_plain():\n    assert True\n")
    result = project.runpytest("-p", "no:cacheprovider", "-q")
    result.assert_outcomes(passed=1)
    assert "scrubcheck::" not in result.stdout.str()


def test_a_hanging_scenario_times_out_and_the_session_goes_on(project) -> None:
    result = run(project, "scrubbers_under_test.py:HangsOnGreeting", "--scrubcheck-timeout", "1",
                 *NO_LINEAR)
    result.assert_outcomes(failed=1, passed=1, skipped=1)
    result.stdout.fnmatch_lines([
        "demo::demo-one-block: TIMEOUT: no result within 1 s wall time* while running *; "
        "replay: scrubcheck show demo-one-block --scrubber scrubbers_under_test.py:HangsOnGreeting"
        " --chunking * --corpus corpus",
    ])
    assert result.ret == pytest.ExitCode.TESTS_FAILED


def test_only_the_tests_pytest_will_run_reach_the_scrubber(project) -> None:
    """Results are judged ahead in windows, but only those of the selected tests."""
    result = run(project, "scrubbers_under_test.py:Recorder", "-k", "demo-no-tags")
    result.assert_outcomes(passed=1)
    fed = (project.path / "fed.log").read_text(encoding="utf-8")
    assert "Just an answer, long enough to lag" in fed
    assert "greeting" not in fed  # demo-one-block was deselected: never run
    result = run(project, "scrubbers_under_test.py:Recorder", *NO_LINEAR)
    result.assert_outcomes(passed=1, failed=1, skipped=1)
    assert "greeting" in (project.path / "fed.log").read_text(encoding="utf-8")


def test_results_are_judged_a_window_at_a_time(project) -> None:
    from scrubcheck.corpus import load_corpus
    from scrubcheck.plugin_runs import WINDOW_PER_JOB, IsolatedRuns
    from scrubcheck.results import Outcome
    from scrubcheck.runner import RunSettings

    first, second, third = load_corpus([project.path / "corpus"]).scenarios
    runs = IsolatedRuns("reference", RunSettings(jobs=1), window=2)
    assert runs.scenario_result(first, [second, third]).outcome is Outcome.PASS
    assert sorted(runs.results) == sorted([first.id, second.id])  # the next came along
    kept = runs.results[second.id]
    assert runs.scenario_result(second, [third]) is kept  # stored: not run again
    assert runs.scenario_result(third, []).outcome is Outcome.PASS
    assert len(runs.results) == 3
    ahead = IsolatedRuns.for_jobs("reference", RunSettings(jobs=2), ahead=True)
    assert ahead.window == 2 * WINDOW_PER_JOB
    assert IsolatedRuns.for_jobs("reference", RunSettings(jobs=2), ahead=False).window == 1


def test_advice_in_failures_names_the_plugins_options(project) -> None:
    """The runner's advice names what a pytest user can pass: a linear-time check out of
    budget says --scrubcheck-timeout and -k "not linear-time", not `run`'s options."""
    from scrubcheck.pytest_plugin import OPTIONS
    from scrubcheck.runner import LINEAR_ID

    assert OPTIONS.skip_linear == f'-k "not {LINEAR_ID}"'
    result = run(project, "reference", "-k", LINEAR_ID, "--scrubcheck-timeout", "0.5")
    result.assert_outcomes(failed=1)
    text = result.stdout.str()
    assert "not measured" in text and "0.5 s wall-clock budget (--scrubcheck-timeout)" in text
    assert 'raise --scrubcheck-timeout or pass -k "not linear-time"' in text
    assert "--timeout" not in text and "--no-linear" not in text


@pytest.mark.parametrize(("option", "value", "message"), [
    ("--scrubcheck-jobs", "0", "--scrubcheck-jobs must be at least 1"),
    ("--scrubcheck-timeout", "0", "--scrubcheck-timeout must be positive"),
    ("--scrubcheck-memory-limit", "lots", "--scrubcheck-memory-limit: not a size*"),
])
def test_bad_options_are_usage_errors(project, option: str, value: str, message: str) -> None:
    result = run(project, "reference", option, value)
    result.stderr.fnmatch_lines([f"*{message}*"])
    assert result.ret == pytest.ExitCode.USAGE_ERROR


HEAVY = ("yaml", "jsonschema", "scrubcheck.runner", "scrubcheck.corpus", "scrubcheck.reports",
         "scrubcheck.checks")


def test_importing_the_plugin_imports_nothing_heavy() -> None:
    code = ("import sys, scrubcheck.pytest_plugin; "
            f"print([m for m in {HEAVY!r} if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "[]"


def test_a_pytest_run_without_the_option_stays_light(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_light=f"""
        import sys

        def test_no_heavy_modules():
            assert "scrubcheck.pytest_plugin" in sys.modules  # loaded by its entry point
            assert [m for m in {HEAVY!r} if m in sys.modules] == []
    """)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
