"""The console summary of `scrubcheck run`: leaks counted and listed first, a replay line
for every failing scenario, the scrubber's captured output kept short and escaped, an
interrupted run marked as such."""

from __future__ import annotations

import io

from scrubcheck.reports.console import print_summary
from scrubcheck.results import Failure, Outcome, RunResult, ScenarioResult


def _result(scenario_id: str, outcome: Outcome, *failures: Failure,
            reason: str | None = None, captured: str | None = None) -> ScenarioResult:
    return ScenarioResult(scenario_id, "blocks", ["R-BLOCK-1"], "corpora/blocks.yaml", 1, "",
                          outcome, list(failures), reason, chunkings_run=3, checks_run=9,
                          captured_output=captured)


def _failure(check: str, rule: str, level: str, chunking: str = "char") -> Failure:
    return Failure(check, rule, level, chunking, ["x"], f"{check} failed",
                   replay=f"scrubcheck show x --chunking {chunking}")


def _run(*results: ScenarioResult, interrupted: bool = False) -> RunResult:
    return RunResult("x.py:S", "stream", [], [], "1.2.0", "0", "now", 1.0,
                     {"jobs": 2, "seed": 0, "level": "must"}, list(results),
                     interrupted=interrupted)


def summary(run: RunResult) -> str:
    out = io.StringIO()
    print_summary(run, "must", out)
    return out.getvalue()


def test_failing_scenarios_are_listed_leaks_first_then_must_then_errors_then_should():
    raised = _failure("exception", "R-ROBUST-1", "MUST", "whole")
    run = _run(
        _result("should-only", Outcome.FAIL, _failure("holdback", "R-STREAM-2", "SHOULD")),
        _result("crashed", Outcome.ERROR, raised, reason="the scrubber raised under whole: boom"),
        _result("timed-out", Outcome.TIMEOUT,
                reason="no result within 2 s wall time (0.0 s of CPU time used) while running "
                       "char; the worker was killed and replaced; replay: scrubcheck show t"),
        _result("must-fail", Outcome.FAIL, _failure("expected", "R-FID-1", "MUST")),
        _result("leaks", Outcome.FAIL, _failure("tag", "R-TAG-1", "MUST"),
                _failure("leak", "R-LEAK-1", "MUST")),
        _result("fine", Outcome.PASS),
    )
    text = summary(run)
    assert "leaks: 1 scenario shows reasoning to the user" in text
    order = [line.split()[1] for line in text.splitlines()
             if line.startswith(("  FAIL", "  ERROR", "  TIMEOUT"))]
    assert order == ["leaks", "must-fail", "crashed", "timed-out", "should-only"]
    assert "leaks [leak]" in text
    replays = [line.strip() for line in text.splitlines() if "replay:" in line]
    assert len(replays) == 5  # every failing scenario, the raising ERROR included
    assert "replay: scrubcheck show x --chunking whole" in replays  # the ERROR's
    assert "replay: scrubcheck show t" in replays  # split off the TIMEOUT reason
    assert "; replay:" not in text
    assert text.rstrip().endswith("result: FAIL at level must (exit 1)")


def test_captured_output_is_a_short_escaped_excerpt_under_an_error():
    captured = "[9,000 bytes, 900 lines of stdout/stderr]\n" + "".join(
        f"\x1b[2Jline {i}\n" for i in range(900))
    text = summary(_run(_result("crashed", Outcome.ERROR, reason="the worker process died "
                                "(killed by signal SIGSEGV) while running char",
                                captured=captured)))
    assert "\x1b" not in text and "| \\x1b[2Jline 899" in text
    assert "more captured lines" in text and len(text.splitlines()) < 25
    assert "the scrubber wrote to stdout/stderr in 1 scenario" in text


def test_an_interrupted_run_says_what_finished_and_what_did_not():
    not_run = "not run: the run was interrupted (Ctrl-C)"
    run = _run(_result("done", Outcome.PASS), _result("a", Outcome.SKIPPED, reason=not_run),
               _result("b", Outcome.SKIPPED, reason=not_run), interrupted=True)
    text = summary(run)
    assert "interrupted (Ctrl-C): 1 of 3 scenarios finished, 2 not run" in text
    assert text.rstrip().endswith("result: INTERRUPTED (exit 130)")
    assert run.exit_code() == 130
