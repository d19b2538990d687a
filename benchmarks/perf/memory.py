"""Peak memory while scrubbing a long stream that is never held whole.

The stream comes from `streams.lazy_deltas` (one section of text at a time) and
every output is dropped at once. tracemalloc's peak for the scrubber is
compared with the same run through the passthrough, which holds the current
delta, the generator's section and the output and nothing else; what is left
after also taking away the largest hold-back (text the scrubber must keep
until it can decide it, SPEC R-STREAM-1) is what the scrubber keeps beyond
both: it must stay a few KB, whatever the stream's length.
"""

from __future__ import annotations

import gc
import sys
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass

from .impls import Passthrough
from .streams import lazy_deltas, sections


@dataclass
class MemoryRun:
    name: str
    length: int
    size: int
    peak_bytes: int  # tracemalloc peak above the start
    baseline_bytes: int  # the passthrough's peak on the same stream
    holdback_chars: int  # the most the scrubber held back at the end of a feed
    holdback_bytes: int
    delta_bytes: int

    @property
    def excess_bytes(self) -> int:
        """Peak beyond the passthrough's (delta, generator, output) and the hold-back."""
        return self.peak_bytes - self.baseline_bytes - self.holdback_bytes


def held(obj: object) -> int:
    """Characters a scrubber object holds back right now (for the ones we know)."""
    if hasattr(obj, "_stack"):  # the reference
        total = sum(map(len, obj._stack)) + sum(map(len, obj._deferred or ()))
        total += len(obj._partial) + sum(map(len, obj._block_line or ()))
        return total
    return len(getattr(obj, "_buf", ""))  # hermes' StreamingThinkScrubber


def _peak(factory: Callable[[], object], length: int, size: int) -> int:
    obj = factory()
    feed = obj.feed
    gc.collect()
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        start, _ = tracemalloc.get_traced_memory()
        for delta in lazy_deltas(length, size):
            feed(delta)
        obj.flush()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return peak - start


def _holdback(factory: Callable[[], object], length: int, size: int) -> int:
    obj = factory()
    most = 0
    for delta in lazy_deltas(length, size):
        obj.feed(delta)
        most = max(most, held(obj))
    obj.flush()
    return most


def measure(name: str, factory: Callable[[], object], length: int, size: int = 16,
            holdback_length: int = 1 << 20) -> MemoryRun:
    sections(0)  # the repeated sections exist before tracing starts, like any constant
    for delta in lazy_deltas(64 << 10, size):  # warm every cache the scrubber fills once
        factory().feed(delta)
    baseline = _peak(Passthrough, length, size)
    peak = _peak(factory, length, size)
    hold = _holdback(factory, min(length, holdback_length), size)
    return MemoryRun(name, length, size, peak, baseline, hold,
                     sys.getsizeof("x" * hold) if hold else 0, sys.getsizeof("x" * size))
