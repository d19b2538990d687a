"""Hostile peers: a peer that answers garbage, answers another request's id, answers too
late, dies on `<think>` or dies at start costs a few failed requests, not a restart per
stream, says why in one reason, and leaves no pile of log files.

The peers are one stdlib program (tests/data/hostile/peers/hostile_peer.py) under five
manifests. The first tests drive the adapter in-process (the circuit breaker's counts,
the timeout message, the logs); the last run `scrubcheck run` and `scrubcheck matrix` as
real processes, each with a wall-time bound far below what the same run cost before the
breaker (260 s for the garbage peer over `--area blocks`), and with the peer cache (and so
the stderr logs) in a temporary folder through SCRUBCHECK_CACHE.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import bounded
import pytest
from bounded import Finished

from scrubcheck.adapters import AdapterError, load_adapter
from scrubcheck.adapters.drive import run_stream
from scrubcheck.adapters.peer import PeerAdapter, PeerFailureError
from scrubcheck.model import Context
from scrubcheck.peers import breaker, find_manifest, launch_for, logs
from scrubcheck.peers.process import PeerFailure, PeerProcess

ROOT = Path(__file__).resolve().parent.parent
PEERS = ROOT / "tests" / "data" / "hostile" / "peers"
THINK = ("Hi <think>plan", "</think> there")
PLAIN = ("plain ", "text")
N, M = breaker.FAILURES_TO_TRIP, breaker.SCENARIOS_TO_GIVE_UP


def spec(name: str) -> str:
    return f"peer:{PEERS / name / 'peer.toml'}"


@pytest.fixture
def cache(tmp_path, monkeypatch) -> Path:
    """The peer cache (and its logs/ folder) in a temporary folder."""
    monkeypatch.setenv("SCRUBCHECK_CACHE", str(tmp_path / "cache"))
    return tmp_path / "cache" / "peers" / "logs"


@pytest.fixture
def open_peer(cache):
    """A new adapter of a hostile peer (not load_adapter's cached one: each test starts a
    run of its own), closed at the end of the test."""
    opened: list[PeerAdapter] = []

    def load(name: str) -> PeerAdapter:
        adapter = PeerAdapter(spec(name))
        opened.append(adapter)
        return adapter

    yield load
    for adapter in opened:
        adapter.close()


# -- the circuit breaker, in-process ---------------------------------------------------------
GIVEN_UP = "PeerGivenUp: "  # how a stream error from the breaker begins


def error_of(peer: PeerAdapter, deltas: tuple[str, ...]) -> str:
    """The error summary of one stream (which must fail)."""
    trace = run_stream(peer, Context(), deltas)
    assert trace.error is not None and trace.error.call == "peer"
    return trace.error.summary


def stop_of(peer: PeerAdapter, deltas: tuple[str, ...], kind: str, failed: int = 0) -> str:
    """After `failed` failures of `kind`, fail streams plainly up to N - 1, then the Nth with
    the breaker's stop."""
    for _ in range(N - 1 - failed):
        assert not error_of(peer, deltas).startswith(GIVEN_UP)
    stop = error_of(peer, deltas)
    assert stop.startswith(f"{GIVEN_UP}peer {peer.name} stopped: {N} requests in a row failed "
                           f"the same way ({kind}); last: "), stop
    return stop


