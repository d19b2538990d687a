"""Where hunt and fuzz run the scrubber: one forked child process, one case at a time.

`hunt` must survive what it hunts: a segfault or `os._exit` in the scrubber, a
sleep or a read on a socket that no signal interrupts, output flooding the
console, runaway memory. It must also stay fast: thousands of cases a minute.
Three shapes were weighed:

- each case in a fresh fork: isolation per case, but a fork, exit and wait of
  this process cost 1 ms of CPU and 9 ms of wall time on a loaded two-core
  machine, more than a case of the reference (2-8 ms): a half or less of the
  throughput;
- the whole Hypothesis engine in a child that the parent watches: no cost per
  case, but a crash takes the engine's state with it, so the crash could be
  reported and never shrunk, and findings, deadline and database would all
  have to travel back;
- (chosen) Hypothesis stays in the parent and sends each case to one
  long-lived forked child over a pipe (about 1 KB pickled each way). The cost
  is two context switches per case: measured on 2,000 seeded cases of the
  reference on a loaded two-core machine, 17-31% more CPU than in-process and
  still 7,000-20,000 cases a minute. The parent waits for the answer with a
  wall-clock limit; a child that overruns it is killed (a `timeout` finding),
  one that dies is noticed at once (a `crash` finding, with its exit status),
  and the next case gets a fresh fork. Hypothesis holds the case either way, so
  the finding carries it and becomes a minimal scenario like any other (a crash
  is even shrunk, at the cost of one fork per try).

The child's stdout and stderr go to a pipe that the parent drains while it
waits, keeping only the tail of each request's output: nothing the scrubber
prints reaches the console or a disk, however much it prints, and the tail is
quoted in a crash or timeout finding. With a memory limit the child's
allocations are capped, so runaway allocation is a MemoryError inside the
scrubber (an R-ROBUST-1 exception, naming the limit) instead of a machine out
of memory. The child is set up like the runner's workers (`isolate_worker`).
"""

from __future__ import annotations

import multiprocessing
import os
import select
import sys
import traceback
from collections.abc import Iterable
from dataclasses import dataclass, replace
from multiprocessing.connection import Connection

from scrubcheck.adapters import Adapter
from scrubcheck.checks.linear import LinearMeasurement, measure_linearity
from scrubcheck.checks.names import Check
from scrubcheck.childprocess import exit_text
from scrubcheck.deadline import Deadline
from scrubcheck.hunt.case import Case
from scrubcheck.hunt.properties import first_violation
from scrubcheck.hunt.violation import Violation
from scrubcheck.option_names import OptionNames
from scrubcheck.runner import preflight
from scrubcheck.runner.capture import OutputCapture
from scrubcheck.runner.pool import flush_io, isolate_worker, memory_note

#: How `hunt` and `fuzz` spell the options their findings may advise.
OPTIONS = OptionNames(skip_linear="--no-linear")
OUTPUT_TAIL = 160  # characters of the scrubber's last output quoted in a finding
_KILL_WAIT_S = 5.0


def load_scrubber(spec: str, timeout_s: float, memory_limit: int | None) -> Adapter:
    """A spec for the sandbox, loaded in this process only once a child survived loading
    it (`runner.preflight`), its messages in hunt's and fuzz's option names."""
    return preflight.load_scrubber(spec, timeout_s=timeout_s, memory_limit=memory_limit,
                                   options=OPTIONS)


class HarnessError(Exception):
    """The harness itself failed in the child (a bug of scrubcheck, not the scrubber's)."""


@dataclass(frozen=True)
class Lost:
    """A request that got no answer: the child overran the time limit or died."""

    kind: str  # "timeout" or "crash"
    detail: str  # what happened, with the tail of what the scrubber printed


