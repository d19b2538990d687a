"""Prefetching: a peer runs the next streams of a scenario many per round trip.

Measured on the minimal example peer (docs/examples/minimal-peer) over the
blocks, unicode and split-tags areas, the round trips of the peer protocol were
71% of the run's time even after batch implementations ran each joined text
once (10,213 requests, about 260 µs each on a loaded 2-core machine: the pipe
write, two context switches and the peer's JSON). Nine in ten were truncation
cuts, each a short fresh stream. A peer whose hello offers the `streams` op
(both shipped protocol loops do) gets them in groups instead; the runner still
asks for each stream in order and judges it exactly as before, taking its run
from the group (`Adapter.take_ahead`).

Groups are bounded in streams and characters, and built just before they are
run, so a 1 MiB scenario never holds more than about one group's streams.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import TypeVar

from scrubcheck.adapters import Adapter
from scrubcheck.model import Context

T = TypeVar("T")
GROUP_STREAMS = 64
GROUP_CHARS = 1 << 20


def ahead(adapter: Adapter | None, context: Context, items: Iterable[T],
          deltas_of: Callable[[T], tuple[str, ...] | None]) -> Iterator[T]:
    """Yield `items` in order; before each group, have `adapter` prefetch the group's
    streams (`deltas_of(item)`, None for an item that will not be run). With no adapter
    (or one that does not prefetch) the items pass through untouched."""
    if adapter is None or not adapter.prefetches:
        yield from items
        return
    group: list[T] = []
    streams: list[tuple[str, ...]] = []
    size = 0
    for item in items:
        deltas = deltas_of(item)
        length = sum(map(len, deltas)) if deltas is not None else 0
        if group and (len(group) >= GROUP_STREAMS or size + length > GROUP_CHARS):
            adapter.prefetch(context, streams)
            yield from group
            group, streams, size = [], [], 0
        group.append(item)
        if deltas is not None:
            streams.append(deltas)
            size += length
    if group:
        adapter.prefetch(context, streams)
        yield from group
