"""R-LEAK-1 as a check on one trace: no reasoning after any feed() or at flush."""

from __future__ import annotations

from scrubcheck.adapters.drive import Trace
from scrubcheck.checks.names import Check
from scrubcheck.checks.reasoning_windows import Leak, LeakDetector
from scrubcheck.checks.render import around, quoted
from scrubcheck.evidence import Evidence


def check_leak(
    trace: Trace, detector: LeakDetector, *, seen: int | None = None, rule: str = "R-LEAK-1"
) -> Evidence | None:
    """A finding at the first call after which reasoning was visible.

    Output only grows, so the earliest leaked window of the final output marks
    the first step at which any reasoning showed.
    """
    return leak_finding(trace, detector.first_leak(trace.output, seen), rule)


def leak_finding(trace: Trace, leak: Leak | None, rule: str = "R-LEAK-1") -> Evidence | None:
    """The finding for a leak already found in `trace.output` (None: no leak)."""
    if leak is None:
        return None
    output = trace.output
    step = trace.step_at(leak.visible_at)
    when = "at flush()" if step is None else f"after feed() of delta {step}"
    return Evidence(
        Check.TRUNCATION if rule == "R-TRUNC-1" else Check.LEAK, rule,
        detail=f"reasoning {quoted(leak.text, 80)} visible {when}, at output index {leak.start}: "
        f"{around(output, leak.start)} (from reasoning {quoted(leak.reasoning, 60)})",
        got=output, step=step,
    )
