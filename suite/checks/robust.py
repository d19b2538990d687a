"""R-ROBUST-1: feed() and flush() return str and never raise."""

from __future__ import annotations

from scrubcheck.checks.findings import Finding
from scrubcheck.checks.trace import Trace


def check_types(trace: Trace) -> Finding | None:
    """A finding for the first non-str return of the trace (the rest are counted)."""
    if not trace.bad_returns:
        return None
    first = trace.bad_returns[0]
    call = "flush()" if first.step is None else f"feed() of delta {first.step}"
    more = len(trace.bad_returns) - 1
    return Finding(
        "type", "R-ROBUST-1",
        f"{call} returned {first.type_name}, not str: {first.shown}"
        + (f" ({more} more non-str returns in this stream)" if more else ""),
        step=first.step,
    )


def check_exception(trace: Trace) -> Finding | None:
    """A finding for an exception the scrubber raised (the scenario becomes ERROR)."""
    if trace.error is None:
        return None
    return Finding(
        "exception", "R-ROBUST-1",
        f"{trace.error.where()} raised {trace.error.summary}",
        got=trace.error.traceback,
        step=trace.error.step,
    )
