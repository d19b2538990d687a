"""R-TRUNC-1: a stream cut at any point and flushed with finish_reason `length`
leaks nothing of the reasoning it carried so far, whole or in part (and, with
`may_skip_reasoning`, shows nothing of a pre-filled block it cut, R-SKIP-2).

Each cut feeds the recorded deltas up to the cut (the last one shortened) to a
fresh session opened with `context.truncated()` (`adapters.drive.run_truncated`
makes that run; this module only judges it). What flush() releases there is also
the scrubber's hold-back at that point (R-STREAM-1).
"""

from __future__ import annotations

from scrubcheck.adapters.drive import Trace
from scrubcheck.checks.leaks import check_leak
from scrubcheck.checks.reasoning_windows import LeakDetector
from scrubcheck.checks.undecided import check_undecided
from scrubcheck.evidence import Evidence
from scrubcheck.model import Context


def check_truncation(
    trace: Trace,
    context: Context,
    kept: tuple[str, ...],
    cut: int,
    detector: LeakDetector,
    clean: tuple[str, ...] = (),
) -> Evidence | None:
    """The leak finding of the truncated run at `cut` (fed `kept`), if any.

    `clean` are outputs already found free of every reasoning window: a prefix
    of one of them is free of the (fewer) windows live at the cut, so it is not
    scanned again (this keeps 1 MiB scenarios fast).
    """
    if any(full.startswith(trace.output) for full in clean):
        # A prefix of a clean output leaks nothing, but may still be undecided text.
        return check_undecided(context, "".join(kept), trace)
    leak = check_leak(trace, detector, seen=cut, rule="R-TRUNC-1")
    return leak or check_undecided(context, "".join(kept), trace)


def held_at_flush(trace: Trace) -> int | None:
    """How many characters flush() released: what was held back at the cut."""
    if not trace.flushed:
        return None
    return len(trace.returns[-1])
