"""R-STREAM-1 / R-STREAM-2 (SHOULD): how much a streaming scrubber holds back.

Two measurements: from the truncation runs, what flush() released at each cut
(what was held there); from the one-character run, how far the cumulative
output lags behind what SPEC makes due after each feed() (the SPEC model's
`decided_ends`, passed in by the runner). Lag beyond the
longest tag of the active vocabulary fails at SHOULD level: R-STREAM-2 when the
text only came out at flush(), R-STREAM-1 otherwise. Batch scrubbers hold
everything by construction and are reported as mode "batch", never failed.
"""

from __future__ import annotations

from scrubcheck.adapters.drive import Trace
from scrubcheck.checks.names import Check
from scrubcheck.evidence import Evidence
from scrubcheck.results import Holdback


def measure_holdback(
    streams: bool,
    char_trace: Trace | None,
    due_ends: list[int] | None,
    held: list[int],
    max_tag_len: int,
) -> tuple[Holdback, Evidence | None]:
    """The hold-back summary and, for a streaming scrubber that lags, its finding."""
    holdback = Holdback("stream" if streams else "batch", max_held=max(held, default=0))
    if char_trace is None or due_ends is None or not char_trace.ok:
        return holdback, None
    feeds = len(char_trace.deltas)
    lags = [max(0, due_ends[k] - char_trace.ends[k]) for k in range(feeds)]
    if not lags:
        return holdback, None
    worst = max(range(feeds), key=lambda k: lags[k])
    holdback.max_lag_vs_reference = lags[worst]
    if not streams or lags[worst] <= max_tag_len:
        return holdback, None
    at_flush = lags[-1] > max_tag_len
    rule = "R-STREAM-2" if at_flush else "R-STREAM-1"
    return holdback, Evidence(
        Check.HOLDBACK, rule,
        detail=f"with one-character deltas the output lagged {lags[worst]} characters behind "
        f"what SPEC makes due after feed() of delta {worst} (allowed: the longest tag, "
        f"{max_tag_len})"
        + (f"; {lags[-1]} characters were still held at the last feed() and only came out "
           "at flush()" if at_flush else ""),
        step=worst,
    )
