"""One running peer program: JSON lines over its stdin/stdout, with a timeout per request.

The harness never imports a peer; it talks to the peer's adapter program
(docs/protocol.md). A peer that dies, stops answering or breaks the protocol
is killed and started again on the next request; each such failure is a
`PeerFailure` whose `kind` names what went wrong, so that the adapter's
circuit breaker (`scrubcheck.peers.breaker`) can tell a peer that fails now
and then from one that fails every time. Its stderr goes to a bounded log
(`scrubcheck.peers.logs`), whose tail explains every crash and timeout.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from scrubcheck.childprocess import die_with_parent, exit_text
from scrubcheck.deadline import Deadline
from scrubcheck.peers.logs import StderrLog

STDERR_TAIL = 1200  # characters of the peer's stderr quoted in a crash report


#: PeerFailure kinds, in words (reports show them as they are).
CRASH = "the peer process died"
TIMEOUT = "the request timed out"
NOT_JSON = "an answer that is not JSON"
WRONG_ID = "an answer to another request"
REJECTED = "the request rejected as wrong"


class PeerFailure(Exception):
    """The peer process died, hung or broke the protocol; `kind` says which (one of
    CRASH, TIMEOUT, NOT_JSON, WRONG_ID, REJECTED)."""

    def __init__(self, kind: str, message: str, stderr_tail: str = "") -> None:
        super().__init__(message)
        self.kind = kind
        self.stderr_tail = stderr_tail

    def describe(self) -> str:
        tail = self.stderr_tail.strip()
        return str(self) + (f"; peer stderr (tail): {tail}" if tail else "; peer stderr: empty")


@dataclass(frozen=True)
class Launch:
    """How to start a peer program."""

    argv: tuple[str, ...]
    cwd: str | None = None
    env: tuple[tuple[str, str], ...] = ()
    log_dir: str | None = None  # where stderr logs go (a temp dir when None)


def _pipes(proc: subprocess.Popen | None) -> tuple[IO[bytes], IO[bytes]]:
    """A started peer's request and response pipes (it is always started with both)."""
    if proc is None or proc.stdin is None or proc.stdout is None:
        raise RuntimeError("the peer process is not running")
    return proc.stdin, proc.stdout


class PeerProcess:
    """A peer program, started on first use and after every failure."""

    def __init__(self, launch: Launch, name: str) -> None:
        self.launch = launch
        self.name = name
        self.proc: subprocess.Popen | None = None
        self.owner = 0  # the pid that started it: a forked worker starts its own
        self.log = StderrLog(Path(launch.log_dir or _default_log_dir()), name)
        self._buffer = b""
        self._next_id = 0
        self.restarts = 0

    # -- lifecycle ------------------------------------------------------------
    def _start(self) -> None:
        env = dict(os.environ)
        env.update(dict(self.launch.env))
        with self.log.open_for_start() as err:
            self.proc = subprocess.Popen(
                list(self.launch.argv), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=err, cwd=self.launch.cwd, env=env, bufsize=0,
                preexec_fn=die_with_parent if sys.platform.startswith("linux") else None,
            )
        self.owner = os.getpid()
        self._buffer = b""

    def alive(self) -> bool:
        return self.proc is not None and self.owner == os.getpid() and self.proc.poll() is None

    def stop(self) -> None:
        """End the process if this process started it (a forked copy leaves it alone)."""
        proc, self.proc = self.proc, None
        if proc is None or self.owner != os.getpid():
            return
        stdin, stdout = _pipes(proc)
        try:
            stdin.close()
        except OSError:
            pass
        try:
            proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        stdout.close()

    def _fail(self, kind: str, message: str) -> PeerFailure:
        proc = self.proc
        if proc is not None and self.owner == os.getpid():
            if proc.poll() is None:
                proc.kill()
            proc.wait()
            code = proc.returncode
            if kind == CRASH:
                message += f" ({exit_text(code)})"
            stdin, stdout = _pipes(proc)
            stdout.close()
            stdin.close()
        self.proc = None
        self.restarts += 1
        return PeerFailure(kind, message, self.stderr_tail())

    def stderr_tail(self, chars: int = STDERR_TAIL) -> str:
        """What the current (or last) start of the peer wrote to stderr, at most `chars`."""
        return self.log.tail(chars)

    # -- requests -------------------------------------------------------------
    def request(
        self, message: dict, timeout_s: float, timeout_from: str = "the peer's timeout_s"
    ) -> dict:
        """Send one request and return its response; raises PeerFailure (and restarts
        the peer on the next request) when it dies, hangs or answers nonsense.
        `timeout_from` says where `timeout_s` comes from, for the message of a timeout."""
        if not self.alive():
            if self.proc is not None and self.owner == os.getpid():
                self._fail(CRASH, "exited between requests")  # reap it; start afresh
            self._start()
        else:
            self.log.bound()
        self._next_id += 1
        op = message.get("op")
        message = {**message, "id": self._next_id}
        line = json.dumps(message, ensure_ascii=True).encode("ascii") + b"\n"
        try:
            _pipes(self.proc)[0].write(line)
        except (BrokenPipeError, OSError):
            raise self._fail(CRASH, f"the peer process died before reading request `{op}`") \
                from None
        response = self._read_line(op, timeout_s, timeout_from)
        try:
            data = json.loads(response)
        except ValueError:
            raise self._fail(NOT_JSON, f"the peer answered request `{op}` with a line that is "
                             "not JSON: " + response[:200].decode("utf-8", "replace")) from None
        if not isinstance(data, dict):
            raise self._fail(NOT_JSON, f"the peer answered request `{op}` with JSON that is not "
                             f"an object: {str(data)[:200]}")
        if data.get("id") != self._next_id:
            got = f"id {data['id']!r}" if "id" in data else "no id"
            raise self._fail(WRONG_ID, f"the peer answered request `{op}` (id {self._next_id}) "
                             f"with {got}: {str(data)[:200]}")
        if not data.get("ok"):
            error = data.get("error") or {}
            raise PeerFailure(REJECTED, f"the peer rejected {op!r}: "
                              f"{error.get('type')}: {error.get('message')}", self.stderr_tail())
        return data

    def _read_line(self, op: object, timeout_s: float, timeout_from: str) -> bytes:
        deadline = Deadline(timeout_s)
        fd = _pipes(self.proc)[1].fileno()
        while b"\n" not in self._buffer:
            if deadline.passed():
                raise self._fail(TIMEOUT, f"request `{op}` got no answer within {timeout_s:.3g} "
                                          f"s ({timeout_from}); the peer was killed")
            ready, _, _ = select.select([fd], [], [], deadline.left())
            if not ready:
                continue
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                raise self._fail(CRASH, f"the peer process died during request `{op}`")
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line


def _default_log_dir() -> str:
    import tempfile

    return os.path.join(tempfile.gettempdir(), f"scrubcheck-peer-logs-{os.getuid()}")
