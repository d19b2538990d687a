"""Time against stream length: 8x the stream must cost at most 9x the time.

For each implementation and delta size ("shape"), each ratio time(8n) / time(n)
is measured for n -> 8n = 1 KB -> 8 KB, 8 KB -> 64 KB, 64 KB -> 512 KB,
512 KB -> 4 MB and 1 MB -> 8 MB. A short stream is repeated until one
measurement lasts `min_seconds`, and the short side of a ratio runs 8 streams for
each one of the long side, so both sides do the same amount of work. With
`paired` (in-process implementations) the two sides are fed in alternating
chunks of a few milliseconds, each timed, `rounds` times, and the ratio is the
median of those paired ratios: this machine's speed drifts by a third over
seconds (other tenants), and interleaving makes both sides see the same drift,
where timing them one after the other, or taking the best of N, does not.
Peers are measured once per length.
Growth stops before a length whose linear prediction would exceed `cap`
seconds, and a run is abandoned at 2.5x its prediction (a ratio of 20 or more:
plainly not linear); either is reported as where that implementation stopped.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, field

from .impls import Abandoned, Impl
from .streams import realistic_stream

KB, MB = 1 << 10, 1 << 20
SIZES = (KB, 8 * KB, 64 * KB, 512 * KB, MB, 4 * MB, 8 * MB)
PAIRS = ((KB, 8 * KB), (8 * KB, 64 * KB), (64 * KB, 512 * KB), (512 * KB, 4 * MB), (MB, 8 * MB))
SHAPES = (1, 16)
LIMIT = 9.0  # the target: 8x the length, at most 9x the time
QUADRATIC = 20.0  # a ratio past this (or an abandoned step) is reported as quadratic
OVERRUN = 2.5  # abandon a step at this multiple of its linear prediction


@dataclass
class Curve:
    impl: str
    shape: int
    samples: dict[int, list[float]] = field(default_factory=dict)  # seconds per length
    pair_samples: dict[tuple[int, int], list[float]] = field(default_factory=dict)
    stopped: str | None = None  # why growth stopped before the last size

    @property
    def seconds(self) -> dict[int, float]:
        """The median seconds per length."""
        return {n: statistics.median(v) for n, v in sorted(self.samples.items()) if v}

    def ratios(self) -> dict[tuple[int, int], float]:
        """time(8n) / time(n) per pair: the median paired ratio, else from the medians."""
        seconds = self.seconds
        out = {}
        for a, b in PAIRS:
            if self.pair_samples.get((a, b)):
                out[(a, b)] = statistics.median(self.pair_samples[(a, b)])
            elif a in seconds and b in seconds:
                out[(a, b)] = seconds[b] / max(seconds[a], 1e-9)
        return out

    @property
    def worst(self) -> float | None:
        ratios = self.ratios()
        return max(ratios.values()) if ratios else None

    @property
    def verdict(self) -> str:
        worst = self.worst
        if self.stopped and self.stopped.startswith("abandoned"):
            return "quadratic"
        if worst is None:
            return "not measured"
        if worst <= LIMIT:
            return "linear"
        return "quadratic" if worst >= QUADRATIC else "superlinear"


def _label(n: int) -> str:
    return f"{n // MB} MB" if n >= MB else f"{n // KB} KB"


def measure(
    impl: Impl, shape: int, sizes: tuple[int, ...] = SIZES, rounds: int = 3,
    cap: float = 20.0, min_seconds: float = 0.2, texts: dict[int, str] | None = None,
    paired: bool = True,
) -> Curve:
    curve = Curve(impl.name, shape)
    texts = texts if texts is not None else {}

    def predicted(n: int) -> float | None:
        """Linear growth from the largest length measured below `n`."""
        below = [m for m in curve.samples if m < n]
        if not below:
            return None
        m = max(below)
        return statistics.median(curve.samples[m]) * n / m

    def one(n: int, count: int) -> float:
        """Seconds per stream of length `n`, averaged over `count` streams."""
        if n not in texts:
            texts[n] = realistic_stream(n)
        guess = predicted(n)
        budget = max(guess * OVERRUN, 0.5) if guess is not None else None
        return sum(impl.time_text(texts[n], shape, budget=budget) for _ in range(count)) / count

    for a, b in (p for p in PAIRS if p[0] in sizes and p[1] in sizes):
        try:
            if a not in curve.samples:
                first = one(a, 1)
                curve.samples[a] = [one(a, math.ceil(min_seconds / max(first, 1e-6)))
                                    if first < min_seconds else first]
            guess = predicted(b)
            assert guess is not None
            if guess > cap:
                curve.stopped = (f"stopped before {_label(b)}: linear growth would take "
                                 f"{guess:.0f} s there (cap {cap:g} s)")
                break
            # Both sides span the same time (8 short streams for each long one), so a
            # quiet or busy spell of the machine is as likely to fall on either.
            long_count = max(1, math.ceil(min_seconds / max(guess, 1e-6)))
            counts = {a: long_count * (b // a), b: long_count}
            if not paired:
                curve.samples.setdefault(b, []).append(one(b, long_count))
                continue
            for n in (a, b):
                if n not in texts:
                    texts[n] = realistic_stream(n)
            for _ in range(rounds):
                ta, tb = impl.time_interleaved(texts[a], counts[a], texts[b], counts[b], shape,
                                               budget=max(guess * OVERRUN, 0.5))
                curve.samples.setdefault(a, []).append(ta)
                curve.samples.setdefault(b, []).append(tb)
                curve.pair_samples.setdefault((a, b), []).append(tb / max(ta, 1e-9))
        except Abandoned:
            curve.stopped = (f"abandoned at {_label(a)}→{_label(b)}: over {OVERRUN:g}x "
                             "the time linear growth predicts")
            break
    return curve
