"""An adapter that says which call each session is in before making it.

`scrubcheck show` runs one scenario in a worker; wrapping its adapter in
StepNoting makes the worker's progress label precise to the call (`char at
feed() of delta 20`), so a hang or a crash is reported where it happened. A
note per call costs nothing for one scenario; `run` notes per stream only.
It lives with the runner so that tracebacks leave its frames out, like the
other harness frames (adapters.drive).
"""

from __future__ import annotations

from scrubcheck.adapters import Adapter
from scrubcheck.model import Context
from scrubcheck.runner.pool import Progress


class StepNoting:
    """`adapter` with noting sessions; `note(stream)` names the stream about to run."""

    def __init__(self, adapter: Adapter, note: Progress) -> None:
        self._adapter, self._note, self.stream = adapter, note, "setup"

    def __getattr__(self, name: str) -> object:
        return getattr(self._adapter, name)

    def note(self, stream: str) -> None:
        self.stream = stream
        self._note(stream)

    def open(self, context: Context) -> NotingSession:
        return NotingSession(self._adapter.open(context), self)


class NotingSession:
    """A session that notes `<stream> at feed() of delta N` / `at flush()` before each call."""

    def __init__(self, session, owner: StepNoting) -> None:
        self._session, self._owner, self._step = session, owner, 0

    def __getattr__(self, name: str) -> object:
        return getattr(self._session, name)

    def feed(self, delta: str) -> object:
        self._owner._note(f"{self._owner.stream} at feed() of delta {self._step}")
        self._step += 1
        return self._session.feed(delta)

    def flush(self) -> object:
        self._owner._note(f"{self._owner.stream} at flush()")
        self._step = 0
        return self._session.flush()