def test_a_garbage_peer_is_stopped_then_given_up(open_peer):
    peer = open_peer("garbage")
    assert "the peer answered request `run` with a line that is not JSON: <<garbage>>" \
        in error_of(peer, THINK)  # a failure before the third is an error of its own
    stop = stop_of(peer, THINK, "an answer that is not JSON", failed=1)
    assert "last: the peer answered request `run` with a line that is not JSON" in stop
    assert "peer stderr (last lines): hostile peer (garbage" in stop
    for stops in range(2, M):  # after a stop, one try each
        assert error_of(peer, THINK).startswith(
            f"{GIVEN_UP}peer garbage stopped: failed again (an answer that is not JSON) on the "
            f"one try after {stops - 1} stop(s) in a row")
    given_up = error_of(peer, THINK)
    assert given_up.startswith(
        f"{GIVEN_UP}peer garbage given up for the rest of the run after {M} stops in a row (an "
        "answer that is not JSON); last: the peer answered request `run` with a line that is "
        "not JSON: <<garbage>>"), given_up
    assert "the peer is not started again; peer stderr (last lines): hostile peer (garbage" \
        in given_up

    restarts = peer.process.restarts
    assert restarts == N + M - 1  # every failure killed the process: one start each
    began = time.monotonic()
    for _ in range(200):  # from now on nothing is sent and nothing is started
        assert error_of(peer, PLAIN) == given_up
    assert time.monotonic() - began < 1.0
    assert peer.process.restarts == restarts and not peer.process.alive()
    with pytest.raises(PeerFailureError, match="given up for the rest of the run"):
        peer.open(Context()).time_stream("abc", 1, None)  # the linear-time check too


def test_a_wrong_id_is_its_own_kind_of_failure(open_peer):
    peer = open_peer("wrong-id")
    ids = re.search(r"answered request `run` \(id (\d+)\) with id (\d+): ", error_of(peer, PLAIN))
    assert ids is not None and int(ids.group(2)) == int(ids.group(1)) + 1000
    stop_of(peer, PLAIN, "an answer to another request", failed=1)


def test_a_good_answer_resets_the_counts(open_peer):
    peer = open_peer("dies-on-think")
    for _ in range(3):  # never N failures in a row: no stop
        for _ in range(N - 1):
            error = error_of(peer, THINK)
            assert "the peer process died during request `run` (exit code 3)" in error
            assert "saw <think>, exiting on purpose" in error
        assert run_stream(peer, Context(), PLAIN).output == "plain text"
    stop_of(peer, THINK, "the peer process died")
    assert run_stream(peer, Context(), PLAIN).ok  # the one try after a stop works: reset
    stop_of(peer, THINK, "the peer process died")


def test_a_request_timeout_is_named_with_the_budget_it_ran_out_of(open_peer):
    peer = open_peer("slow")  # timeout_s = 1, answers after 60 s
    began = time.monotonic()
    error = error_of(peer, PLAIN)
    assert time.monotonic() - began < 10
    assert "request `run` got no answer within 1 s (the peer's timeout_s); the peer was " \
           "killed" in error
    assert "plus" not in error  # a short stream gets no allowance worth naming
    stop_of(peer, PLAIN, "the request timed out", failed=1)


def test_a_peer_that_dies_at_start_is_refused_with_its_stderr(cache):
    with pytest.raises(AdapterError) as refused:
        load_adapter(spec("dies-at-start"))
    message = str(refused.value)
    assert "peer dies-at-start did not start" in message
    assert "ModuleNotFoundError: No module named 'my_scrubber'" in message


def _worker_fails(adapter: PeerAdapter, done) -> None:  # in a forked child
    try:
        done.put(stop_of(adapter, THINK, "an answer that is not JSON"))
    finally:
        adapter.process.stop()  # the child's own peer process


def test_forked_workers_share_the_run_counts(open_peer):
    """The runner's workers are forked copies of the process that loaded the adapter: a stop
    in one of them counts for the whole run (and outlives the worker)."""
    peer = open_peer("garbage")
    context = multiprocessing.get_context("fork")
    done = context.Queue()
    child = context.Process(target=_worker_fails, args=(peer, done))
    child.start()
    try:
        assert "peer garbage stopped" in done.get(timeout=60)
    finally:
        child.join(timeout=10)
        if child.is_alive():
            child.kill()
    assert child.exitcode == 0
    assert "on the one try after 1 stop(s) in a row" in error_of(peer, THINK)


# -- stderr logs -----------------------------------------------------------------------------
def test_restarts_append_to_one_log_whose_tail_is_the_current_start(cache):
    manifest = find_manifest(str(PEERS / "garbage" / "peer.toml"))
    process = PeerProcess(launch_for(manifest), "garbage")
    try:
        for _ in range(30):  # garbage: every answer kills the process, the next starts one
            with pytest.raises(PeerFailure, match="not JSON"):
                process.request({"op": "run"}, 10)
    finally:
        process.stop()
    assert process.restarts == 30
    files = list(cache.iterdir())
    assert [f.name for f in files] == [f"garbage--pid{os.getpid()}.stderr"]
    text = files[0].read_text()
    assert text.count("=== scrubcheck: peer started (garbage, start") == 30
    tail = process.stderr_tail()
    assert tail.count("hostile peer (garbage") == 1 and "start 30" not in tail