class Sandbox:
    """One forked child that runs `adapter` (and `against`) for the parent, on demand.

    Use as a context manager: the child is ended on exit. Requests are answered
    in order; the child is started on the first and again after a loss.
    """

    def __init__(self, adapter: Adapter, against: Adapter | None = None,
                 memory_limit: int | None = None) -> None:
        self.adapter = adapter
        self.against = against
        self.memory_limit = memory_limit  # bytes
        self.context = multiprocessing.get_context("fork")
        self.process: multiprocessing.process.BaseProcess | None = None
        self.conn: Connection | None = None
        self.output: int | None = None  # read end of the child's stdout and stderr
        self.poller = select.poll()  # the answer and the output (one poll object per child)
        self.printed = OutputCapture(head=0, tail=OUTPUT_TAIL * 4)  # the current request's
        self.starts = 0

    def __enter__(self) -> Sandbox:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- requests ------------------------------------------------------------------------
    def check(self, case: Case, known: Iterable[tuple[str, str]], timeout: float | None
              ) -> Violation | None:
        """`first_violation` of `case` run in the child: a hang past `timeout` wall-clock
        seconds is a `timeout` violation, a dead child a `crash` one (R-ROBUST-1)."""
        known = frozenset(known)
        answer = self.call(("case", case, known), timeout)
        if isinstance(answer, Lost):
            violation = Violation(answer.kind, "R-ROBUST-1", detail=answer.detail,
                                  deltas=case.deltas)
            return None if violation.signature in known else violation
        if isinstance(answer, Violation):
            return replace(answer, detail=self._named(answer.detail))
        return None

    def linear(self, budget: float | None) -> tuple[LinearMeasurement | None, Violation | None]:
        """The linear-time measurement (R-ROBUST-2) run in the child within `budget`
        wall-clock seconds, and its violation: an R-ROBUST-2 finding, or R-ROBUST-1 when the
        scrubber raised, hung or crashed in it (the cases that show that in a stream of
        their own are found as `robust`, `timeout` and `crash`). A measurement that did not
        fit the budget says so in its `unmeasured`, with no violation."""
        # It plans to end a little early, so that it says what it measured rather than
        # being killed; the parent kills it only at the budget itself (a call that hangs).
        planned = None if budget is None else budget - min(1.0, 0.1 * budget)
        answer = self.call(("linear", planned), budget)
        if isinstance(answer, (Lost, str)):
            detail = answer.detail if isinstance(answer, Lost) else self._named(answer)
            return None, Violation(Check.LINEAR, "R-ROBUST-1",
                                   detail=f"the linear-time measurement: {detail}")
        assert isinstance(answer, LinearMeasurement)
        finding = answer.finding
        return answer, (Violation(Check.LINEAR, finding.rule, detail=finding.detail)
                        if finding is not None else None)

    def _named(self, detail: str) -> str:
        """`detail`, naming the memory limit when a MemoryError may have come from it."""
        if (self.memory_limit and "MemoryError" in detail
                and OPTIONS.memory_limit not in detail):
            return detail + memory_note(self.memory_limit, OPTIONS)
        return detail

    def call(self, request: tuple, timeout: float | None) -> object:
        """Send one request; its answer, or a `Lost`. Raises HarnessError for a failure
        of the harness code in the child."""
        if self.process is None or not self.process.is_alive():
            self._start()
        assert self.conn is not None and self.process is not None
        self.printed = OutputCapture(head=0, tail=OUTPUT_TAIL * 4)
        try:
            self.conn.send(request)
        except (BrokenPipeError, OSError):  # died between requests: one more try
            self._start()
            self.conn.send(request)
        if not self._answered(timeout):
            self._stop()
            return Lost("timeout", f"no answer within {timeout:g} s (wall clock); the "
                                   "scrubber's process was killed" + self._printed())
        try:
            kind, value = self.conn.recv()
        except (EOFError, OSError):
            self.process.join(_KILL_WAIT_S)
            status = exit_text(self.process.exitcode)
            self._drain()
            self._stop()
            return Lost("crash", f"the scrubber's process died ({status})" + self._printed())
        self._drain()  # the child flushed before answering: all of it is in the pipe
        if kind == "error":
            raise HarnessError(str(value))
        return value

    def _answered(self, timeout: float | None) -> bool:
        """Wait for the answer (or the child's death), draining its output meanwhile;
        False when `timeout` wall-clock seconds pass first."""
        assert self.conn is not None and self.output is not None
        answer = self.conn.fileno()
        deadline = Deadline(timeout)
        while True:
            if deadline.passed():
                return False
            left = deadline.wait_s()
            ready = {fd for fd, _ in self.poller.poll(None if left is None else left * 1000)}
            if answer in ready:  # (a dead child's end of the pipe reads as ready too)
                return True
            if ready:
                self._drain()

    def _drain(self) -> None:
        """Read what the child printed so far, keeping the tail."""
        assert self.output is not None
        for _ in range(16):  # at most 1 MiB at a time: the caller's deadline comes first
            try:
                chunk = os.read(self.output, 65536)
            except BlockingIOError:
                return
            if not chunk:
                return
            self.printed.feed(chunk)

    # -- the child -------------------------------------------------------------------------
    def _start(self) -> None:
        self._stop()
        for stream in (sys.stdout, sys.stderr):  # nothing buffered is written twice
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        parent, child = self.context.Pipe()
        output, printed = os.pipe()
        self.process = self.context.Process(
            target=_serve, daemon=True,
            args=(child, self.adapter, self.against, printed, self.memory_limit))
        self.process.start()
        child.close()
        os.close(printed)
        os.set_blocking(output, False)
        self.conn, self.output = parent, output
        self.poller = select.poll()
        self.poller.register(parent.fileno(), select.POLLIN)
        self.poller.register(output, select.POLLIN)
        self.starts += 1

    def _stop(self) -> None:
        if self.process is not None:
            if self.process.is_alive():
                self.process.kill()
            self.process.join(_KILL_WAIT_S)
        if self.conn is not None:
            self.conn.close()
        if self.output is not None:
            os.close(self.output)
        self.process, self.conn, self.output = None, None, None

    def _printed(self) -> str:
        """'; it printed ...' with the tail of the scrubber's output, or ''."""
        if not self.printed:
            return ""
        text = bytes(self.printed.tail).decode("utf-8", "replace")[-OUTPUT_TAIL:]
        return f"; it printed {self.printed.total:,} bytes, ending {text!r}"

    def close(self) -> None:
        if self.conn is not None and self.process is not None and self.process.is_alive():
            try:
                self.conn.send(None)
                self.process.join(1.0)
            except (BrokenPipeError, OSError):
                pass
        self._stop()


def _serve(conn: Connection, adapter: Adapter, against: Adapter | None, output: int,
           memory_limit: int | None) -> None:
    """The child: answer requests until told to stop. A scrubber that ends the process
    (os._exit, a signal, SystemExit) ends it here; the parent reports that."""
    isolate_worker(output, memory_limit)
    while True:
        try:
            request = conn.recv()
        except EOFError:
            return
        if request is None:
            return
        try:
            if request[0] == "case":
                _, case, known = request
                answer: object = first_violation(adapter, case, against=against, known=known)
            else:
                answer = _linear(adapter, request[1])
            reply = ("ok", answer)
        except Exception:  # noqa: BLE001 - the harness's own failure, reported as such
            reply = ("error", traceback.format_exc())
        flush_io()
        conn.send(reply)


def _linear(adapter: Adapter, budget: float | None) -> LinearMeasurement | str:
    """The measurement, or what the scrubber raised during it."""
    try:
        return measure_linearity(adapter, budget_s=budget, options=OPTIONS)
    except Exception as exc:  # noqa: BLE001 - the scrubber's exception, reported as such
        summary = "".join(traceback.format_exception_only(type(exc), exc)).strip()
        return f"the scrubber raised {summary[:300]}"
