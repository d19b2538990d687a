"""A pool of forked worker processes that survives the scrubbers it runs.

multiprocessing.Pool cannot kill one task, so this is a small pool of its own:
each worker runs one task at a time and notes, before each stream, which
stream it is on (in a small shared buffer that the parent reads only when the
task is lost: a pipe message per stream cost more than the checks). A worker
that overruns its task's timeout is killed and replaced (the task is TIMEOUT,
naming the stream that hung); one that dies (a segfault, `os._exit`) is
replaced too (the task is ERROR). Every other task goes on. Results come back
through `on_result` in completion order, keyed by the task's index.

The timeout is wall-clock time, the one budget a user can plan with: a
scrubber blocked on a lock or a socket uses no CPU and must cost no more than
one that spins. The CPU time the worker used (from /proc where there is one)
is reported beside it, which tells a hang from a slow computation.

Each worker's stdout and stderr (file descriptors 1 and 2, so writes from C
code count too) are a pipe the parent reads into a bounded per-task capture
(`capture.OutputCapture`), and its stdin is /dev/null: an in-process scrubber
never writes to scrubcheck's console or waits on its terminal. A worker may
run under a memory limit (RLIMIT_DATA, set in the forked worker only).
"""

from __future__ import annotations

import faulthandler
import multiprocessing
import os
import resource
import signal
import sys
import time
import traceback
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from typing import Any, Generic, Self, TypeVar

from scrubcheck.childprocess import die_with_parent, exit_text
from scrubcheck.model import Scenario
from scrubcheck.option_names import COMMAND_LINE, OptionNames
from scrubcheck.results import Outcome, ScenarioResult
from scrubcheck.runner.capture import OutputCapture
from scrubcheck.runner.settings import format_size


@dataclass(frozen=True)
class Task:
    index: int
    scenario: Scenario | None  # None: the once-per-run linear-time check
    timeout_s: float  # wall-clock seconds before the worker is killed


@dataclass
class Lost:
    """Why a task produced no result: 'timeout' or 'crash', and what it was doing."""

    kind: str
    label: str | None
    detail: str
    output: str | None = None  # what the worker wrote to stdout/stderr during the task
    cpu_s: float | None = None  # CPU seconds the worker used on the task, where known


POLL_S = 0.2
LABEL_BYTES = 512  # the stream a worker is on (a chunking name), UTF-8, NUL-terminated
READ_BYTES = 65536
DRAIN_LIMIT = 8 * 1024 * 1024  # bytes read from one worker per pass, so a flood cannot starve
_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100

Progress = Callable[[str], None]


def cpu_seconds(pid: int | None) -> float | None:
    """User + system CPU time of a process, or None where /proc is not available (or the
    process has not started: no pid)."""
    if pid is None:
        return None
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / _TICKS
    except (OSError, IndexError, ValueError):
        return None


#: what a worker's handler returns for a task: a ScenarioResult for a run, any picklable
#: answer for other uses of the pool (the trial load of `preflight`)
R = TypeVar("R")
Handler = Callable[[Task, Progress], R]


def _isolate_io(out_fd: int) -> None:
    """In the worker: stdin from /dev/null, stdout and stderr into the capture pipe."""
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    os.dup2(out_fd, 1)
    os.dup2(out_fd, 2)
    os.close(out_fd)
    # Fresh objects on the new descriptors: the inherited ones may be a test runner's
    # in-memory capture. Line-buffered, so a crash loses at most one line.
    sys.stdout = open(1, "w", encoding="utf-8", errors="backslashreplace",  # noqa: SIM115
                      buffering=1, closefd=False)
    sys.stderr = open(2, "w", encoding="utf-8", errors="backslashreplace",  # noqa: SIM115
                      buffering=1, closefd=False)
    # A fault handler inherited from the parent (pytest enables one, as does
    # PYTHONFAULTHANDLER) writes to its own copy of the parent's stderr: point it at
    # the pipe, so a segfault's traceback is part of the crashed task's output.
    if faulthandler.is_enabled():
        faulthandler.enable(file=sys.stderr)


