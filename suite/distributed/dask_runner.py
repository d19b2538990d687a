"""Runs on a Dask cluster: each Dask task is one shard, run by the ordinary runner.

    client = connect("tcp://scheduler:8786")
    check_workers(client, ["reference"], selection)      # before anything is submitted
    result = run_on_dask(client, "reference", selection, scenarios, settings, shards=8)

Why a subprocess per task. A Dask worker runs tasks in threads of a process that
is itself daemonic under a nanny, and `run_corpus` forks a pool of worker
processes (multiprocessing refuses children of a daemonic process, and forking
a process with a live event loop and threads is unsafe). So the task starts a
fresh `python -m scrubcheck.distributed.job` process, which runs the shard
exactly as `scrubcheck run --shard K/N` would: the same pool, per-scenario
timeouts, crash handling and memory limit, none of the scrubber's imports in the
Dask worker (a scrubber that corrupts its interpreter cannot take the worker
down), and no Dask configuration to change (`distributed.worker.daemon`). The
job process dies with the worker (PR_SET_PDEATHSIG, set in the thread that
waits for it), so when a worker is killed its shard stops too, and Dask runs the
task again on another worker; nothing of the killed attempt reaches the client,
and `merge_shards` refuses a scenario that would arrive twice.

Results travel back as the shard's report.json (a dict) and are merged by
`merge_shards`, which checks that the shards agree on corpus, versions and
settings: a worker with another corpus or another scrubcheck cannot slip in.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import tempfile
import uuid
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from scrubcheck import __version__
from scrubcheck.adapters import AdapterError
from scrubcheck.childprocess import die_with_parent, exit_text
from scrubcheck.corpus.fingerprint import corpus_digest
from scrubcheck.distributed.job import EXIT_UNUSABLE, Selection, ShardJob, settings_to_dict
from scrubcheck.model import Scenario
from scrubcheck.results import RunResult
from scrubcheck.runner.settings import RunSettings
from scrubcheck.spec import SPEC_VERSION
from scrubcheck.vectors.native import merge_runs

if TYPE_CHECKING:  # `distributed` is optional (the dask extra): imported where used
    from distributed import Client, Future

    from scrubcheck.matrix.runs import RowRunner

#: what a job is submitted with and handed back with (None for a run, a row name for a matrix)
K = TypeVar("K")

INSTALL_HINT = "pip install 'scrubcheck[dask]'"
STDERR_TAIL = 2000
PROBE_TIMEOUT_S = 180.0  # loading the corpus and each scrubber or peer on a worker
Say = Callable[[str], None]


class DaskError(Exception):
    """A run on the cluster could not be made (the command's exit 2, with this message)."""


class DaskSetupError(DaskError):
    """The cluster cannot run this (no scheduler, no worker, a worker without the
    scrubber, peer, corpus or scrubcheck version): a usage error, exit 2."""


class ShardUnusable(Exception):
    """The job process could not load the scrubber or the corpus (its exit status 2)."""


class ShardFailed(DaskError):
    """The job process failed in some other way (the harness, not the scrubber)."""


def connect(address: str, timeout_s: float = 30.0) -> Client:
    """A `distributed.Client` on the scheduler at `address`, or DaskSetupError."""
    try:
        from distributed import Client
    except ImportError:
        raise DaskSetupError(f"--dask needs the `distributed` package: {INSTALL_HINT}") from None
    try:
        return Client(address, timeout=timeout_s, set_as_default=False)
    except (OSError, TimeoutError) as exc:
        raise DaskSetupError(f"no Dask scheduler answered at {address}: {exc}") from None


def portable_spec(spec: str) -> str:
    """A spec that names the same file on a worker: a relative path made absolute (the
    worker's working directory is not the driver's). Workers must see that path."""
    prefix, kind_sep, rest = spec.partition(":")
    if prefix in ("stream", "batch", "splitter", "peer") and kind_sep:
        head = prefix + ":"
    else:
        head, rest = "", spec
    location, sep, attr = rest.rpartition(":") if head != "peer:" else (rest, "", "")
    if not location:
        location, sep, attr = rest, "", ""
    if (location.endswith((".py", ".toml")) or "/" in location) and Path(location).exists():
        location = str(Path(location).resolve())
    return head + location + sep + attr


def total_threads(client: Client) -> int:
    workers = client.scheduler_info().get("workers", {})
    return sum(int(w.get("nthreads", 1)) for w in workers.values())


# ------------------------------------------------------------------ the up-front check
def check_workers(client: Client, specs: list[str], selection: Selection,
                  digest: str) -> list[str]:
    """Ask every worker, before anything runs, whether it has scrubcheck (this version,
    this SPEC), the corpus of this selection, and every scrubber and peer in `specs`.
    Returns the workers' addresses; raises DaskSetupError naming each worker's problem."""
    ask = json.dumps({"specs": specs, "selection": asdict(selection)})
    answers = client.run(probe_worker, ask, on_error="return")
    if not answers:
        raise DaskSetupError("the Dask scheduler has no workers: start some with "
                             "`dask worker SCHEDULER_ADDRESS --nthreads 1`")
    problems = []
    for worker, answer in sorted(answers.items()):
        if isinstance(answer, BaseException):
            problems.append(f"worker {worker}: cannot run scrubcheck there "
                            f"({type(answer).__name__}: {answer}); install scrubcheck "
                            f"{__version__} with {INSTALL_HINT} on it")
            continue
        if (answer.get("scrubcheck"), answer.get("spec")) != (__version__, SPEC_VERSION):
            problems.append(f"worker {worker}: scrubcheck {answer.get('scrubcheck')} (SPEC "
                            f"{answer.get('spec')}), this machine {__version__} (SPEC "
                            f"{SPEC_VERSION}); install the same version everywhere")
        for spec, problem in sorted((answer.get("problems") or {}).items()):
            if problem:
                what = (f"peer {spec.removeprefix('peer:')}" if spec.startswith("peer:")
                        else f"scrubber {spec}")
                problems.append(f"worker {worker}: {what} cannot be loaded there: {problem}")
        if answer.get("corpus_digest") != digest:
            problems.append(f"worker {worker}: its corpus for this selection differs "
                            f"(digest {answer.get('corpus_digest')}, here {digest})"
                            + (f": {answer['corpus_problem']}" if answer.get("corpus_problem")
                               else "; install the same scrubcheck and corpus files"))
    if problems:
        raise DaskSetupError("workers not ready (see docs/distributed.md):\n  "
                             + "\n  ".join(problems))
    return sorted(answers)


async def probe_worker(ask: str) -> dict:
    """Run on each worker by `client.run`: the probe in a job process, off the event loop."""
    return await asyncio.to_thread(_probe_in_process, ask)


def _probe_in_process(ask: str) -> dict:
    with tempfile.TemporaryDirectory(prefix="scrubcheck-probe-") as tmp:
        asked, answer = Path(tmp) / "ask.json", Path(tmp) / "answer.json"
        asked.write_text(ask, encoding="utf-8")
        code, err = _job_process(["--probe", str(asked), str(answer)], tmp,
                                 timeout_s=PROBE_TIMEOUT_S)
        if code != 0:
            raise ShardFailed(f"the probe process ended with {exit_text(code)}: {err}")
        return json.loads(answer.read_text(encoding="utf-8"))


# ------------------------------------------------------------------ the task
def run_shard_task(job: str) -> dict:
    """The Dask task: one shard in a fresh job process on this worker; its report.json."""
    with tempfile.TemporaryDirectory(prefix="scrubcheck-shard-") as tmp:
        job_path, report = Path(tmp) / "job.json", Path(tmp) / "report.json"
        job_path.write_text(job, encoding="utf-8")
        workdir = ShardJob.from_json(job).workdir
        code, err = _job_process([str(job_path), str(report)], tmp,
                                 workdir if workdir and os.path.isdir(workdir) else tmp)
        if code == EXIT_UNUSABLE:
            raise ShardUnusable(f"on {_worker_name()}: {err}")
        if code != 0 or not report.exists():
            raise ShardFailed(f"the shard's process on {_worker_name()} ended with "
                              f"{exit_text(code)}: {err}")
        return {"report": json.loads(report.read_text(encoding="utf-8")),
                "worker": _worker_name()}


def _job_process(args: list[str], folder: str, cwd: str | None = None,
                 timeout_s: float | None = None) -> tuple[int, str]:
    """Run `python -m scrubcheck.distributed.job ARGS` in `cwd` (default `folder`) to its
    end; (status, stderr tail). Its stdout and stderr go to files in `folder`: a chatty
    scrubber cannot fill a pipe and block."""
    out_path, err_path = Path(folder) / "stdout.txt", Path(folder) / "stderr.txt"
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        proc = subprocess.Popen(
            [sys.executable, "-m", "scrubcheck.distributed.job", *args],
            stdin=subprocess.DEVNULL, stdout=out, stderr=err, cwd=cwd or folder,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
            preexec_fn=die_with_parent if sys.platform.startswith("linux") else None,
        )
        try:
            code = proc.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:  # e.g. a scrubber module that hangs at import
            proc.kill()
            proc.wait()
            return proc.returncode, f"no answer within {timeout_s:g} s; killed"
    tail = err_path.read_bytes()[-STDERR_TAIL:].decode("utf-8", "replace").strip()
    return code, tail or "(nothing on stderr)"


def _worker_name() -> str:
    try:
        from distributed import get_worker

        return get_worker().address
    except (ImportError, ValueError):
        return f"pid {os.getpid()}"


# ------------------------------------------------------------------ the driver
def shard_jobs(spec: str, selection: Selection, settings: RunSettings,
               count: int, *, matrix_row: bool = False) -> list[ShardJob]:
    """The N jobs of one run; `matrix_row`: judged as the matrix judges the row (natively
    where its manifest offers it, as a local matrix run does), not as `run` does."""
    base = settings_to_dict(settings)
    return [ShardJob(portable_spec(spec), base, selection, f"{k}/{count}", os.getcwd(),
                     matrix_row=matrix_row)
            for k in range(1, count + 1)]


def run_jobs(client: Client, jobs: Sequence[tuple[K, ShardJob]],
             say: Say) -> Iterator[tuple[K, ShardJob, dict | BaseException]]:
    """Submit every job; yield (key, job, the task's answer or its exception) as each
    finishes. Ctrl-C (or any error here) cancels what is still queued or running."""
    from distributed import as_completed

    token = uuid.uuid4().hex[:8]
    futures: dict[Future, tuple[K, ShardJob]] = {}
    for key, job in jobs:
        name = f"scrubcheck-shard-{token}-{len(futures)}-{(job.shard or '').replace('/', 'of')}"
        future = client.submit(run_shard_task, job.to_json(), key=name, pure=False)
        futures[future] = (key, job)
    try:
        for future in as_completed(list(futures), loop=client.loop):
            key, job = futures[future]
            try:
                answer = future.result()
            except Exception as exc:  # noqa: BLE001 - the task's own failure, reported
                yield key, job, exc
                continue
            report = answer["report"]
            say(f"  shard {job.shard} of {job.spec} done on {answer['worker']}: "
                f"{len(report.get('results', []))} scenarios in "
                f"{float(report.get('duration_s', 0)):.0f} s")
            yield key, job, answer
    except BaseException:
        client.cancel(list(futures))
        raise


def merge_answers(spec: str, answers: list[tuple[ShardJob, dict]], digest: str) -> RunResult:
    """The shards' reports as one run of `spec` (merge_runs checks they are the parts
    of one run), which must be of the driver's own selection."""
    runs = []
    for job, answer in answers:
        fields = {k: v for k, v in answer["report"].items()
                  if k not in ("$schema", "format_version")}
        runs.append((f"shard {job.shard} on {answer['worker']}", RunResult.from_dict(fields)))
    merged = merge_runs(runs)
    if merged.settings.get("corpus_digest") != digest:
        raise DaskSetupError(f"{spec}: the workers judged another selection (corpus digest "
                             f"{merged.settings.get('corpus_digest')}, here {digest})")
    merged.scrubber = spec  # as the user wrote it (the jobs had it made portable)
    return merged


def run_on_dask(client: Client, spec: str, selection: Selection,
                scenarios: list[Scenario], settings: RunSettings, shards: int,
                say: Say = print) -> RunResult:
    """One run of `spec` over `scenarios` as `shards` Dask tasks, merged. Raises
    AdapterError when the workers cannot load the scrubber, ShardFailed on a harness
    failure of a shard (after Dask's own retries of tasks whose worker died)."""
    jobs = shard_jobs(spec, selection, settings, shards)
    answers = []
    for _, job, outcome in run_jobs(client, [(None, job) for job in jobs], say):
        if isinstance(outcome, ShardUnusable):
            raise AdapterError(str(outcome))
        if isinstance(outcome, BaseException):
            raise ShardFailed(f"shard {job.shard}: {outcome}")
        answers.append((job, outcome))
    return merge_answers(spec, answers, corpus_digest(scenarios))


def dask_rows(client: Client, selection: Selection, scenarios: list[Scenario],
              settings: RunSettings, shards: int | None, say: Say = print) -> RowRunner:
    """A matrix RowRunner: every worker checked for every row's implementation, then every
    row × every shard submitted at once, so the cluster spreads implementations and shards
    over its workers; a row is yielded (merged) as soon as its last shard is back."""
    from scrubcheck.matrix.rows import Row
    from scrubcheck.matrix.runs import row_settings

    digest = corpus_digest(scenarios)

    def run_rows(rows: list[Row]) -> Iterable[tuple[Row, RunResult | AdapterError]]:
        if not rows:
            return
        check_workers(client, [portable_spec(row.spec) for row in rows], selection, digest)
        count = shards or default_shards(client, len(scenarios))
        jobs = [(row.name, job) for row in rows
                for job in shard_jobs(row.spec, selection, row_settings(row, settings), count,
                                      matrix_row=True)]
        by_name = {row.name: row for row in rows}
        say(f"dask: {len(rows)} implementations × {count} shards = {len(jobs)} tasks")
        arrived: dict[str, list[tuple[ShardJob, dict]]] = {row.name: [] for row in rows}
        failed: set[str] = set()
        for name, job, outcome in run_jobs(client, jobs, say):
            row = by_name[str(name)]
            if row.name in failed:
                continue
            if isinstance(outcome, BaseException):
                failed.add(row.name)
                yield row, AdapterError(f"shard {job.shard}: {outcome}")
                continue
            arrived[row.name].append((job, outcome))
            if len(arrived[row.name]) == count:
                yield row, merge_answers(row.spec, arrived.pop(row.name), digest)

    return run_rows


def default_shards(client: Client, scenarios: int) -> int:
    """Two shards per worker thread (so a slow shard or a lost worker costs little),
    never more shards than scenarios."""
    return max(1, min(scenarios, 2 * max(1, total_threads(client))))


def dask_run(address: str, shards: int | None, spec: str, selection: Selection,
             scenarios: list[Scenario], settings: RunSettings, say: Say = print) -> RunResult:
    """`run --dask`: connect, check every worker, run the shards, merge; the client closed
    however it ends. Raises DaskSetupError, AdapterError or ShardFailed."""
    client = connect(address)
    try:
        check_workers(client, [portable_spec(spec)], selection, corpus_digest(scenarios))
        count = shards or default_shards(client, len(scenarios))
        say(f"dask: {len(scenarios)} scenarios in {count} shards on "
            f"{len(client.scheduler_info().get('workers', {}))} workers at {address}")
        return run_on_dask(client, spec, selection, scenarios, settings, count, say)
    finally:
        client.close()
