"""One bounded subprocess for the hostile tests: a command that may hang, crash or flood.

The hostile tests run `scrubcheck` (or `pytest` with the plugin) as a user or a CI job
does, against scrubbers, peers and corpora built to misbehave, so the process under test
must never be able to take the test run with it. `run` starts it in a session of its own
(a segfault or `os._exit` in it cannot reach pytest, and a Ctrl-C can be sent to its
whole group as a terminal does), writes its output to temporary files (a flood costs
disk, not a pipe that fills and blocks it), kills the whole process group at the
deadline and again when it ends (workers and peers left behind die with it), and reads
its peak memory from the kernel's accounting of the reaped process.
"""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO

import pytest

_SCRIPT = Path(sys.executable).with_name("scrubcheck")
#: The installed entry point, as a user runs it (the module where it is not installed).
SCRUBCHECK = [str(_SCRIPT)] if _SCRIPT.exists() else [sys.executable, "-m", "scrubcheck.cli"]
POLL_S = 0.02


@dataclass(frozen=True)
class Interrupt:
    """Ctrl-C as a terminal sends it (SIGINT to the whole process group), `delay_s`
    after `when` first appears on stdout or stderr; the test fails if it has not appeared
    within `within_s` seconds of the start."""

    when: str
    within_s: float
    delay_s: float = 0.0


@dataclass(frozen=True)
class Finished:
    """How a bounded command ended."""

    command: tuple[str, ...]
    code: int  # negative: killed by that signal
    out: str
    err: str  # empty when stderr was merged into `out`
    seconds: float  # wall time from start to end
    peak_rss: int  # bytes: the largest resident set of the process or a child it reaped
    overran: bool = False  # killed at the deadline
    before_interrupt: str = ""  # stdout + stderr up to the SIGINT, with `interrupt`
    after_interrupt_s: float | None = None  # seconds from the SIGINT to the end

    @property
    def text(self) -> str:
        return self.out + self.err


def scrubcheck(*argv: str, bound_s: float, **options) -> Finished:  # type: ignore[no-untyped-def]
    """`scrubcheck ARGV` through `run` (same options)."""
    return run([*SCRUBCHECK, *argv], bound_s=bound_s, **options)


def run(
    command: Sequence[str],
    *,
    bound_s: float,
    cwd: Path | str | None = None,
    env: Mapping[str, str] | None = None,
    address_space: int | None = None,
    merge_stderr: bool = False,
    interrupt: Interrupt | None = None,
    must_finish: bool = True,
) -> Finished:
    """Run `command` for at most `bound_s` wall seconds, then kill its process group.

    `env`: the whole environment (default: this process's); `address_space`: a cap on
    the child's virtual memory (RLIMIT_AS), so a regression fails with a MemoryError
    instead of exhausting a shared machine; `merge_stderr`: stderr into `out`, in the
    order written. With `must_finish` (the default) a command still running at
    `bound_s` fails the test, showing what it printed; without, the caller reads
    `overran` (several commands, each judged against a bound of its own).
    """
    command = tuple(str(part) for part in command)
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err, \
            tempfile.TemporaryDirectory() as scratch:
        report = Path(scratch, "peak-rss")
        started = (command if address_space is None
                   else (*_address_space(address_space, report), *command))
        began = time.monotonic()
        process = subprocess.Popen(
            started, cwd=cwd, env=None if env is None else dict(env),
            stdin=subprocess.DEVNULL, stdout=out, stderr=out if merge_stderr else err,
            start_new_session=True)
        waited = _Wait(process.pid, began, began + bound_s, (out, err), interrupt)
        try:
            waited.wait()
        finally:
            _kill_group(process.pid)  # what it left running, or all of it on a failure
            status, usage = waited.reap()
            process.returncode = os.waitstatus_to_exitcode(status)  # reaped here
        ended = time.monotonic()
        finished = Finished(
            command, process.returncode, _read(out), "" if merge_stderr else _read(err),
            ended - began, _peak_kib(report, usage.ru_maxrss) * 1024, waited.overran,
            waited.before,
            None if waited.sent is None else ended - waited.sent)
    if finished.overran and must_finish:
        pytest.fail(f"{' '.join(command)}\nstill running after {bound_s:g} s (killed); "
                    f"it printed:\n{finished.text[-3000:]}")
    return finished


