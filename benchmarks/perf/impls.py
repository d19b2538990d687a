"""The implementations the benchmark compares, behind one small interface.

In-process ones are objects with `feed(delta)` and `flush()`: the reference
scrubber, a passthrough that returns each delta unchanged, the one-scan floor
(a feed that only looks for the characters that can start a tag, a code span or
a line, then returns the delta: the least a scrubber that reads its input must
do), and hermes-agent's `StreamingThinkScrubber` through its own API when it is
importable. Peers (`scrubcheck peers install`) run in their own environments
and time themselves through the protocol's `time` op, so the pipe is not
counted.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from importlib import metadata

from scrubcheck.model import Context

SCAN = ("<", "`", "\n")  # what the default vocabulary's scanner must look for


class Passthrough:
    """Returns each delta unchanged: the cost of calling a scrubber at all."""

    def feed(self, delta: str) -> str:
        return delta

    def flush(self) -> str:
        return ""


class ScanFloor:
    """Looks for the characters a scrubber must look for, then returns the delta."""

    def feed(self, delta: str) -> str:
        for c in SCAN:
            if c in delta:
                return delta
        return delta

    def flush(self) -> str:
        return ""


class Abandoned(Exception):
    """A timed run went over its budget."""


@dataclass
class Impl:
    name: str
    label: str  # what it is, for the report
    group: str  # "in-process" or "peer"
    factory: Callable[[], object] | None = None
    adapter: object | None = None  # a PeerAdapter
    notes: list[str] = field(default_factory=list)

    @property
    def is_peer(self) -> bool:
        return self.adapter is not None

    def time_text(self, text: str, size: int, budget: float | None = None) -> float:
        """CPU seconds to feed `text` in `size`-character deltas (sliced as it goes, as the
        protocol's `time` op does) and flush; raises Abandoned past `budget`."""
        if self.adapter is not None:
            session = self.adapter.open(Context())
            seconds, abandoned = session.time_stream(text, size, budget)
            if abandoned:
                raise Abandoned
            return seconds
        assert self.factory is not None
        obj = self.factory()
        feed = obj.feed
        with _no_gc():
            start = time.process_time()
            step = size * 4096
            for block in range(0, len(text), step):
                for i in range(block, min(block + step, len(text)), size):
                    feed(text[i : i + size])
                if budget is not None and time.process_time() - start > budget:
                    raise Abandoned
            obj.flush()
            return time.process_time() - start

    def time_interleaved(
        self, short: str, short_count: int, long: str, long_count: int, size: int,
        budget: float | None = None, chunk: int = 2048,
    ) -> tuple[float, float]:
        """CPU seconds per stream of `short` and of `long` (in `size`-character deltas),
        the two sides fed in alternating chunks of `chunk` deltas, each chunk timed.

        This machine's speed drifts by a third over seconds; alternating every few
        milliseconds makes both sides of a ratio see the same drift (in-process only).
        """
        assert self.factory is not None
        factory = self.factory

        def side(text: str, count: int):  # yields after every `chunk` deltas, across streams
            fed = 0
            for _ in range(count):
                obj = factory()
                feed = obj.feed
                start = 0
                while start < len(text):
                    end = min(len(text), start + size * (chunk - fed))
                    for i in range(start, end, size):
                        feed(text[i : i + size])
                    fed += -(-(end - start) // size)
                    start = end
                    if fed >= chunk:
                        fed = 0
                        yield
                obj.flush()
            yield

        clock = time.process_time
        sides = [side(short, short_count), side(long, long_count)]
        spent = [0.0, 0.0]
        live = [True, True]
        with _no_gc():
            while any(live):
                for k in (1, 0):
                    if not live[k]:
                        continue
                    start = clock()
                    try:
                        next(sides[k])
                    except StopIteration:
                        live[k] = False
                    spent[k] += clock() - start
                if budget is not None and spent[1] > budget * long_count:
                    raise Abandoned
        return spent[0] / short_count, spent[1] / long_count

    def time_deltas(self, deltas: list[str]) -> float:
        """CPU seconds to feed ready-made deltas and flush (in-process only)."""
        assert self.factory is not None
        obj = self.factory()
        feed = obj.feed
        with _no_gc():
            start = time.process_time()
            for delta in deltas:
                feed(delta)
            obj.flush()
            return time.process_time() - start


class _no_gc:
    def __enter__(self) -> None:
        self.was = gc.isenabled()
        gc.disable()

    def __exit__(self, *exc: object) -> None:
        if self.was:
            gc.enable()


def hermes_version() -> str | None:
    try:
        return metadata.version("hermes-agent")
    except metadata.PackageNotFoundError:
        return None


def in_process() -> list[Impl]:
    from scrubcheck import __version__
    from scrubcheck.scrubbers.reference import ReferenceScrubber

    impls = [
        Impl("reference", f"scrubcheck {__version__} ReferenceScrubber", "in-process",
             ReferenceScrubber),
        Impl("passthrough", "returns each delta unchanged", "in-process", Passthrough),
        Impl("scan-floor", "three `in` tests per delta, then returns it", "in-process",
             ScanFloor),
    ]
    try:
        from agent.think_scrubber import StreamingThinkScrubber
    except ImportError:
        pass
    else:
        impls.append(Impl("hermes", f"hermes-agent {hermes_version()} StreamingThinkScrubber "
                          "(feed/flush)", "in-process", StreamingThinkScrubber))
    return impls


def installed_peers(selection: str = "all") -> tuple[list[Impl], list[str]]:
    """Peers to time: `all` installed ones, `none`, or comma-separated names.

    Returns the peers and a note for each one asked for that could not be used.
    """
    if selection == "none":
        return [], []
    from scrubcheck.adapters import AdapterError, load_adapter
    from scrubcheck.peers import read_marker, shipped_manifests

    manifests = {m.name: m for m in shipped_manifests()}
    wanted: Iterable[str]
    if selection == "all":
        wanted = [n for n, m in sorted(manifests.items()) if read_marker(m.package)]
    else:
        wanted = [n.strip() for n in selection.split(",") if n.strip()]
    peers, skipped = [], []
    for name in wanted:
        try:
            adapter = load_adapter(f"peer:{name}")
        except AdapterError as exc:
            skipped.append(f"{name}: {exc}")
            continue
        manifest = adapter.manifest
        peers.append(Impl(name, f"{manifest.package.label} {manifest.kind}", "peer",
                          adapter=adapter))
    return peers, skipped


def close_all(impls: Iterable[Impl]) -> None:
    for impl in impls:
        if impl.adapter is not None:
            impl.adapter.close()
