"""A pool of forked worker processes that survives the scrubbers it runs.

multiprocessing.Pool cannot kill one task, so this is a small pool of its own:
each worker runs one task at a time and notes, before each stream, which
stream it is on (in a small shared buffer that the parent reads only when the
task is lost: a pipe message per stream cost more than the checks). A worker
that overruns its task's timeout is killed and replaced (the task is TIMEOUT,
naming the stream that hung); one that dies (a segfault, `os._exit`) is
replaced too (the task is ERROR). Every other task goes on. Results come back
through `on_result` in completion order, keyed by the task's index.

The timeout counts the worker's CPU time (from /proc where there is one), so
that a busy machine does not turn a slow scenario into a TIMEOUT and results
stay reproducible; a wall-clock backstop of WALL_FACTOR times the timeout
catches a scrubber that blocks without computing.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import time
import traceback
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from typing import Any

from scrubcheck.model import Scenario
from scrubcheck.results import ScenarioResult


@dataclass(frozen=True)
class Task:
    index: int
    scenario: Scenario | None  # None: the once-per-run linear-time check
    timeout_s: float


@dataclass
class Lost:
    """Why a task produced no result: 'timeout' or 'crash', and what it was doing."""

    kind: str
    label: str | None
    detail: str


WALL_FACTOR = 4.0
POLL_S = 0.2
LABEL_BYTES = 512  # the stream a worker is on (a chunking name), UTF-8, NUL-terminated
_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100

Progress = Callable[[str], None]


def cpu_seconds(pid: int) -> float | None:
    """User + system CPU time of a process, or None where /proc is not available."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / _TICKS
    except (OSError, IndexError, ValueError):
        return None
Handler = Callable[[Task, Progress], ScenarioResult]


def _worker_main(conn: Connection, make_handler: Callable[[], Handler], label: Any) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C
    handler = make_handler()

    def note(text: str) -> None:
        label.value = text.encode("utf-8", "replace")[: LABEL_BYTES - 1]

    while True:
        task = conn.recv()
        if task is None:
            return
        label.value = b""
        try:
            result: object = handler(task, note)
        except BaseException:
            result = traceback.format_exc()
        conn.send(("done", result))


@dataclass
class _Worker:
    process: multiprocessing.process.BaseProcess
    conn: Connection
    shared_label: Any = None  # a ctypes char array (LABEL_BYTES) the worker writes
    task: Task | None = None
    started: float = 0.0
    cpu_started: float | None = None

    @property
    def label(self) -> str | None:
        """The stream the worker last said it was on, in its current task."""
        raw = self.shared_label.value if self.shared_label is not None else b""
        return raw.decode("utf-8", "replace") or None

    def overrun(self, now: float) -> str | None:
        """Why the current task is over its timeout, or None while it is not."""
        assert self.task is not None
        wall = now - self.started
        limit = self.task.timeout_s
        cpu = cpu_seconds(self.process.pid) if self.cpu_started is not None else None
        if cpu is not None:
            used = cpu - self.cpu_started
            if used > limit:
                return f"used more than {limit:g} s of CPU time ({wall:.1f} s wall)"
            if wall > limit * WALL_FACTOR:
                return f"no result within {wall:.0f} s wall time ({used:.1f} s CPU)"
            return None
        return f"no result within {limit:g} s" if wall > limit else None


class WorkerPool:
    """`jobs` forked workers; `make_handler` runs once in each to build its task handler."""

    def __init__(self, jobs: int, make_handler: Callable[[], Handler]) -> None:
        self.jobs = max(1, jobs)
        self.make_handler = make_handler
        self.context = multiprocessing.get_context("fork")
        self.workers: list[_Worker] = []

    def __enter__(self) -> WorkerPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _spawn(self) -> _Worker:
        parent, child = self.context.Pipe()
        label = self.context.RawArray("c", LABEL_BYTES)
        process = self.context.Process(
            target=_worker_main, args=(child, self.make_handler, label), daemon=True
        )
        process.start()
        child.close()
        return _Worker(process, parent, label)

    def _retire(self, worker: _Worker, kill: bool) -> None:
        if kill and worker.process.is_alive():
            worker.process.kill()
        worker.process.join(timeout=5)
        worker.conn.close()
        self.workers.remove(worker)

    def run(
        self,
        tasks: list[Task],
        on_result: Callable[[Task, ScenarioResult | str], None],
        on_lost: Callable[[Task, Lost], None],
    ) -> None:
        """Run every task; `on_result` gets a result (or a harness traceback string)."""
        pending = deque(tasks)
        while len(self.workers) < min(self.jobs, len(tasks)):
            self.workers.append(self._spawn())
        while pending or any(w.task for w in self.workers):
            for worker in list(self.workers):
                if worker.task is None and pending:
                    task = pending.popleft()
                    if worker.shared_label is not None:
                        worker.shared_label.value = b""  # the worker writes only while busy
                    try:
                        worker.conn.send(task)
                    except (BrokenPipeError, OSError):  # died while idle: replace, retry
                        self._retire(worker, kill=True)
                        self.workers.append(self._spawn())
                        pending.appendleft(task)
                        continue
                    worker.task = task
                    worker.started = time.monotonic()
                    worker.cpu_started = cpu_seconds(worker.process.pid)
            busy = [w for w in self.workers if w.task is not None]
            ready = wait([w.conn for w in busy], timeout=POLL_S)
            for worker in busy:
                if worker.conn in ready:
                    self._receive(worker, on_result, on_lost)
            now = time.monotonic()
            for worker in [w for w in self.workers if w.task is not None]:
                why = worker.overrun(now)
                if why:
                    task, label = worker.task, worker.label
                    self._retire(worker, kill=True)
                    self.workers.append(self._spawn())
                    on_lost(task, Lost("timeout", label,
                                       f"{why}; the worker was killed and replaced"))

    def _receive(
        self,
        worker: _Worker,
        on_result: Callable[[Task, ScenarioResult | str], None],
        on_lost: Callable[[Task, Lost], None],
    ) -> None:
        task = worker.task
        assert task is not None
        try:
            while worker.conn.poll():
                kind, payload = worker.conn.recv()
                if kind != "done":
                    continue
                worker.task = None
                on_result(task, payload)
                return
        except (EOFError, OSError):
            label = worker.label
            self._retire(worker, kill=True)
            self.workers.append(self._spawn())
            on_lost(task, Lost("crash", label,
                               f"the worker process died ({exit_text(worker.process.exitcode)})"))

    def close(self) -> None:
        for worker in list(self.workers):
            try:
                if worker.task is None:
                    worker.conn.send(None)
            except (BrokenPipeError, OSError):
                pass
            worker.process.join(timeout=1)
            self._retire(worker, kill=True)


def exit_text(code: int | None) -> str:
    """A child process's exit status in words (signals by name)."""
    if code is None:
        return "exit status unknown"
    if code < 0:
        try:
            return f"killed by signal {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit code {code}"
