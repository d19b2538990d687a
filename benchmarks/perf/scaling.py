"""Time against stream length: 8x the stream must cost at most 9x the time.

For each implementation and delta size ("shape"), the stream grows 1 KB, 8 KB,
64 KB, 512 KB, 1 MB, 4 MB, 8 MB, and each ratio time(8n) / time(n) is taken
(1 KB -> 8 KB, ..., 512 KB -> 4 MB, 1 MB -> 8 MB). A short stream is repeated
until the measurement lasts `min_seconds`, so both sides of a ratio are
averages over a similar span; each size is measured `rounds` times, sizes
interleaved, and the best kept. Growth stops before a step whose linear
prediction (8x the last) would exceed `cap` seconds, and a step is abandoned
at 2.5x its prediction (a ratio above 20: plainly not linear); either is
reported as where that implementation stopped.
"""

from __future__ import annotations

import math
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
    seconds: dict[int, float] = field(default_factory=dict)  # best seconds per length
    stopped: str | None = None  # why growth stopped before the last size

    def ratios(self) -> dict[tuple[int, int], float]:
        return {(a, b): self.seconds[b] / max(self.seconds[a], 1e-9)
                for a, b in PAIRS if a in self.seconds and b in self.seconds}

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
    impl: Impl, shape: int, sizes: tuple[int, ...] = SIZES, rounds: int = 2,
    cap: float = 20.0, min_seconds: float = 0.05, texts: dict[int, str] | None = None,
) -> Curve:
    curve = Curve(impl.name, shape)
    texts = texts if texts is not None else {}
    repeats: dict[int, int] = {}
    active = list(sizes)
    for _ in range(rounds):
        last: tuple[int, float] | None = None
        for n in list(active):
            if n not in texts:
                texts[n] = realistic_stream(n)
            predicted = None
            if last is not None:
                predicted = last[1] * n / last[0]
                if n not in curve.seconds and predicted > cap:
                    curve.stopped = (f"stopped before {_label(n)}: linear growth would take "
                                     f"{predicted:.0f} s there (cap {cap:g} s)")
                    active = active[: active.index(n)]
                    break
            budget = max(predicted * OVERRUN, 0.5) if predicted is not None else None
            count = repeats.get(n, 1)
            try:
                seconds = sum(impl.time_text(texts[n], shape, budget=budget)
                              for _ in range(count)) / count
            except Abandoned:
                curve.stopped = (f"abandoned at {_label(n)}: over {budget:.1f} s, "
                                 f"{OVERRUN:g}x the linear prediction")
                active = active[: active.index(n)]
                break
            if n not in repeats and seconds < min_seconds:
                repeats[n] = max(1, math.ceil(min_seconds / max(seconds, 1e-6)))
                seconds = sum(impl.time_text(texts[n], shape)
                              for _ in range(repeats[n])) / repeats[n]
            repeats.setdefault(n, 1)
            curve.seconds[n] = min(curve.seconds.get(n, math.inf), seconds)
            last = (n, seconds)
    return curve
