"""Hostile scrubbers through `scrubcheck run` and `scrubcheck show`, as a user runs them.

Each fixture (tests/data/hostile/hostile_scrubbers.py) misbehaves on `<think>`:
it sleeps, blocks on a socket, spins, segfaults, exits, raises, prints or
allocates. Every command must finish within a wall time derived from its
`--timeout` (stated per test, generous for a loaded two-core machine), give the
right verdict with a clear reason, and end with its summary. Commands run as
bounded subprocesses in their own process group (tests/bounded.py), killed when they end.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import pytest
from bounded import Finished, Interrupt, scrubcheck

HOSTILE = Path(__file__).parent / "data" / "hostile" / "hostile_scrubbers.py"
QUADRATIC = "scrubcheck.scrubbers.broken.quadratic_rescan:QuadraticRescanScrubber"
IDS = ("blocks-mid-line", "blocks-back-to-back")  # both hold `<think>`: every fixture misbehaves
SHOW_ID = "blocks-mid-line"
JOBS = 2
# Start-up (imports, corpus loading, forking workers) and a busy machine: the bound is
# the time the timeouts allow plus this much.
SLACK_S = 40.0


def spec(name: str) -> str:
    return f"{HOSTILE}:{name}"


def run_bound(timeout: float, scenarios: int, linear: bool = True) -> float:
    """Wall seconds a run may take: every scenario hanging for its timeout, `JOBS` at a
    time, the linear-time check hanging for one timeout, and SLACK_S."""
    return timeout * math.ceil(scenarios / JOBS) + (timeout if linear else 0.0) + SLACK_S


def hostile_run(name: str, tmp_path: Path, timeout: float, *extra: str, ids=IDS) -> tuple[
        Finished, dict, float]:
    """`scrubcheck run` on `ids` with a fixture (killed and failed past its bound); how it
    ended, report.json and the bound."""
    argv = ["run", "--scrubber", spec(name) if ":" not in name else name,
            "--jobs", str(JOBS), "--timeout", str(timeout), "--out", str(tmp_path),
            *extra]
    for scenario_id in ids:
        argv += ["--id", scenario_id]
    bound = run_bound(timeout, len(ids))
    finished = scrubcheck(*argv, bound_s=bound)
    assert "Traceback" not in finished.text, finished.err
    assert finished.out.rstrip().splitlines()[-1].startswith("report: "), finished.out
    assert "\nresult: FAIL at level must (exit 1)" in finished.out, finished.out
    assert finished.code == 1, finished.text
    report = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    assert sorted(r["scenario_id"] for r in report["results"]) == sorted(ids)
    return finished, report, bound


def linear_of(report: dict) -> dict:
    [linear] = report["scrubber_checks"]
    return linear


@pytest.mark.parametrize("name", ["Sleeps", "BlocksOnSocket", "Spins"])
def test_a_hang_costs_its_timeout_in_wall_time(name, tmp_path):
    finished, report, _ = hostile_run(name, tmp_path, 2)
    for result in [*report["results"], linear_of(report)]:
        assert result["outcome"] == "TIMEOUT", result
        assert "no result within 2 s wall time" in result["reason"], result["reason"]
        assert "of CPU time used" in result["reason"]
    cpu = report["results"][0]["metrics"]["cpu_seconds"]
    if name == "Spins":  # the CPU time beside the wall time tells a spin from a block
        assert cpu > 0.2, report["results"][0]["reason"]
    else:
        assert cpu < 1.0, report["results"][0]["reason"]
    assert "replay: scrubcheck show blocks-mid-line" in finished.out


@pytest.mark.parametrize(("name", "reason"), [
    ("Segfaults", "killed by signal SIGSEGV"),
    ("Exits", "exit code 3"),
    ("Raises", "RuntimeError: hostile scrubber raised on purpose"),
])
def test_a_crash_or_raise_is_an_error_naming_why(name, reason, tmp_path):
    finished, report, _ = hostile_run(name, tmp_path, 2)
    for result in [*report["results"], linear_of(report)]:
        assert result["outcome"] == "ERROR", result
        assert reason in result["reason"], result["reason"]
    errors = [line for line in finished.out.splitlines() if line.startswith("  ERROR")]
    assert len(errors) == len(IDS)
    replays = [line for line in finished.out.splitlines()
               if line.strip().startswith("replay: scrubcheck show blocks-")]
    assert len(replays) == len(IDS), finished.out  # also for a raising scrubber


def test_printed_output_is_captured_per_scenario_never_shown_raw(tmp_path):
    finished, report, _ = hostile_run("Prints", tmp_path, 10)
    console = finished.text
    assert "scrubber noise" not in console and "\x1b" not in console
    assert len(finished.out.splitlines()) < 60  # the scrubber printed thousands
    for result in report["results"]:
        assert result["outcome"] == "FAIL"  # it leaks: passes everything through
        captured = result["captured_output"]
        assert "scrubber noise on stdout" in captured and "scrubber noise on stderr" in captured
        header = captured.splitlines()[0]
        lines = int(header.split(" lines")[0].split(", ")[-1].replace(",", ""))
        assert lines > 100 and "not kept" in header, header  # counted, bounded
        assert len(captured) < 6000
    assert "scrubber output: [" in finished.out
    markdown = (tmp_path / "report.md").read_text(encoding="utf-8")
    assert "**Scrubber output**" in markdown and "\\x1b[2J" in markdown


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_DATA is Linux's")
def test_a_memory_limit_turns_a_runaway_allocation_into_an_error(tmp_path):
    finished, report, _ = hostile_run("Allocates", tmp_path, 10, "--memory-limit", "512M")
    for result in [*report["results"], linear_of(report)]:
        assert result["outcome"] == "ERROR", result
        assert "MemoryError" in result["reason"]
        assert "memory limit of 512 MiB" in result["reason"], result["reason"]
    assert report["settings"]["memory_limit"] == 512 * 1024 * 1024


def test_a_quadratic_scrubber_fails_the_linear_check_within_the_budget(tmp_path):
    finished, report, _ = hostile_run(QUADRATIC, tmp_path, 10)
    linear = linear_of(report)
    assert linear["outcome"] == "FAIL" and linear["failures"][0]["rule"] == "R-ROBUST-2"
    assert linear["duration_s"] < 10
    assert "(abandoned)x" not in finished.out and "ratio -1" not in finished.out
    assert "linear-time (R-ROBUST-2): FAIL" in finished.out
    assert all(r["outcome"] == "PASS" for r in report["results"])  # right output, just slow


SHOW_CASES = [
    ("Sleeps", [], "TIMEOUT: no result within 2 s wall time"),
    ("BlocksOnSocket", [], "TIMEOUT: no result within 2 s wall time"),
    ("Spins", [], "TIMEOUT: no result within 2 s wall time"),
    ("Segfaults", [], "ERROR: the worker process died (killed by signal SIGSEGV)"),
    ("Exits", [], "ERROR: the worker process died (exit code 3)"),
    ("Raises", [], "verdict: ERROR"),
    ("Allocates", ["--memory-limit", "512M"], "memory limit of 512 MiB"),
]


@pytest.mark.parametrize(("name", "extra", "expected"), SHOW_CASES,
                         ids=[case[0] for case in SHOW_CASES])
def test_show_reports_a_hang_or_crash_with_the_stream_and_finishes(name, extra, expected):
    if name == "Allocates" and not sys.platform.startswith("linux"):
        pytest.skip("RLIMIT_DATA is Linux's")
    bound = 2 + SLACK_S
    finished = scrubcheck("show", SHOW_ID, "--scrubber", spec(name), "--chunking", "char",
                          "--timeout", "2", *extra, bound_s=bound)
    assert finished.code == 1, finished.text
    assert "Traceback (most recent call last)" not in finished.err
    assert expected in finished.out, finished.out
    if expected.startswith(("TIMEOUT", "ERROR")):  # lost: where, and the stream replayed
        assert "while running char at feed() of delta 20" in finished.out
        assert "stream char (60 deltas): list('The result is <think>" in finished.out


def test_show_keeps_a_scrubbers_output_apart_and_escaped():
    finished = scrubcheck("show", SHOW_ID, "--scrubber", spec("Prints"), "--timeout", "10",
                          bound_s=10 + SLACK_S)
    assert finished.code == 1 and "verdict: FAIL" in finished.out
    apart = finished.out.split("the scrubber's stdout/stderr (captured")
    assert len(apart) == 2 and "scrubber noise" not in apart[0] + finished.err
    assert "\x1b" not in finished.out and "| \\x1b[2J\\x1b[Hscrubber noise" in apart[1]


def test_ctrl_c_stops_the_run_reports_what_finished_and_exits_130(tmp_path):
    from scrubcheck.corpus import load_corpus
    from scrubcheck.model import Context

    # Sleeps takes no context: a pre-filled scenario is UNSUPPORTED at once; three later
    # ones with a block hang (corpus order is run order, two at a time).
    scenarios = load_corpus().scenarios
    first = next(i for i, s in enumerate(scenarios) if s.context.starts_in_reasoning)
    quick = scenarios[first].id
    hanging = [s.id for s in scenarios[first + 1:]
               if s.context == Context() and "<think>" in s.text][:3]
    argv = ["run", "--scrubber", spec("Sleeps"), "--jobs", "2", "--timeout", "60",
            "--no-linear", "--out", str(tmp_path), "--id", quick]
    for scenario_id in hanging:  # after `quick` in the corpus, so it finishes first
        argv += ["--id", scenario_id]
    # Ctrl-C (the whole group, as a terminal sends it) at the first progress line: stderr
    # is not a terminal, so progress comes as lines
    finished = scrubcheck(*argv, bound_s=SLACK_S + 30,
                          interrupt=Interrupt("scenarios done", within_s=SLACK_S))
    assert "1/4 scenarios done" in finished.before_interrupt, finished.before_interrupt
    out = finished.out
    assert finished.code == 130, finished.text
    assert finished.after_interrupt_s is not None and finished.after_interrupt_s < 15
    assert "Traceback" not in finished.text and "KeyboardInterrupt" not in finished.text
    assert "interrupted (Ctrl-C): 1 of 4 scenarios finished, 3 not run" in out, out
    assert "result: INTERRUPTED (exit 130)" in out
    report = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    assert report["interrupted"] is True
    outcomes = {r["scenario_id"]: r["outcome"] for r in report["results"]}
    assert outcomes[quick] != "SKIPPED" and list(outcomes.values()).count("SKIPPED") == 3
    assert "**Interrupted** (Ctrl-C): 1 of 4 scenarios finished" in (
        tmp_path / "report.md").read_text(encoding="utf-8")


def test_progress_lines_go_to_a_log_that_is_not_a_terminal():
    argv = ("run", "--jobs", "2", "--no-linear", "--id", IDS[0], "--id", IDS[1])
    finished = scrubcheck(*argv, bound_s=SLACK_S)
    assert finished.code == 0, finished.text
    lines = [line for line in finished.err.splitlines() if line.startswith("scrubcheck: ")]
    assert any("running 2 scenarios, at most 60 s each" in line for line in lines), lines
    assert any("2/2 scenarios done (100%)" in line for line in lines), lines
    quiet = scrubcheck(*argv, "--no-progress", bound_s=SLACK_S)
    assert "scrubcheck: " not in quiet.err


def test_a_quiet_log_still_gets_a_line_every_so_often(monkeypatch):
    import io

    from scrubcheck.runner import progress

    monkeypatch.setattr(progress, "LOG_EVERY_S", 0.0)
    stream = io.StringIO()
    shown = progress.RunProgress(10, 3.0, stream)
    shown.linear_started()
    shown.tick()
    shown.scenarios_started()
    shown.tick()
    lines = stream.getvalue().splitlines()
    assert lines[1].startswith("scrubcheck: linear-time check still running")
    assert lines[3].startswith("scrubcheck: 0/10 scenarios done (0%)")
