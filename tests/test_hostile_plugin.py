"""The pytest plugin against hostile scrubbers: each costs only its own tests.

Each case runs `pytest --scrubber … --scrubcheck-area blocks` in a subprocess, as
a CI job would, against a scrubber that hangs, blocks on a socket, spins,
segfaults, calls `os._exit`, raises, allocates (under `--scrubcheck-memory-limit`),
floods stdout, or is quadratic. Whatever it does, pytest must end within a wall
time derived from `--scrubcheck-timeout` (stated in `wall_bound`), fail exactly
the tests the scrubber broke with the reason (TIMEOUT, the signal or exit code,
the exception), print its summary line and exit 1: never hang, never die with
the scrubber's signal or exit code.
"""

from __future__ import annotations

import math
import os
import re
import sys
from collections.abc import Callable
from pathlib import Path

import bounded
import pytest
from bounded import Finished, Interrupt

from scrubcheck.adapters import load_adapter
from scrubcheck.corpus import load_corpus, select

REPO = Path(__file__).resolve().parents[1]
HOSTILE = REPO / "tests" / "data" / "hostile" / "hostile_scrubbers.py"
CORPUS = REPO / "corpora" / "blocks.yaml"
AREA = "blocks"
TIMEOUT_S = 2.0
JOBS = 2
#: pytest's start, loading the corpus and the scrubber, forking workers and reporting,
#: on a shared, busy machine.
STARTUP_S = 60.0
LINEAR = "scrubber::linear-time"

#: The first line of a failing test's text: `area::id: OUTCOME...: reason`.
VERDICT = re.compile(r"^(\S+::\S+): (TIMEOUT|ERROR|FAIL)\b[^:]*: (.*)$", re.MULTILINE)
SUMMARY = re.compile(r"^=* ?(\d+ failed(?:, \d+ \w+)*) in [\d.]+s", re.MULTILINE)


def wall_bound(tests: int, timeout_s: float) -> float:
    """The longest a session may take: every test (the linear-time check included, run
    alone first) may use its whole timeout, JOBS at a time, twice over for a busy
    machine, plus STARTUP_S."""
    rounds = math.ceil((tests - 1) / JOBS) + 1
    return 2 * rounds * timeout_s + STARTUP_S


def verdicts_of(session: Finished) -> dict[str, tuple[str, str]]:
    """Failing test -> (outcome, reason), from each failure's first line."""
    return {m[1]: (m[2], m[3]) for m in VERDICT.finditer(session.out)}


def summary(session: Finished) -> str:
    found = SUMMARY.search(session.out)
    assert found, f"no pytest summary line in:\n{session.out[-3000:]}"
    return found[1]


def blocks_scenarios(spec: str) -> tuple[list[str], list[str]]:
    """(supported, unsupported) test names of the area for this scrubber."""
    adapter = load_adapter(spec)
    supported, unsupported = [], []
    for s in select(load_corpus([CORPUS]).scenarios, areas=[AREA]):
        chosen = unsupported if adapter.unsupported_reason(s.context, s.text) else supported
        chosen.append(f"{s.area}::{s.id}")
    return supported, unsupported


def plugin_session(tmp_path: Path, spec: str, timeout_s: float, *extra: str, bound_s: float,
                   interrupt: Interrupt | None = None) -> Finished:
    """pytest with the plugin in a fresh directory (no other tests, no ini file to
    inherit), bounded (tests/bounded.py): in a process group of its own, killed with any
    scrubber worker left behind when it ends; stderr merged into stdout."""
    (tmp_path / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q",
               "--scrubber", spec, "--scrubcheck-corpus", str(CORPUS),
               "--scrubcheck-area", AREA, "--scrubcheck-timeout", f"{timeout_s:g}",
               "--scrubcheck-jobs", str(JOBS), *extra]
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    return bounded.run(command, bound_s=bound_s, cwd=tmp_path, env=env, merge_stderr=True,
                       interrupt=interrupt)


