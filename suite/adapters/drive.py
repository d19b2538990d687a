"""Drive a session over deltas and record everything that came back.

Every stream a check reads is made here (one fresh session, a cut stream, a
re-scrub, two streams on one reused object), so that the checks layer only
judges what was recorded and never runs a scrubber itself.

A `Trace` is the raw observation every check reads: what each call returned
(coerced to text, with non-str returns noted for R-ROBUST-1), the cumulative
output length after each call, and any exception with a short traceback. The
scrubber is never trusted: a raising or mistyped call is recorded, not fatal.
"""

from __future__ import annotations

import traceback
from dataclasses import dataclass, field
from pathlib import Path

from scrubcheck.adapters import Adapter, Session
from scrubcheck.adapters.base import BatchRun
from scrubcheck.model import Context

_HARNESS_DIRS = tuple(
    str(Path(__file__).resolve().parent.parent / sub) for sub in ("checks", "adapters", "runner")
)


@dataclass
class ScrubberError:
    """An exception raised by the scrubber (open, feed or flush)."""

    call: str  # "open", "feed" or "flush"
    step: int | None  # index of the delta for feed, None otherwise
    summary: str  # "ValueError: boom (scrubbers/x.py:12 in feed)"
    traceback: str  # the scrubber's own frames, harness frames removed

    def where(self) -> str:
        return f"feed() of delta {self.step}" if self.call == "feed" else f"{self.call}()"


@dataclass
class BadReturn:
    """A feed/flush return that is not `str` (R-ROBUST-1)."""

    step: int | None  # delta index, None for flush
    type_name: str
    shown: str  # repr, shortened


@dataclass
class Trace:
    deltas: tuple[str, ...]
    returns: list[str] = field(default_factory=list)  # per call: feeds, then flush
    ends: list[int] = field(default_factory=list)  # cumulative output length after each call
    bad_returns: list[BadReturn] = field(default_factory=list)
    error: ScrubberError | None = None
    reasoning: str = ""  # a splitter's reasoning channel, joined
    flushed: bool = False

    @property
    def output(self) -> str:
        return "".join(self.returns)

    @property
    def ok(self) -> bool:
        """Ran to the end without an exception: its output can be judged."""
        return self.error is None and self.flushed

    def step_at(self, end: int) -> int | None:
        """The first call after which the output had at least `end` characters
        (a delta index, or None when only flush() produced them)."""
        for index, length in enumerate(self.ends):
            if length >= end:
                return index if index < len(self.deltas) else None
        return None

    def cumulative(self, call_index: int) -> str:
        return "".join(self.returns[: call_index + 1])


def coerce(value: object) -> str:
    """Text to keep checking with when a scrubber returned a non-str."""
    if value is None:
        return ""
    if isinstance(value, bytes | bytearray):
        return bytes(value).decode("utf-8", "replace")
    try:
        return str(value)
    except Exception:
        return ""


def _summarise(exc: BaseException) -> tuple[str, str]:
    frames = [
        f for f in traceback.extract_tb(exc.__traceback__)
        if not f.filename.startswith(_HARNESS_DIRS)
    ]
    where = ""
    if frames:
        last = frames[-1]
        where = f" ({Path(last.filename).name}:{last.lineno} in {last.name})"
    message = str(exc)
    if len(message) > 300:
        message = message[:299] + "…"
    summary = f"{type(exc).__name__}: {message}{where}"
    formatted = "".join(traceback.format_list(frames[-6:]))
    formatted += "".join(traceback.format_exception_only(type(exc), exc))
    return summary, formatted


def _record(trace: Trace, step: int | None, value: object) -> None:
    if not isinstance(value, str):
        shown = repr(value)
        trace.bad_returns.append(
            BadReturn(step, type(value).__name__, shown if len(shown) <= 80 else shown[:79] + "…")
        )
        value = coerce(value)
    trace.returns.append(value)
    trace.ends.append((trace.ends[-1] if trace.ends else 0) + len(value))


