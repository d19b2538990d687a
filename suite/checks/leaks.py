"""R-LEAK-1 as a check on one trace: no reasoning after any feed() or at flush."""

from __future__ import annotations

from scrubcheck.checks.findings import Finding
from scrubcheck.checks.leak import LeakDetector
from scrubcheck.checks.render import around, quoted
from scrubcheck.checks.trace import Trace


def check_leak(
    trace: Trace, detector: LeakDetector, *, seen: int | None = None, rule: str = "R-LEAK-1"
) -> Finding | None:
    """A finding at the first call after which reasoning was visible.

    Output only grows, so the earliest leaked window of the final output marks
    the first step at which any reasoning showed.
    """
    output = trace.output
    leak = detector.first_leak(output, seen)
    if leak is None:
        return None
    step = trace.step_at(leak.visible_at)
    when = "at flush()" if step is None else f"after feed() of delta {step}"
    return Finding(
        "truncation" if rule == "R-TRUNC-1" else "leak", rule,
        f"reasoning {quoted(leak.text, 80)} visible {when}, at output index {leak.start}: "
        f"{around(output, leak.start)} (from reasoning {quoted(leak.reasoning, 60)})",
        expected=None, got=output, step=step,
    )
