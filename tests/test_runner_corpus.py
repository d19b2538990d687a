"""The runner over the real corpus: the reference passes, each broken example is
caught on the areas where its bug shows, with the outcome its bug deserves."""

from __future__ import annotations

import pytest

from scrubcheck.corpus import select
from scrubcheck.results import Outcome, RunResult
from scrubcheck.runner import RunSettings, run_corpus
from scrubcheck.scrubbers.broken import BROKEN

FAST = RunSettings(jobs=2, linear_check=False, timeout_s=30)


def area(corpus, *names):
    return select(corpus.scenarios, areas=list(names))


def outcomes(run: RunResult) -> dict[str, Outcome]:
    return {r.scenario_id: r.outcome for r in run.results}


def failed_rules(run: RunResult) -> set[str]:
    return {f.rule for r in run.results for f in r.failures}


def test_reference_passes_the_hand_written_areas(corpus):
    scenarios = [s for s in corpus.scenarios if s.area != "generated"]
    run = run_corpus("reference", scenarios, FAST)
    bad = {r.scenario_id: (r.reason, [f.detail for f in r.failures]) for r in run.results
           if r.outcome is not Outcome.PASS}
    assert bad == {}
    assert len(run.results) == len(scenarios)


@pytest.mark.parametrize(
    ("name", "areas", "rules"),
    [
        ("passthrough", ("blocks",), {"R-LEAK-1", "R-TAG-1", "R-FID-1", "R-TRUNC-1"}),
        ("stateless", ("split-tags",), {"R-LEAK-1", "R-CHUNK-1"}),
        ("tags_only", ("blocks",), {"R-LEAK-1", "R-FID-1"}),
        ("flush_last_line", ("unclosed", "truncation"), {"R-LEAK-1", "R-TRUNC-1"}),
        ("returns_bytes", ("blocks",), {"R-ROBUST-1"}),
    ],
)
def test_broken_scrubbers_fail_where_their_bug_shows(corpus, name, areas, rules):
    run = run_corpus(BROKEN[name], area(corpus, *areas), FAST)
    assert rules <= failed_rules(run)
    assert run.exit_code("must") == 1
    for result in run.results:
        for failure in result.failures:
            assert failure.replay.startswith(f"scrubcheck show {result.scenario_id} --scrubber ")


def test_passthrough_fails_every_scenario_with_reasoning(corpus):
    scenarios = [s for s in area(corpus, "blocks") if s.reasoning]
    run = run_corpus(BROKEN["passthrough"], scenarios, FAST)
    assert all(r.outcome is Outcome.FAIL for r in run.results)


def test_raises_errors_on_lone_surrogates(corpus):
    run = run_corpus(BROKEN["raises"], area(corpus, "unicode"), FAST)
    result = outcomes(run)
    assert result["unicode-lone-surrogate-in-answer"] is Outcome.ERROR
    assert any(o is Outcome.PASS or o is Outcome.FAIL for o in result.values())


def test_no_context_is_unsupported_on_every_prefill_scenario(corpus):
    scenarios = area(corpus, "orphan-prefill")
    run = run_corpus(BROKEN["no_context"], scenarios, FAST)
    for scenario, result in zip(scenarios, run.results, strict=True):
        if scenario.context.required_keys():
            assert result.outcome is Outcome.UNSUPPORTED, scenario.id
        else:
            assert result.outcome is not Outcome.UNSUPPORTED, scenario.id


def test_hangs_times_out_only_where_it_hangs(corpus):
    hanging = [s for s in corpus.scenarios if "< " in s.text][:2]
    calm = area(corpus, "blocks")[:3]
    assert len(hanging) == 2
    run = run_corpus(BROKEN["hangs"], hanging + calm,
                     RunSettings(jobs=2, linear_check=False, timeout_s=2))
    got = [r.outcome for r in run.results]
    assert got[:2] == [Outcome.TIMEOUT, Outcome.TIMEOUT]
    assert Outcome.TIMEOUT not in got[2:]
