"""R-TRUNC-1: a stream cut at any point and flushed with finish_reason `length`
leaks nothing of the reasoning it carried so far, whole or in part (and, with
`may_skip_reasoning`, shows nothing of a pre-filled block it cut, R-SKIP-2).

Each cut feeds the recorded deltas up to the cut (the last one shortened) to a
fresh session opened with `context.truncated()`. What flush() releases there is
also the scrubber's hold-back at that point (R-STREAM-1).
"""

from __future__ import annotations

from scrubcheck.adapters import Adapter
from scrubcheck.checks.leaks import check_leak
from scrubcheck.checks.reasoning_windows import LeakDetector
from scrubcheck.checks.trace import Trace, run_stream
from scrubcheck.checks.undecided import check_undecided
from scrubcheck.evidence import Evidence
from scrubcheck.model import Context


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


def run_truncation(
    adapter: Adapter,
    context: Context,
    deltas: tuple[str, ...],
    cut: int,
    detector: LeakDetector,
    clean: tuple[str, ...] = (),
) -> tuple[Trace, Evidence | None]:
    """The truncated run at `cut` and its leak finding, if any.

    `clean` are outputs already found free of every reasoning window: a prefix
    of one of them is free of the (fewer) windows live at the cut, so it is not
    scanned again (this keeps 1 MiB scenarios fast).
    """
    kept = truncate_deltas(deltas, cut)
    trace = run_stream(adapter, context.truncated(), kept)
    if any(full.startswith(trace.output) for full in clean):
        # A prefix of a clean output leaks nothing, but may still be undecided text.
        return trace, check_undecided(context, "".join(kept), trace)
    leak = check_leak(trace, detector, seen=cut, rule="R-TRUNC-1")
    return trace, leak or check_undecided(context, "".join(kept), trace)


def held_at_flush(trace: Trace) -> int | None:
    """How many characters flush() released: what was held back at the cut."""
    if not trace.flushed:
        return None
    return len(trace.returns[-1])
