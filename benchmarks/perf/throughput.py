"""Characters per second against delta size, every implementation on the same stream.

Implementations are interleaved: each round times every (size, implementation)
once, in an order that rotates from round to round, so a busy spell on the
machine hits them alike. One measurement repeats the stream until it has run
for at least `min_seconds` (fast implementations finish a stream in a fraction
of a millisecond) and counts CPU time; the figure kept is the median round
(these machines have quiet spells that make a best-of-N jump by a third).
Peers run the same stream through the protocol's `time` op (CPU time inside
the peer, slicing included), one request per measurement.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, field

from .impls import SCAN, Abandoned, Impl
from .streams import deltas as cut

SIZES = (1, 4, 16, 64)


@dataclass
class Throughput:
    length: int
    sizes: tuple[int, ...]
    rounds: int
    seconds: dict[str, dict[int, float]] = field(default_factory=dict)  # median per stream
    samples: dict[str, dict[int, list[float]]] = field(default_factory=dict)
    abandoned: dict[str, dict[int, float]] = field(default_factory=dict)  # budget hit: lower bound
    special_share: dict[int, float] = field(default_factory=dict)  # deltas with < ` or \n

    def rate(self, name: str, size: int) -> float | None:
        """Characters per second (a lower bound when the run was abandoned)."""
        seconds = self.seconds.get(name, {}).get(size)
        if seconds is None:
            seconds = self.abandoned.get(name, {}).get(size)
        if seconds is None:
            return None
        return self.length / max(seconds, 1e-9)

    def ratio(self, name: str, other: str, size: int) -> float | None:
        """How many times faster `name` is than `other` at `size` (from the median times)."""
        a, b = self.rate(name, size), self.rate(other, size)
        return a / b if a and b else None


def measure(
    impls: list[Impl], text: str, sizes: tuple[int, ...] = SIZES, rounds: int = 5,
    min_seconds: float = 0.1, peer_rounds: int = 1, peer_budget: float = 10.0,
    progress=print,
) -> Throughput:
    result = Throughput(len(text), tuple(sizes), rounds)
    pieces = {size: cut(text, size) for size in sizes}
    for size, chunks in pieces.items():
        busy = sum(1 for d in chunks if any(c in d for c in SCAN))
        result.special_share[size] = busy / max(1, len(chunks))
    repeats: dict[tuple[str, int], int] = {}
    for round_ in range(rounds):
        for size in sizes:
            turn = impls[round_ % len(impls):] + impls[: round_ % len(impls)]
            for impl in turn:
                if impl.is_peer:
                    if round_ >= peer_rounds or size in result.abandoned.get(impl.name, {}):
                        continue
                    try:
                        seconds = impl.time_text(text, size, budget=peer_budget)
                    except Abandoned:
                        result.abandoned.setdefault(impl.name, {})[size] = peer_budget
                        continue
                    except Exception as exc:  # a peer that fails is reported, not fatal
                        impl.notes.append(f"throughput at {size}: {exc}")
                        continue
                else:
                    key = (impl.name, size)
                    if key not in repeats:
                        first = impl.time_deltas(pieces[size])
                        repeats[key] = max(1, math.ceil(min_seconds / max(first, 1e-6)))
                    count = repeats[key]
                    seconds = sum(impl.time_deltas(pieces[size]) for _ in range(count)) / count
                result.samples.setdefault(impl.name, {}).setdefault(size, []).append(seconds)
        progress(f"  throughput round {round_ + 1}/{rounds} done")
    result.seconds = {name: {size: statistics.median(values) for size, values in sizes_.items()}
                      for name, sizes_ in result.samples.items()}
    return result
