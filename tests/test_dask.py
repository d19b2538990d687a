"""`--dask`: a real loopback Dask cluster (a `dask scheduler` and two `dask worker`
processes on 127.0.0.1) runs a selection as shards and returns what a local run
returns; a worker SIGKILLed with a shard in flight costs nothing (Dask runs the
shard again elsewhere: nothing lost, nothing counted twice); a worker without
the implementation is named before anything runs.

Every process the tests start is in its own process group and killed at
teardown, also when a test fails."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

distributed = pytest.importorskip("distributed", reason="needs the dask extra: "
                                  "pip install 'scrubcheck[dask]'")
psutil = pytest.importorskip("psutil")

from scrubcheck.cli import main  # noqa: E402

DASK = [str(Path(sys.executable).with_name("dask"))]
SELECTION = ["--area", "blocks", "--jobs", "1", "--no-progress"]
START_TIMEOUT_S = 60


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Cluster:
    """A scheduler and workers as subprocesses, each in a process group of its own."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.procs: list[subprocess.Popen] = []
        self.address = f"tcp://127.0.0.1:{_free_port()}"
        self.workers: dict[str, subprocess.Popen] = {}

    def _start(self, name: str, argv: list[str]) -> subprocess.Popen:
        log = open(self.folder / f"{name}.log", "wb")  # noqa: SIM115 - closed with the process
        proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, start_new_session=True,
                                cwd=self.folder)
        log.close()
        self.procs.append(proc)
        return proc

    def start(self, nanny: tuple[bool, ...] = (True, False)) -> None:
        port = self.address.rsplit(":", 1)[1]
        self._start("scheduler", [*DASK, "scheduler", "--host", "127.0.0.1", "--port", port,
                                  "--no-dashboard", "--no-show",
                                  # its HTTP routes still listen; on all interfaces by default
                                  "--dashboard-address", "127.0.0.1:0"])
        for index, with_nanny in enumerate(nanny):
            self._start(f"worker{index}", [
                *DASK, "worker", self.address, "--host", "127.0.0.1", "--nworkers", "1",
                "--nthreads", "1", "--no-dashboard", "--dashboard-address", "127.0.0.1:0",
                "--local-directory",
                str(self.folder / f"w{index}"), *([] if with_nanny else ["--no-nanny"])])
        client = self.client()
        try:
            client.wait_for_workers(len(nanny), timeout=START_TIMEOUT_S)
            # address -> pid of the process that runs the tasks (the worker, not its nanny)
            pids = client.run(os.getpid)
        finally:
            client.close()
        self.worker_pids = pids

    def client(self):  # type: ignore[no-untyped-def]
        return distributed.Client(self.address, timeout=START_TIMEOUT_S, set_as_default=False)

    def stop(self) -> None:
        for proc in self.procs:
            if proc.poll() is None:
                try:
                    os.killpg(proc.pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
        deadline = time.monotonic() + 5
        for proc in self.procs:
            try:  # a worker or its nanny that does not stop on SIGTERM in time gets SIGKILL
                proc.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                pass
            try:
                os.killpg(proc.pid, signal.SIGKILL)  # whatever is left of its group
            except (ProcessLookupError, PermissionError):
                pass
            if proc.poll() is None:
                proc.wait(timeout=10)

    def log(self) -> str:
        return "\n".join(f"--- {p.name}\n{p.read_text(errors='replace')[-3000:]}"
                         for p in sorted(self.folder.glob("*.log")))


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    folder = tmp_path_factory.mktemp("dask")
    cluster = Cluster(folder)
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.stop()


def _report(folder: Path) -> dict:
    return json.loads((folder / "report.json").read_text(encoding="utf-8"))


def _verdicts(report: dict) -> list[dict]:
    """Each scenario's result without timings: what a reader compares."""
    return [{k: v for k, v in r.items() if k != "duration_s"} for r in report["results"]]


def test_a_selection_on_the_cluster_equals_a_local_run(cluster, tmp_path, capsys):
    # (the linear-time check on the cluster, in shard 1 only, is in the matrix test below)
    common = ["run", *SELECTION, "--no-linear"]
    code_local = main([*common, "--out", str(tmp_path / "local")])
    code = main([*common, "--dask", cluster.address, "--dask-shards", "3",
                 "--out", str(tmp_path / "dask")])
    out = capsys.readouterr().out
    assert code == code_local == 0, cluster.log()
    assert "in 3 shards on 2 workers" in out
    local, remote = _report(tmp_path / "local"), _report(tmp_path / "dask")
    assert _verdicts(remote) == _verdicts(local)
    assert remote["scrubber_checks"] == local["scrubber_checks"] == []
    assert remote["settings"]["corpus_digest"] == local["settings"]["corpus_digest"]
    workers = {part["report"].split(" on ")[1] for part in remote["settings"]["merged_from"]}
    assert workers <= set(cluster.worker_pids) and workers  # names the worker of each shard


def test_a_worker_without_the_peer_is_named_before_anything_runs(cluster, tmp_path, capsys):
    folder = tmp_path / "absent-peer"
    folder.mkdir()
    (folder / "adapter.py").write_text("raise SystemExit('never started')\n", encoding="utf-8")
    (folder / "peer.toml").write_text(textwrap.dedent("""
        name = "absent-peer"
        title = "A peer no worker has installed"
        kind = "batch scrubber"
        entry = "absent.strip"
        program = "adapter.py"

        [package]
        ecosystem = "pypi"
        name = "scrubcheck-absent-package"
        version = "1.0.0"
    """), encoding="utf-8")
    code = main(["run", "--scrubber", f"peer:{folder / 'peer.toml'}", *SELECTION,
                 "--dask", cluster.address, "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert code == 2
    for address in cluster.worker_pids:
        assert f"worker {address}: peer {folder / 'peer.toml'} cannot be loaded there" in err
    assert "not installed" in err and "scrubcheck peers install" in err
    assert not (tmp_path / "out").exists()


def test_dask_usage_errors(capsys):
    assert main(["run", "--dask", "tcp://127.0.0.1:9", "--shard", "1/2", *SELECTION]) == 2
    assert "drop --shard" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["run", "--dask", "tcp://127.0.0.1:9", "--dask-shards", "0"])
    assert "--dask-shards" in capsys.readouterr().err


def test_matrix_rows_and_shards_spread_over_the_cluster(cluster, tmp_path, capsys):
    from scrubcheck.scrubbers.broken import BROKEN

    common = ["matrix", "--no-peers", "--scrubber", BROKEN["stateless"], "--area", "blocks",
              "--quick", "--jobs", "1", "--no-progress"]
    assert main([*common, "--out", str(tmp_path / "local")]) == 0
    assert main([*common, "--dask", cluster.address, "--dask-shards", "2",
                 "--out", str(tmp_path / "dask")]) == 0
    out = capsys.readouterr().out
    assert "2 implementations × 2 shards = 4 tasks" in out
    local = json.loads((tmp_path / "local" / "matrix.json").read_text(encoding="utf-8"))
    remote = json.loads((tmp_path / "dask" / "matrix.json").read_text(encoding="utf-8"))
    for key in ("verdicts", "totals", "hall_of_bugs", "linear_time"):
        assert [r[key] for r in remote["rows"]] == [r[key] for r in local["rows"]], key



@pytest.mark.peers
def test_a_native_matrix_row_is_judged_natively_on_the_cluster(cluster, tmp_path, capsys):
    """A row the local matrix judges in Node (its manifest's [native] table) is judged so
    on the workers too, shard by shard, and merges into the local row's verdicts."""
    from scrubcheck.peers import find_manifest, read_marker

    if read_marker(find_manifest("ai6-stream").package) is None:
        pytest.skip("peer ai6-stream is not installed (scrubcheck peers install ai6-stream)")
    ids = [arg for i in ("blocks-two-*", "blocks-mid-line", "blocks-back-to-back",
                         "unicode-surrogate-halves-in-separate-deltas") for arg in ("--id", i)]
    common = ["matrix", "--peers", "ai6-stream", *ids, "--quick", "--jobs", "1", "--no-progress"]
    assert main([*common, "--out", str(tmp_path / "local")]) == 0
    assert main([*common, "--dask", cluster.address, "--dask-shards", "3",
                 "--out", str(tmp_path / "dask")]) == 0, cluster.log()
    local = json.loads((tmp_path / "local" / "matrix.json").read_text(encoding="utf-8"))
    remote = json.loads((tmp_path / "dask" / "matrix.json").read_text(encoding="utf-8"))
    assert [r["verdicts"] for r in remote["rows"]] == [r["verdicts"] for r in local["rows"]]
    row = next(r for r in remote["rows"] if r["name"] == "ai6-stream")
    assert any("judged natively in Node" in note for note in row["restrictions"]), row
    report = json.loads((tmp_path / "dask" / "peers" / "ai6-stream" / "report.json")
                        .read_text(encoding="utf-8"))
    assert len(report["settings"]["merged_from"]) == 3
    native = report["settings"]["native"]  # the whole run's record, from three parts
    assert native["over_protocol"] == ["unicode-surrogate-halves-in-separate-deltas"]
    assert native["scenarios"] + 1 == len(report["results"]) > 3

SLOW = textwrap.dedent("""
    import time
    from scrubcheck.scrubbers.reference import ReferenceScrubber

    class Slow(ReferenceScrubber):
        '''The reference, 2 ms slower per stream: shards that last long enough to be
        killed in flight, with the reference's verdicts.'''

        def flush(self, *args, **kwargs):
            time.sleep(0.002)
            return super().flush(*args, **kwargs)
""")


def test_a_killed_worker_loses_nothing_and_counts_nothing_twice(cluster, tmp_path, capsys):
    slow = tmp_path / "slow_scrubber.py"
    slow.write_text(SLOW, encoding="utf-8")
    # the local run to compare with is the reference's: Slow only sleeps (and is not slow
    # to run here); its results name no scrubber, so they must be equal field for field
    common = ["run", *SELECTION, "--no-linear"]
    assert main([*common, "--out", str(tmp_path / "local")]) == 0
    local = _report(tmp_path / "local")
    common = [*common, "--scrubber", f"{slow}:Slow"]

    # the worker without a nanny: killed, it stays dead and the other worker takes over
    victim = next(addr for addr, pid in cluster.worker_pids.items()
                  if pid in {p.pid for p in cluster.procs})
    pid = cluster.worker_pids[victim]
    killed: dict[str, object] = {}

    def kill_when_busy() -> None:
        client = cluster.client()
        try:
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline:
                busy = client.processing().get(victim) or ()
                children = psutil.Process(pid).children(recursive=True)
                if busy and any("scrubcheck.distributed.job" in " ".join(c.cmdline())
                                for c in children):
                    time.sleep(1.0)  # well inside its shard
                    killed["children"] = psutil.Process(pid).children(recursive=True)
                    killed["task"] = list(busy)
                    os.kill(pid, signal.SIGKILL)
                    return
                time.sleep(0.1)
        finally:
            client.close()

    killer = threading.Thread(target=kill_when_busy, daemon=True)
    killer.start()
    started = time.monotonic()
    code = main([*common, "--dask", cluster.address, "--dask-shards", "4",
                 "--out", str(tmp_path / "dask")])
    killer.join(timeout=30)
    capsys.readouterr()
    assert killed.get("task"), "the worker was never seen with a shard in flight:\n" \
        + cluster.log()
    assert code == 0, cluster.log()
    assert time.monotonic() - started < 600
    remote = _report(tmp_path / "dask")
    ids = [r["scenario_id"] for r in remote["results"]]
    assert ids == [r["scenario_id"] for r in local["results"]]  # nothing lost or doubled
    assert len(set(ids)) == len(ids)
    assert _verdicts(remote) == _verdicts(local)
    client = cluster.client()
    try:
        assert victim not in client.scheduler_info()["workers"]  # it really is gone
    finally:
        client.close()
    del cluster.worker_pids[victim]  # (this test runs last: the others need both workers)
    # the killed worker's shard process (and its pool) died with it: no orphans left
    deadline = time.monotonic() + 15
    alive = [c for c in killed["children"] if c.is_running()]
    while alive and time.monotonic() < deadline:
        time.sleep(0.2)
        alive = [c for c in alive if c.is_running() and c.status() != psutil.STATUS_ZOMBIE]
    assert not alive, f"orphans of the killed worker: {alive}"