def flush_io() -> None:
    """Push what the task wrote into the pipe before its result is sent (C stdio too)."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:
            pass
    try:
        import ctypes

        ctypes.CDLL(None).fflush(None)
    except Exception:
        pass


def limit_memory(limit: int) -> None:
    """Cap this process's data segment (heap and private mappings) at `limit` bytes.

    RLIMIT_DATA rather than RLIMIT_AS: it counts what a process allocates, not the
    address space a runtime reserves without using (thread arenas, a JIT's heap cage).
    """
    which = getattr(resource, "RLIMIT_DATA", resource.RLIMIT_AS)
    _, hard = resource.getrlimit(which)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(which, (limit, limit))


def isolate_worker(out_fd: int, memory_limit: int | None) -> None:
    """Make a forked process a worker, before it runs scrubber code: Ctrl-C left to the
    parent, killed with it, stdio into the capture pipe `out_fd`, the memory limit.
    (Also the setup of `scrubcheck hunt`'s and `fuzz`'s sandbox process.)"""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C
    die_with_parent()
    _isolate_io(out_fd)
    if memory_limit:
        limit_memory(memory_limit)


def _worker_main(
    conn: Connection, make_handler: Callable[[], Handler[object]], label: Any, out_fd: int,
    memory_limit: int | None,
) -> None:
    isolate_worker(out_fd, memory_limit)
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
        flush_io()
        conn.send(("done", result))


@dataclass
class _Worker:
    process: multiprocessing.process.BaseProcess
    conn: Connection
    shared_label: Any = None  # a ctypes char array (LABEL_BYTES) the worker writes
    out_fd: int | None = None  # read end of the worker's stdout/stderr pipe (non-blocking)
    capture: OutputCapture = field(default_factory=OutputCapture)
    task: Task | None = None
    started: float = 0.0
    cpu_started: float | None = None

    @property
    def label(self) -> str | None:
        """The stream the worker last said it was on, in its current task."""
        raw = self.shared_label.value if self.shared_label is not None else b""
        return raw.decode("utf-8", "replace") or None

    def cpu_used(self) -> float | None:
        """CPU seconds the worker spent on its current task, where /proc tells."""
        now = cpu_seconds(self.process.pid)
        if now is None or self.cpu_started is None:
            return None
        return max(0.0, now - self.cpu_started)

    def overrun(self, now: float) -> str | None:
        """Why the current task is over its wall-clock timeout, or None while it is not."""
        assert self.task is not None
        limit = self.task.timeout_s
        if now - self.started <= limit:
            return None
        cpu = self.cpu_used()
        used = f"{cpu:.1f} s of CPU time used" if cpu is not None else "CPU time unknown"
        return f"no result within {limit:g} s wall time ({used})"

    def drain(self, limit: int = DRAIN_LIMIT) -> None:
        """Read what the worker wrote so far (at most `limit` bytes) into its capture."""
        read = 0
        while self.out_fd is not None and read < limit:
            try:
                data = os.read(self.out_fd, READ_BYTES)
            except BlockingIOError:
                return
            except OSError:
                data = b""
            if not data:  # every writer is gone: stop watching the pipe
                os.close(self.out_fd)
                self.out_fd = None
                return
            self.capture.feed(data)
            read += len(data)

    def take_output(self) -> str | None:
        """The current task's output, and a fresh capture for the next one."""
        text = self.capture.text()
        self.capture = OutputCapture()
        return text


class WorkerPool(Generic[R]):
    """`jobs` forked workers; `make_handler` runs once in each to build its task handler.

    `memory_limit` (bytes) caps each worker's memory; a task that hits it is an
    ERROR naming the limit, and the option that sets it as `options` spells it.
    """

    def __init__(
        self, jobs: int, make_handler: Callable[[], Handler[R]], *,
        memory_limit: int | None = None,
        options: OptionNames = COMMAND_LINE,
    ) -> None:
        self.jobs = max(1, jobs)
        self.make_handler = make_handler
        self.memory_limit = memory_limit
        self.options = options
        self.context = multiprocessing.get_context("fork")
        self.workers: list[_Worker] = []

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _spawn(self) -> _Worker:
        parent, child = self.context.Pipe()
        label = self.context.RawArray("c", LABEL_BYTES)
        out_read, out_write = os.pipe()
        process = self.context.Process(
            target=_worker_main,
            args=(child, self.make_handler, label, out_write, self.memory_limit), daemon=True,
        )
        try:
            process.start()
        finally:
            os.close(out_write)
            child.close()
        os.set_blocking(out_read, False)
        return _Worker(process, parent, label, out_read)

    def _retire(self, worker: _Worker, kill: bool) -> None:
        if kill and worker.process.is_alive():
            worker.process.kill()
        worker.process.join(timeout=5)
        worker.conn.close()
        if worker.out_fd is not None:
            os.close(worker.out_fd)
            worker.out_fd = None
        self.workers.remove(worker)

    def _replace(self, worker: _Worker) -> None:
        self._retire(worker, kill=True)
        self.workers.append(self._spawn())

    def run(
        self,
        tasks: list[Task],
        on_result: Callable[[Task, R | str], None],
        on_lost: Callable[[Task, Lost], None],
        *,
        on_tick: Callable[[], None] | None = None,
    ) -> None:
        """Run every task; `on_result` gets a result (or a harness traceback string).

        A ScenarioResult gets what the worker wrote during the task in
        `captured_output`. `on_tick`, if given, is called about every POLL_S seconds.
        """
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
                        self._replace(worker)
                        pending.appendleft(task)
                        continue
                    worker.task = task
                    worker.started = time.monotonic()
                    worker.cpu_started = cpu_seconds(worker.process.pid)
            busy = [w for w in self.workers if w.task is not None]
            pipes = [w.out_fd for w in self.workers if w.out_fd is not None]
            ready = wait([*(w.conn for w in busy), *pipes], timeout=POLL_S)
            for worker in list(self.workers):
                if worker.out_fd is not None and worker.out_fd in ready:
                    worker.drain()
            for worker in busy:
                if worker.conn in ready:
                    self._receive(worker, on_result, on_lost)
            now = time.monotonic()
            for worker, task in [(w, w.task) for w in self.workers if w.task is not None]:
                why = worker.overrun(now)
                if why:
                    label, cpu = worker.label, worker.cpu_used()
                    worker.process.kill()
                    worker.process.join(timeout=5)
                    worker.drain()
                    output = worker.take_output()
                    self._replace(worker)
                    on_lost(task, Lost("timeout", label, why, output, cpu))
            if on_tick is not None:
                on_tick()

    def _receive(
        self,
        worker: _Worker,
        on_result: Callable[[Task, R | str], None],
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
                worker.drain()  # the worker flushed before sending: all of it is in the pipe
                output = worker.take_output()
                if hasattr(payload, "captured_output"):
                    payload.captured_output = output
                on_result(task, self._name_memory_limit(payload))
                return
        except (EOFError, OSError):
            label, cpu = worker.label, worker.cpu_used()
            worker.process.join(timeout=5)
            worker.drain()
            output = worker.take_output()
            code = worker.process.exitcode
            self._replace(worker)
            detail = f"the worker process died ({exit_text(code)})"
            if self.memory_limit:
                detail += (f"; it ran under a memory limit of {format_size(self.memory_limit)} "
                           f"({self.options.memory_limit}), which an allocation may have hit")
            on_lost(task, Lost("crash", label, detail, output, cpu))

    def _name_memory_limit(self, payload: Any) -> Any:
        if not self.memory_limit:
            return payload
        if isinstance(payload, str):
            return payload + memory_note(self.memory_limit, self.options) \
                if "MemoryError" in payload else payload
        if isinstance(payload, ScenarioResult):
            name_memory_limit(payload, self.memory_limit, self.options)
        return payload

    def close(self) -> None:
        """Stop every worker: idle ones are asked to leave, busy ones are killed at once."""
        for worker in list(self.workers):
            if worker.task is None:
                try:
                    worker.conn.send(None)
                except (BrokenPipeError, OSError):
                    pass
                worker.process.join(timeout=1)
            self._retire(worker, kill=True)


def memory_note(limit: int, options: OptionNames = COMMAND_LINE) -> str:
    return (f" (the worker's memory limit of {format_size(limit)} was reached: "
            f"{options.memory_limit})")


def name_memory_limit(
    result: ScenarioResult, limit: int | None, options: OptionNames = COMMAND_LINE
) -> None:
    """A MemoryError under a memory limit says which limit it hit."""
    if (limit and result.outcome is Outcome.ERROR and "MemoryError" in (result.reason or "")
            and options.memory_limit not in (result.reason or "")):
        result.reason = (result.reason or "") + memory_note(limit, options)