def run_plugin(tmp_path: Path, spec: str, timeout_s: float = TIMEOUT_S,
               *extra: str) -> Finished:
    """The plugin's whole session, which must end within `wall_bound`."""
    supported, unsupported = blocks_scenarios(spec)
    bound = wall_bound(len(supported) + len(unsupported) + 1, timeout_s)
    session = plugin_session(tmp_path, spec, timeout_s, *extra, bound_s=bound)
    print(f"{spec}: {session.seconds:.1f} s wall (bound {bound:.0f} s)")  # shown with -s
    return session


def hostile(name: str) -> str:
    return f"{HOSTILE}:{name}"


def expect_all_fail(session: Finished, spec: str, outcome: str,
                    reason: Callable[[str, str], bool]) -> None:
    """Every supported scenario and the linear-time check failed with `outcome` and a
    reason `reason(test, text)` accepts; unsupported ones skipped; summary and exit 1."""
    supported, unsupported = blocks_scenarios(spec)
    verdicts = verdicts_of(session)
    assert sorted(verdicts) == sorted([LINEAR, *supported]), session.out[-3000:]
    for test, (got, text) in verdicts.items():
        assert got == outcome, (test, got, text)
        assert reason(test, text), (test, text)
    expected = f"{len(supported) + 1} failed"
    if unsupported:
        expected += f", {len(unsupported)} skipped"
    assert summary(session) == expected
    assert session.code == 1, session.out[-3000:]


def replayable(test: str, text: str) -> bool:
    """A scenario's reason names the stream it was on and the command that replays it
    (the linear-time check is one stream: its reason names the check)."""
    if test == LINEAR:
        return "linear-time" in text
    scenario = test.split("::", 1)[1]
    return re.search(rf"while running \S+; .*replay: scrubcheck show {scenario} ", text) is not None


#: a hanging scrubber's tests wait out their whole timeout each: the shortest that still
#: lets a worker start on a busy machine keeps the three sessions short
HANG_TIMEOUT_S = 1.0


@pytest.mark.parametrize("name", ["Sleeps", "BlocksOnSocket", "Spins"])
def test_a_hanging_scrubber_times_out_test_by_test(tmp_path: Path, name: str) -> None:
    session = run_plugin(tmp_path, hostile(name), HANG_TIMEOUT_S)
    expect_all_fail(session, hostile(name), "TIMEOUT",
                    lambda test, text: f"no result within {HANG_TIMEOUT_S:g} s wall time"
                    in text and replayable(test, text))


@pytest.mark.parametrize(("name", "death"), [("Segfaults", "killed by signal SIGSEGV"),
                                             ("Exits", "exit code 3")])
def test_a_dying_scrubber_fails_its_tests_and_pytest_lives(tmp_path: Path, name: str,
                                                           death: str) -> None:
    session = run_plugin(tmp_path, hostile(name))
    expect_all_fail(session, hostile(name), "ERROR",
                    lambda test, text: f"the worker process died ({death})" in text
                    and replayable(test, text))
    if name == "Segfaults":  # the traceback of pytest's fault handler is in each failure
        # (counted above pytest's short summary, which repeats whole messages where CI is set)
        failures = session.out.split("short test summary info")[0]
        assert failures.count("  | Fatal Python error: Segmentation fault") == len(
            verdicts_of(session))
    assert not re.search(r"^Fatal Python error", session.out, re.MULTILINE)


def test_a_raising_scrubber_fails_its_tests_with_the_exception(tmp_path: Path) -> None:
    session = run_plugin(tmp_path, hostile("Raises"))
    expect_all_fail(session, hostile("Raises"), "ERROR",
                    lambda test, text: "RuntimeError: hostile scrubber raised on purpose" in text)
    # the scenario failures carry their replay commands in the report text
    assert session.out.count("  replay:   scrubcheck show blocks-") >= len(
        blocks_scenarios(hostile("Raises"))[0])