def drive(session: Session, deltas: tuple[str, ...] | list[str], *, flush: bool = True) -> Trace:
    """Feed `deltas` to an open session, then flush it; stop at the first exception."""
    trace = Trace(tuple(deltas))
    seen_reasoning = len(session.reasoning)
    batched = getattr(session, "run_batch", None)  # out-of-process peers: one round trip
    try:
        if batched is not None:
            _replay(batched(trace.deltas, flush), trace)
        else:
            _drive(session, trace, flush)
    finally:
        channel = session.reasoning[seen_reasoning:]
        trace.reasoning = "".join(r for r in channel if isinstance(r, str))
    return trace


def _drive(session: Session, trace: Trace, flush: bool) -> None:
    for index, delta in enumerate(trace.deltas):
        try:
            value = session.feed(delta)
        except Exception as exc:
            trace.error = ScrubberError("feed", index, *_summarise(exc))
            return
        _record(trace, index, value)
    if flush:
        try:
            value = session.flush()
        except Exception as exc:
            trace.error = ScrubberError("flush", None, *_summarise(exc))
            return
        _record(trace, None, value)
        trace.flushed = True


def _replay(run: BatchRun, trace: Trace) -> None:
    """Fill `trace` from a whole stream a session ran by itself."""
    for index, value in enumerate(run.returns):
        _record(trace, index if index < len(trace.deltas) else None, value)
    if run.error is not None:
        trace.error = ScrubberError(*run.error)
    trace.flushed = run.flushed and run.error is None


def open_session(adapter: Adapter, context: Context) -> Session | ScrubberError:
    try:
        return adapter.open(context)
    except Exception as exc:
        return ScrubberError("open", None, *_summarise(exc))


def run_stream(adapter: Adapter, context: Context, deltas: tuple[str, ...] | list[str]) -> Trace:
    """One stream through a fresh session of `adapter` (or its prefetched run of it)."""
    ahead = adapter.take_ahead(context, tuple(deltas))
    if ahead is not None:
        trace = Trace(tuple(deltas))
        _replay(ahead, trace)
        trace.reasoning = "".join(r for r in ahead.reasoning if isinstance(r, str))
        return trace
    session = open_session(adapter, context)
    if isinstance(session, ScrubberError):
        return Trace(tuple(deltas), error=session)
    return drive(session, deltas)


def truncate_deltas(deltas: tuple[str, ...], cut: int) -> tuple[str, ...]:
    """The recorded deltas up to input position `cut`, the last one shortened."""
    kept = []
    position = 0
    for delta in deltas:
        if position + len(delta) <= cut:
            kept.append(delta)
            position += len(delta)
            continue
        if cut > position:
            kept.append(delta[: cut - position])
        break
    return tuple(kept)


def run_truncated(adapter: Adapter, context: Context, deltas: tuple[str, ...], cut: int) -> Trace:
    """The recorded deltas cut at `cut`, flushed as a stream stopped for length (R-TRUNC-1)."""
    return run_stream(adapter, context.truncated(), truncate_deltas(deltas, cut))


def run_rescrub(adapter: Adapter, context: Context, output: str) -> Trace:
    """An output scrubbed again, as one delta with the default context (R-IDEM-1)."""
    return run_stream(adapter, context.for_rescrub(), (output,))


def run_reused(
    adapter: Adapter, context: Context, first: tuple[str, ...], deltas: tuple[str, ...]
) -> tuple[Trace | None, Trace | None, ScrubberError | None]:
    """Two streams on one session, flushed in between: (first trace, second trace, open
    error). The second is not run when the first did not end cleanly (R-REUSE-1)."""
    session = open_session(adapter, context)
    if isinstance(session, ScrubberError):
        return None, None, session
    before = drive(session, first)
    if not before.ok:
        return before, None, None
    return before, drive(session, deltas), None