def test_the_log_folder_is_pruned_and_each_log_is_capped(tmp_path):
    folder = tmp_path / "logs"
    folder.mkdir()
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True).stdout.strip()
    for number in range(200):  # a pile from before: old names, and processes long gone
        name = f"garbage-{number}-0.stderr" if number % 2 else f"old--pid{dead}.stderr"
        (folder / f"{number}-{name}").write_text("x" * 100)
    alive = folder / f"busy--pid{os.getppid()}.stderr"  # a live process's log stays
    alive.write_text("still written")
    os.utime(alive, (0, 0))
    log = logs.StderrLog(folder, "peer")
    log.open_for_start().close()
    names = {p.name for p in folder.iterdir()}
    assert len(names) == logs.KEEP_FILES + 1 and alive.name in names
    assert log.path.name in names

    with open(log.path, "ab") as handle:  # a chatty peer
        handle.write(b"y" * (logs.MAX_BYTES + 10) + b"\nlast words\n")
    log.bound()
    assert log.path.stat().st_size <= logs.KEEP_BYTES + 100
    assert log.tail(100).endswith("last words\n")


# -- through `scrubcheck run` and `scrubcheck matrix` ----------------------------------------
STARTUP = 20.0  # starting Python, loading the corpus, on a loaded machine
TIMEOUT = 10.0  # --timeout: wall-clock seconds per scenario (and for the linear-time check)
BLOCKS = 27  # scenarios in --area blocks (26 run, 1 UNSUPPORTED for a peer without context)
# A broken peer costs the linear-time check (at most --timeout) and N + M - 1 failed requests
# (each a start of the peer, well under a second); --jobs 2 runs two at a time.
RUN_BOUND = STARTUP + TIMEOUT + 20.0
# The slow peer: each failed request also waits timeout_s (1 s) more.
SLOW_BOUND = RUN_BOUND + (N + M) * 1.0


def scrubcheck(argv: list[str], bound: float, cwd: Path, cache: Path) -> Finished:
    """`scrubcheck ARGV` with SCRUBCHECK_CACHE=cache; fails past `bound` seconds. Its
    process group (the peers included) is killed at the end, whatever happened."""
    return bounded.scrubcheck(*argv, bound_s=bound, cwd=cwd,
                              env={**os.environ, "SCRUBCHECK_CACHE": str(cache)})


# peer -> (its failure kind as the breaker names it, what every reason says; wall-time bound)
RUN_EXPECTED = {
    "garbage": ("an answer that is not JSON", "with a line that is not JSON", RUN_BOUND),
    "wrong-id": ("an answer to another request", "answered request `run` (id", RUN_BOUND),
    "slow": ("the request timed out", "got no answer within 1", SLOW_BOUND),
    "dies-on-think": ("the peer process died", "died during request `run` (exit code 3)",
                      RUN_BOUND),
}
# Starts of the peer in a whole run: one in the parent, one per worker, one after each failed
# request (N + M - 1 of them, plus one in flight per worker, plus the linear-time check's).
MAX_STARTS = 1 + 2 + (N + M - 1) + 2 + 1


