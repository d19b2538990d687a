"""R-ROBUST-1: feed() and flush() return str and never raise."""

from __future__ import annotations

from scrubcheck.adapters.drive import Trace
from scrubcheck.checks.names import Check
from scrubcheck.evidence import Evidence


def check_types(trace: Trace) -> Evidence | None:
    """A finding for the first non-str return of the trace (the rest are counted)."""
    if not trace.bad_returns:
        return None
    first = trace.bad_returns[0]
    call = "flush()" if first.step is None else f"feed() of delta {first.step}"
    more = len(trace.bad_returns) - 1
    return Evidence(
        Check.TYPE, "R-ROBUST-1",
        detail=f"{call} returned {first.type_name}, not str: {first.shown}"
        + (f" ({more} more non-str returns in this stream)" if more else ""),
        step=first.step,
    )


def check_exception(trace: Trace) -> Evidence | None:
    """A finding for an exception the scrubber raised (the scenario becomes ERROR)."""
    if trace.error is None:
        return None
    return Evidence(
        Check.EXCEPTION, "R-ROBUST-1",
        detail=f"{trace.error.where()} raised {trace.error.summary}",
        got=trace.error.traceback,
        step=trace.error.step,
    )
