"""A pool of forked worker processes that survives the scrubbers it runs.

multiprocessing.Pool cannot kill one task, so this is a small pool of its own:
each worker runs one task at a time and reports, before each stream, which
stream it is on. A worker that overruns its task's timeout is killed and
replaced (the task is TIMEOUT, naming the stream that hung); one that dies
(a segfault, `os._exit`) is replaced too (the task is ERROR). Every other task
goes on. Results come back through `on_result` in completion order, keyed by
the task's index.
"""

from __future__ import annotations

import multiprocessing
import signal
import time
import traceback
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait

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


Progress = Callable[[str], None]
Handler = Callable[[Task, Progress], ScenarioResult]


def _worker_main(conn: Connection, make_handler: Callable[[], Handler]) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C
    handler = make_handler()
    while True:
        task = conn.recv()
        if task is None:
            return
        try:
            result: object = handler(task, lambda label: conn.send(("at", label)))
        except BaseException:
            result = traceback.format_exc()
        conn.send(("done", result))


@dataclass
class _Worker:
    process: multiprocessing.process.BaseProcess
    conn: Connection
    task: Task | None = None
    started: float = 0.0
    label: str | None = None


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
        process = self.context.Process(
            target=_worker_main, args=(child, self.make_handler), daemon=True
        )
        process.start()
        child.close()
        return _Worker(process, parent)

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
                    try:
                        worker.conn.send(task)
                    except (BrokenPipeError, OSError):  # died while idle: replace, retry
                        self._retire(worker, kill=True)
                        self.workers.append(self._spawn())
                        pending.appendleft(task)
                        continue
                    worker.task = task
                    worker.started, worker.label = time.monotonic(), None
            busy = [w for w in self.workers if w.task is not None]
            now = time.monotonic()
            wait_s = min(w.started + w.task.timeout_s - now for w in busy)
            ready = wait([w.conn for w in busy], timeout=max(0.0, wait_s))
            for worker in busy:
                if worker.conn in ready:
                    self._receive(worker, on_result, on_lost)
            now = time.monotonic()
            for worker in [w for w in self.workers if w.task is not None]:
                if now - worker.started > worker.task.timeout_s:
                    task, label = worker.task, worker.label
                    self._retire(worker, kill=True)
                    self.workers.append(self._spawn())
                    on_lost(task, Lost("timeout", label,
                                       f"no result within {task.timeout_s:g} s; the worker was "
                                       "killed and replaced"))

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
                if kind == "at":
                    worker.label = payload
                    continue
                worker.task = None
                on_result(task, payload)
                return
        except (EOFError, OSError):
            label = worker.label
            self._retire(worker, kill=True)
            self.workers.append(self._spawn())
            on_lost(task, Lost("crash", label,
                               f"the worker process died ({_exit_text(worker.process.exitcode)})"))

    def close(self) -> None:
        for worker in list(self.workers):
            try:
                if worker.task is None:
                    worker.conn.send(None)
            except (BrokenPipeError, OSError):
                pass
            worker.process.join(timeout=1)
            self._retire(worker, kill=True)


def _exit_text(code: int | None) -> str:
    if code is None:
        return "exit status unknown"
    if code < 0:
        try:
            return f"killed by signal {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit code {code}"