_CAPPED = """\
import os, resource, signal, sys
limit, report, command = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
signal.signal(signal.SIGINT, signal.SIG_IGN)  # the group's Ctrl-C is the command's
pid = os.fork()
if pid == 0:
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    os.execvp(command[0], command)
_, status, usage = os.wait4(pid, 0)
with open(report, "w") as out:
    out.write(str(usage.ru_maxrss))
if os.WIFSIGNALED(status):
    signal.signal(os.WTERMSIG(status), signal.SIG_DFL)
    os.kill(os.getpid(), os.WTERMSIG(status))
os._exit(os.waitstatus_to_exitcode(status))
"""


def _address_space(limit: int, report: Path) -> tuple[str, ...]:
    """A small Python that caps RLIMIT_AS, runs the command as its child and writes the
    child's peak RSS to `report`. Not a preexec_fn, nor an exec from this process: a
    process forked from this one carries this whole test process's pages into its
    ru_maxrss (Linux keeps the high-water mark across exec), so a 40 MB command looked
    like 253 MB late in a long pytest session. Forked from the small Python, it carries
    only that."""
    return (sys.executable, "-c", _CAPPED, str(limit), str(report))


class _Wait:
    """Waiting for one process until its deadline, sending its interrupt on the way."""

    def __init__(self, pid: int, began: float, deadline: float,
                 files: tuple[IO[bytes], IO[bytes]], interrupt: Interrupt | None) -> None:
        self.pid, self.began, self.deadline, self.files = pid, began, deadline, files
        self.interrupt = interrupt
        self.result: tuple[int, resource.struct_rusage] | None = None
        self.overran = False
        self.due: float | None = None  # when the SIGINT is to be sent
        self.sent: float | None = None  # when it was sent
        self.before = ""

    def wait(self) -> None:
        while not self._ended():
            now = time.monotonic()
            if now >= self.deadline:
                self.overran = True
                return
            if self.interrupt is not None and self.sent is None:
                self._interrupt(now, self.interrupt)
            time.sleep(POLL_S)
        if self.interrupt is not None and self.sent is None:
            pytest.fail(f"ended (status {self.result[0]}) before it printed "  # type: ignore
                        f"{self.interrupt.when!r} and could be interrupted; it printed:\n"
                        f"{self._printed()[-3000:]}")

    def _ended(self) -> bool:
        pid, status, usage = os.wait4(self.pid, os.WNOHANG)
        if pid:
            self.result = (status, usage)
        return bool(pid)

    def _interrupt(self, now: float, interrupt: Interrupt) -> None:
        if self.due is None:
            printed = self._printed()
            if interrupt.when in printed:
                self.due = now + interrupt.delay_s
            elif now - self.began > interrupt.within_s:
                pytest.fail(f"no {interrupt.when!r} within {interrupt.within_s:g} s; "
                            f"it printed:\n{printed[-3000:]}")
        if self.due is not None and now >= self.due:
            self.before = self._printed()
            os.killpg(self.pid, signal.SIGINT)
            self.sent = time.monotonic()

    def _printed(self) -> str:
        return "".join(_read(file) for file in self.files)

    def reap(self) -> tuple[int, resource.struct_rusage]:
        """The exit status and resource use (after the group was killed, if need be)."""
        if self.result is None:
            _, status, usage = os.wait4(self.pid, 0)
            self.result = (status, usage)
        return self.result


def _read(file: IO[bytes]) -> str:
    """All written so far. pread, not seek and read: the child shares the file's offset,
    and moving it would make the child write over what it wrote before."""
    fd, chunks, offset = file.fileno(), [], 0
    while chunk := os.pread(fd, 1 << 20, offset):
        chunks.append(chunk)
        offset += len(chunk)
    return b"".join(chunks).decode("utf-8", "replace")


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _peak_kib(report: Path, own: int) -> int:
    """The command's peak RSS in KiB: from the capping Python's report when it ran the
    command, else the process's own ru_maxrss."""
    try:
        return int(report.read_text(encoding="ascii"))
    except (OSError, ValueError):
        return own
