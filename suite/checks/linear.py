"""R-ROBUST-2: time is linear in the stream length, whatever the delta sizes.

Run once per scrubber. A realistic stream of n and of 8n characters is fed in
one-character and in 16-character deltas; the check fails when either time
ratio exceeds 8 x 1.5. It is a ratio measured in the same process, not a
wall-clock limit, and it uses CPU time so parallel workers do not skew it. n
grows until the short run takes long enough to measure; a run that is clearly
quadratic is abandoned early instead of hanging the suite.
"""

from __future__ import annotations

import gc
import time
from dataclasses import dataclass, field

from scrubcheck.adapters import Adapter
from scrubcheck.checks.findings import Finding
from scrubcheck.model import Context

GROWTH = 8
LIMIT = GROWTH * 1.5
ABANDON = GROWTH * 4  # stop an 8n run at 32x: half of what a quadratic scrubber takes
DELTA_SIZES = (1, 16)
MIN_SECONDS = 0.03
ROUNDS = 3
RETRIES = 2
START_N = 2048
MAX_N = 131072  # 8n = 1 Mi characters, the size SPEC R-ROBUST-2 names

_PIECES = (
    "Sure, here is the summary you asked for. ",
    "<think>The user wants a summary; check the dates first and keep it short.</think>",
    "The meeting moved to Tuesday. Write `<think>` literally in a code span like this.\n",
    "```python\nprint('<think> stays literal in fences')\n```\n",
    "<thinking>Second pass: verify the totals before answering, then reply.</thinking>",
    "Totals: 42 items, 17 pending.\n",
    "Prose with markup <b>bold</b>, a stray < sign, and CRLF\r\nline endings. ",
    "<THINK>upper-case reasoning about whether to mention the refund policy</THINK>",
    "Numbers 12345 and unicode: naïve café 思考 ◁ ▷ — done.\n",
)


def realistic_stream(length: int) -> str:
    """Deterministic answer text of `length` characters with blocks, code and prose."""
    unit = "".join(_PIECES)
    return (unit * (length // len(unit) + 1))[:length]


class _Abandoned(Exception):
    pass


def time_stream(adapter: Adapter, text: str, size: int, budget: float | None = None) -> float:
    """CPU seconds to feed `text` in `size`-character deltas and flush; exceptions propagate."""
    session = adapter.open(Context())
    timed = getattr(session, "time_stream", None)  # a peer times itself, not the pipe
    if timed is not None:
        seconds, abandoned = timed(text, size, budget)
        if abandoned:
            raise _Abandoned
        return seconds
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        start = time.process_time()
        for count, i in enumerate(range(0, len(text), size)):
            session.feed(text[i : i + size])
            if budget is not None and count % 1024 == 0:
                if time.process_time() - start > budget:
                    raise _Abandoned
        session.flush()
        return time.process_time() - start
    finally:
        if gc_was_enabled:
            gc.enable()


@dataclass
class LinearMeasurement:
    metrics: dict[str, float] = field(default_factory=dict)
    finding: Finding | None = None


def _ratio(adapter: Adapter, size: int, metrics: dict[str, float]) -> float:
    """8 x (time of one 8n run) / (time of eight n runs), each the best of ROUNDS.

    Both sides span the same number of characters and about the same time, so
    a busy machine disturbs them alike; comparing one long run with the best of
    a few short ones would favour the short side, which can fall into a quiet
    moment whole.
    """
    n = START_N
    while (first := time_stream(adapter, realistic_stream(n), size)) < MIN_SECONDS and n < MAX_N:
        n *= 2
    short_text, long_text = realistic_stream(n), realistic_stream(n * GROWTH)
    longs, shorts = [], []
    for _ in range(ROUNDS):  # interleaved, so a busy spell hits both sides alike
        try:
            longs.append(time_stream(adapter, long_text, size,
                                     budget=max(first, 1e-3) * ABANDON))
        except _Abandoned:
            longs = [float("inf")]
            break
        shorts.append(sum(time_stream(adapter, short_text, size) for _ in range(GROWTH)))
    longer = min(longs)
    eight_short = min(shorts) if shorts else first * GROWTH
    metrics[f"n_{size}char"] = n
    metrics[f"seconds_n_{size}char"] = round(eight_short / GROWTH, 4)
    metrics[f"seconds_8n_{size}char"] = round(longer, 4) if longer != float("inf") else -1.0
    return GROWTH * longer / max(eight_short, 1e-6)


def measure_linearity(adapter: Adapter) -> LinearMeasurement:
    """Measure both delta sizes; a ratio over the limit is measured again (noise)."""
    result = LinearMeasurement()
    bad = []
    for size in DELTA_SIZES:
        ratio = _ratio(adapter, size, result.metrics)
        for _ in range(RETRIES):  # over the limit but not abandoned: could be a busy machine
            if not LIMIT < ratio < float("inf"):
                break
            ratio = min(ratio, _ratio(adapter, size, result.metrics))
        result.metrics[f"ratio_{size}char"] = round(ratio, 2) if ratio != float("inf") else -1.0
        if ratio > LIMIT:
            shown = f"{ratio:.1f}" if ratio != float("inf") else f"over {ABANDON:.0f} (abandoned)"
            n = int(result.metrics[f"n_{size}char"])
            bad.append(f"{size}-character deltas: {n} -> {n * GROWTH} characters took {shown}x "
                       "as long")
    if bad:
        result.finding = Finding(
            "linear", "R-ROBUST-2",
            "time grows faster than the stream: " + "; ".join(bad)
            + f" (linear would be {GROWTH}x; the limit is {LIMIT:.0f}x)",
        )
    return result