@pytest.mark.parametrize("name", sorted(RUN_EXPECTED))
def test_run_gives_up_on_a_hostile_peer_in_bounded_time(name, tmp_path):
    kind, says, bound = RUN_EXPECTED[name]
    cache = tmp_path / "cache"
    done = scrubcheck(["run", "--scrubber", spec(name), "--area", "blocks", "--jobs", "2",
                       "--timeout", f"{TIMEOUT:g}", "--no-progress", "--out",
                       str(tmp_path / "report")], bound, ROOT, cache)
    print(f"run {name}: {done.seconds:.1f} s (bound {bound:g} s)")
    assert done.code == 1, done.err[-3000:]
    assert "Traceback" not in done.err, done.err[-3000:]
    assert f"{BLOCKS} scenarios" in done.out and "result: FAIL" in done.out  # the summary
    report = json.loads((tmp_path / "report" / "report.json").read_text(encoding="utf-8"))
    ran = [r for r in report["results"] if r["outcome"] != "UNSUPPORTED"]
    assert len(ran) == BLOCKS - 1
    assert {r["outcome"] for r in ran} == {"ERROR"}
    reasons = [r["reason"] for r in ran]
    assert all(says in r for r in reasons), reasons
    # the scenarios under way when the breaker gave up (one per worker, and up to M more
    # when the runner ends a scenario at each stop) may name a stop or a failure instead
    given_up = [r for r in reasons if "given up for the rest of the run" in r]
    assert len(given_up) >= BLOCKS - 1 - M - 2
    assert all(f"peer {name} given up" in r and f"stops in a row ({kind}); last: " in r
               and f"peer stderr (last lines): hostile peer ({name}" in r for r in given_up)
    logs_folder = list((cache / "peers" / "logs").iterdir())
    assert 1 <= len(logs_folder) <= 6  # one per process that started the peer
    starts = sum(f.read_text().count("=== scrubcheck: peer started") for f in logs_folder)
    assert starts <= MAX_STARTS  # not one per stream (thousands)
    assert sum(f.stat().st_size for f in logs_folder) < 100_000


def test_run_refuses_a_peer_that_dies_at_start(tmp_path):
    cache = tmp_path / "cache"
    done = scrubcheck(["run", "--scrubber", spec("dies-at-start"), "--area", "blocks",
                       "--no-progress"], STARTUP, ROOT, cache)
    assert done.code == 2
    assert "peer dies-at-start did not start" in done.err
    assert "ModuleNotFoundError: No module named 'my_scrubber'" in done.err
    assert len(list((cache / "peers" / "logs").iterdir())) == 1


def test_the_runner_ends_the_scenario_at_the_breakers_stop(open_peer):
    from scrubcheck.model import Scenario
    from scrubcheck.runner import RunSettings, run_scenario

    peer = open_peer("garbage")
    scenario = Scenario(id="blocky", area="test", rules=("R-LEAK-1",), description="",
                        deltas=THINK, reasoning=("plan",), visible="Hi  there")
    result = run_scenario(peer, scenario, RunSettings(random_count=0))
    assert result.outcome.value == "ERROR"
    assert peer.process.restarts == N  # no stream of the scenario ran after the stop
    assert f"peer garbage stopped: {N} requests in a row failed the same way" in result.reason
    assert "harness error" not in result.reason


def test_matrix_row_of_a_hostile_peer_is_bounded_and_clear(tmp_path):
    cache, out = tmp_path / "cache", tmp_path / "matrix"
    done = scrubcheck(["matrix", "--no-peers", "--quick", "--jobs", "2", "--timeout",
                       f"{TIMEOUT:g}",
                       "--scrubber", spec("garbage"), "--area", "blocks", "--out", str(out),
                       "--no-progress"], RUN_BOUND + STARTUP, ROOT, cache)
    print(f"matrix with the garbage peer: {done.seconds:.1f} s")
    assert done.code == 0, done.err[-3000:]
    assert "Traceback" not in done.err, done.err[-3000:]
    rows = {row["spec"]: row for row in
            json.loads((out / "matrix.json").read_text(encoding="utf-8"))["rows"]}
    row = rows[spec("garbage")]
    assert row["status"] == "ran"
    assert set(row["verdicts"].values()) == {"ERROR", "UNSUPPORTED"}
    assert row["duration_s"] <= RUN_BOUND
    assert set(rows["reference"]["verdicts"].values()) <= {"PASS", "UNSUPPORTED"}
    report = json.loads((out / row["report"]).read_text(encoding="utf-8"))
    assert any("peer garbage given up for the rest of the run" in (r["reason"] or "")
               for r in report["results"])
    assert len(list((cache / "peers" / "logs").iterdir())) <= 6
