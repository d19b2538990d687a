"""`scrubcheck run` and `scrubcheck show` end to end: exit codes, the summary,
reports, corpus errors, and the replay round trip from a printed command."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from scrubcheck.cli import main
from scrubcheck.corpus import load_corpus
from scrubcheck.results import Outcome, RunResult
from scrubcheck.runner import RunSettings, run_corpus
from scrubcheck.scrubbers.broken import BROKEN

QUICK = ["--no-progress", "--no-linear", "--jobs", "2"]
COUNTS = re.compile(r"([\d,]+) scenarios? × ([\d,]+) chunkings? × ([\d,]+) checks? run")


def cli(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_reference_run_prints_counts_and_exits_zero(capsys):
    code, out, _ = cli(capsys, "run", "--area", "blocks", *QUICK)
    assert code == 0, out
    scenarios, chunkings, checks = (int(g.replace(",", "")) for g in COUNTS.search(out).groups())
    assert scenarios == 27 or scenarios > 0
    assert chunkings > scenarios and checks > chunkings
    assert re.search(r"PASS \d+\s+FAIL 0", out) and "result: PASS" in out


def test_failing_scrubber_exits_one_and_prints_replays(capsys):
    code, out, _ = cli(capsys, "run", "--scrubber", BROKEN["passthrough"], "--area", "blocks",
                       *QUICK)
    assert code == 1
    assert "failing scenarios" in out and "replay: scrubcheck show " in out
    assert "R-LEAK-1" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--scrubber", "no_such_module:Thing"], "cannot load scrubber"),
        (["--id", "no-scenario-has-this-id"], "no scenario matches"),
        (["--corpus", "/nonexistent/corpus.yaml"], "no such corpus"),
        (["--jobs", "0"], "--jobs"),
    ],
)
def test_usage_errors_exit_two(capsys, argv, message):
    code, _, err = cli(capsys, "run", *argv, *QUICK[:2])
    assert code == 2 and message in err


@pytest.mark.parametrize(("files", "message"), [
    ({"empty.yaml": "[]\n"}, "scrubcheck run: the corpus holds no scenario\n"),
    ({"broken.yaml": "- id: half-written\n  rules: [R-BLOCK-1]\n"},
     "scrubcheck run: the corpus holds no scenario that loaded (4 corpus errors above)\n"),
])
def test_a_corpus_that_loads_no_scenario_exits_two_saying_so(capsys, tmp_path, files, message):
    """Not "no scenario matches the selection": nothing was selected, nothing loaded."""
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    code, out, err = cli(capsys, "run", "--corpus", str(tmp_path), *QUICK)
    assert code == 2 and out == ""
    assert err.endswith(message), err
    assert err.count("broken.yaml:1 [half-written]: ") == (4 if "broken.yaml" in files else 0)


CORPUS = textwrap.dedent(
    """\
    - id: good-one
      rules: [R-BLOCK-1]
      description: A block is removed.
      deltas: ["Hi <think>the user says hi, answer warmly</think>there"]
      visible: "Hi there"
      reasoning: ["the user says hi, answer warmly"]

    - id: Bad_Id
      rules: [R-BLOCK-1]
      description: A scenario with a bad id.
      deltas: ["x"]
      visible: "x"
      reasoning: []
    """
)


def test_corpus_errors_are_printed_located_and_exit_two(capsys, tmp_path):
    corpus = tmp_path / "mine.yaml"
    corpus.write_text(CORPUS)
    code, out, err = cli(capsys, "run", "--corpus", str(corpus), *QUICK)
    assert code == 2
    assert re.search(r"mine\.yaml:\d+ \[Bad_Id\]: ", err)
    assert "1 scenario ×" in out and "corpus errors: 1" in out  # the rest still ran


def test_level_should_counts_should_failures(capsys):
    spec = BROKEN["buffers_all"]  # correct output, all of it at flush(): fails R-STREAM-2
    code, out, _ = cli(capsys, "run", "--scrubber", spec, "--area", "blocks", *QUICK)
    assert code == 0 and "fail only SHOULD rules" in out
    code, _, _ = cli(capsys, "run", "--scrubber", spec, "--area", "blocks", "--level", "should",
                     *QUICK)
    assert code == 1


def test_report_dir_gets_reports_and_the_json_reads_back(capsys, tmp_path):
    code, out, _ = cli(capsys, "run", "--area", "whitespace", "--out", str(tmp_path),
                       *QUICK)
    assert code == 0
    written = sorted(p.name for p in tmp_path.iterdir())
    assert any(name.endswith(".json") for name in written), written
    report = tmp_path / "report.json"  # badge.json is the other JSON file there
    run = RunResult.from_dict(json.loads(report.read_text()))
    assert run.scrubber == "reference" and run.results
    assert f"report: {report}" in out


BLOCKS = Path(__file__).resolve().parents[1] / "corpora" / "blocks.yaml"


def test_replay_command_reproduces_the_failure(capsys):
    scenario = next(s for s in load_corpus([BLOCKS]).scenarios if s.id == "blocks-mid-line")
    settings = RunSettings(jobs=1, linear_check=False, corpus_paths=(str(BLOCKS),))
    run = run_corpus(BROKEN["stateless"], [scenario], settings)
    [result] = run.results
    assert result.outcome is Outcome.FAIL
    for failure in result.failures:
        argv = shlex.split(failure.replay)
        assert argv[:3] == ["scrubcheck", "show", scenario.id] and str(BLOCKS) in argv
        code, out, _ = cli(capsys, *argv[1:])
        assert code == 1
        assert f"{failure.level} {failure.rule} {failure.check} under {failure.chunking}" in out
        # The same finding; counts over the whole matrix differ from a one-chunking replay.
        core = re.split(r" \[same check|; \d+ other chunkings", failure.detail)[0]
        assert core in out


def test_show_prints_steps_and_whitespace_visibly(capsys):
    code, out, _ = cli(capsys, "show", "blocks-mid-line", "--scrubber", BROKEN["stateless"],
                       "--chunking", "char")
    assert code == 1
    assert "chunking char:" in out and "The·result" in out
    assert re.search(r"^\s+0\s+\"T\"", out, re.M)  # one row per feed()
    assert "flush" in out and "verdict: FAIL" in out


def test_show_without_chunking_groups_outputs_and_passes_the_reference(capsys):
    code, out, _ = cli(capsys, "show", "blocks-mid-line")
    assert code == 0
    assert "(one output)" in out and "verdict: PASS" in out
    assert "expected (visible" in out and "reasoning (must never show)" in out


def test_show_truncation_and_reuse_selectors(capsys):
    code, out, _ = cli(capsys, "show", "blocks-mid-line", "--chunking", "trunc@20")
    assert code == 0 and "cut at input position 20" in out and "finish_reason=length" in out
    code, out, _ = cli(capsys, "show", "blocks-mid-line", "--chunking", "reuse:unclosed-block")
    assert code == 0 and "poison stream" in out


def test_show_splitter_prints_the_reasoning_channel(capsys, tmp_path):
    module = tmp_path / "splitter_mod.py"
    module.write_text(textwrap.dedent(
        """
        from scrubcheck.scrubbers.reference import strip_reasoning
        def split(text):
            return ("[channel]", strip_reasoning(text))
        """))
    code, out, _ = cli(capsys, "show", "blocks-mid-line", "--scrubber",
                       f"splitter:{module}:split", "--chunking", "whole")
    assert code == 0 and 'reasoning channel: "[channel]"' in out


def test_show_usage_errors(capsys):
    code, _, err = cli(capsys, "show", "blocks-mid-lin")
    assert code == 2 and "did you mean: blocks-mid-line" in err
    code, _, err = cli(capsys, "show", "blocks-mid-line", "--chunking", "split@0")
    assert code == 2 and "unknown chunking" in err


def test_linear_time_failure_replays_with_show(capsys, tmp_path):
    module = tmp_path / "slow_mod.py"
    module.write_text(textwrap.dedent(
        """
        class Rescans:
            def __init__(self):
                self.seen = ""
            def feed(self, delta):
                self.seen += delta
                for _ in range(3):
                    for _ in self.seen:
                        pass
                return delta
            def flush(self):
                return ""
        """))
    from scrubcheck.adapters import load_adapter
    from scrubcheck.runner import run_linear_check

    result = run_linear_check(load_adapter(f"{module}:Rescans"))
    assert result.outcome is Outcome.FAIL
    [failure] = result.failures
    argv = shlex.split(failure.replay)
    assert argv[:3] == ["scrubcheck", "show", "linear-time"]
    code, out, _ = cli(capsys, *argv[1:])
    assert code == 1 and "MUST R-ROBUST-2 linear" in out and "ratio_1char" in out


def test_show_gives_up_on_a_hang(capsys):
    hanging = next(s for s in load_corpus().scenarios if "< " in s.text)
    code, out, _ = cli(capsys, "show", hanging.id, "--scrubber", BROKEN["hangs"],
                       "--chunking", "whole", "--timeout", "1")
    assert code == 1 and "TIMEOUT" in out




def _hermes_importable() -> bool:
    try:
        import agent.think_scrubber  # noqa: F401
    except Exception:
        return False
    return True


@pytest.mark.skipif(not _hermes_importable(),
                    reason="hermes-agent is not installed (pip install hermes-agent==0.19.0)")
def test_hermes_streaming_scrubber_leak_is_reported(tmp_path):
    corpus = tmp_path / "hermes.yaml"
    corpus.write_text(textwrap.dedent(
        """\
        - id: hermes-mid-line-blocks
          rules: [R-BLOCK-3, R-CHUNK-1]
          description: Two mid-line blocks; hermes leaks them with one-character deltas.
          deltas: ["a<think>s1</think>b<think>s2</think>c"]
          visible: "abc"
          reasoning: ["s1", "s2"]
        """))
    spec = "agent.think_scrubber:StreamingThinkScrubber"  # the class as-is, no glue
    scenarios = load_corpus([corpus]).scenarios
    run = run_corpus(spec, scenarios, RunSettings(jobs=1, linear_check=False))
    [result] = run.results
    assert result.outcome is Outcome.FAIL
    assert {"R-LEAK-1", "R-CHUNK-1"} <= {f.rule for f in result.failures}
    from scrubcheck.adapters import load_adapter
    from scrubcheck.runner import run_scenario

    char = run_scenario(load_adapter(spec), scenarios[0], only="char")
    leak = next(f for f in char.failures if f.rule == "R-LEAK-1")
    assert leak.chunking == "char" and leak.step == 9  # the "1" of s1, one character per delta
    assert '"s1"' in leak.detail


@pytest.mark.slow
def test_full_reference_run_over_the_real_corpus(tmp_path):
    command = [str(Path(sys.executable).with_name("scrubcheck")), "run", "--no-progress",
               "--out", str(tmp_path)]
    finished = subprocess.run(command, capture_output=True, text=True, timeout=1800)
    assert finished.returncode == 0, finished.stdout[-3000:] + finished.stderr[-3000:]
    match = COUNTS.search(finished.stdout)
    assert match, finished.stdout
    scenarios, chunkings, checks = (int(g.replace(",", "")) for g in match.groups())
    assert scenarios == len(load_corpus().scenarios)
    assert chunkings > 50 * scenarios and checks > chunkings
    assert "linear-time (R-ROBUST-2): PASS" in finished.stdout
    print(match.group(0))