def test_an_allocating_scrubber_stops_at_the_memory_limit(tmp_path: Path) -> None:
    session = run_plugin(tmp_path, hostile("Allocates"), TIMEOUT_S,
                         "--scrubcheck-memory-limit", "512M")
    expect_all_fail(session, hostile("Allocates"), "ERROR",
                    lambda test, text: "MemoryError" in text
                    and "memory limit of 512 MiB was reached: --scrubcheck-memory-limit)"
                    in text)  # the plugin's option, not `run`'s


def test_a_printing_scrubber_is_heard_only_in_its_failures(tmp_path: Path) -> None:
    session = run_plugin(tmp_path, hostile("Prints"))
    supported, unsupported = blocks_scenarios(hostile("Prints"))
    verdicts = verdicts_of(session)
    # it removes nothing, so every scenario fails as a leak (or at least a fidelity failure)
    assert set(supported) <= set(verdicts)
    assert all(verdicts[t][0] == "FAIL" for t in supported)
    # what it printed is in each failure's text, escaped and marked as captured output
    assert "\x1b" not in session.out  # its clear-screen escape never reaches the console
    assert session.out.count("scrubber output (stdout/stderr, captured):") >= len(supported)
    noise = [line for line in session.out.splitlines() if "scrubber noise" in line]
    assert noise
    assert all(line.startswith("  | ") for line in noise), noise[:5]
    assert re.search(r"\[[\d,]+ bytes, [\d,]+ lines of stdout/stderr", session.out)
    assert summary(session).startswith(f"{len(supported) + (LINEAR in verdicts)} failed")
    assert session.code == 1


def test_a_quadratic_scrubber_fails_the_linear_time_test(tmp_path: Path) -> None:
    spec = "scrubcheck.scrubbers.broken.quadratic_rescan:QuadraticRescanScrubber"
    # the measurement sizes itself to the timeout; 30 s leaves room on a busy machine
    session = run_plugin(tmp_path, spec, 30.0)
    verdicts = verdicts_of(session)
    assert list(verdicts) == [LINEAR], session.out[-3000:]
    assert verdicts[LINEAR][0] == "FAIL"
    assert "detail:   time grows faster than the stream" in session.out
    supported, unsupported = blocks_scenarios(spec)
    assert summary(session) == f"1 failed, {len(supported)} passed" + (
        f", {len(unsupported)} skipped" if unsupported else "")
    assert session.code == 1


def test_the_reference_passes(tmp_path: Path) -> None:
    session = run_plugin(tmp_path, "reference", 60.0)
    supported, _ = blocks_scenarios("reference")
    assert verdicts_of(session) == {}
    assert re.search(rf"^{len(supported) + 1} passed in ", session.out, re.MULTILINE), \
        session.out[-3000:]
    assert session.code == 0


def test_ctrl_c_during_a_hang_ends_the_session_at_once(tmp_path: Path) -> None:
    """Ctrl-C (SIGINT to the whole process group, as a terminal sends it) while a
    window of scenarios hangs: pytest stops there, with its summary, exit 2."""
    # the linear-time check fails first (TIMEOUT); then a window of scenarios hangs
    session = plugin_session(tmp_path, hostile("Sleeps"), TIMEOUT_S,
                             bound_s=2 * STARTUP_S + 3 * TIMEOUT_S, interrupt=Interrupt(
                                 "F", within_s=STARTUP_S + 2 * TIMEOUT_S,
                                 delay_s=TIMEOUT_S / 2))
    stdout, took = session.out, session.after_interrupt_s
    assert took is not None
    print(f"Ctrl-C: pytest ended {took:.1f} s after SIGINT")  # shown with -s
    assert took < 2 * TIMEOUT_S + 10  # not the rest of the corpus: a few seconds at most
    assert session.code == pytest.ExitCode.INTERRUPTED, stdout[-3000:]
    assert "KeyboardInterrupt" in stdout
    assert re.search(r"^1 failed in [\d.]+s", stdout, re.MULTILINE), stdout[-3000:]
