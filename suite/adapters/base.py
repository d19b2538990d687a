"""The one shape the runner drives, whatever the scrubber's own shape is.

An `Adapter` knows how to open a `Session` (one stream) with the context the
scrubber can receive. Sessions return whatever the scrubber returned: the
runner checks those values (R-ROBUST-1), it never trusts them.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, Protocol

from scrubcheck.adapters.context import unsupported_reason
from scrubcheck.model import Context, ScrubberKind


class FeedFlush(Protocol):
    """A streaming scrubber's own object, as the adapters drive it: `feed` each delta,
    then `flush`, which may take context such as `finish_reason` by keyword."""

    def feed(self, delta: str, /) -> object: ...

    def flush(self, *args: Any, **kwargs: Any) -> object: ...


class Session(Protocol):
    """One stream: `feed` each delta, then `flush` once. `reasoning` holds a splitter's
    reasoning channel (empty for plain scrubbers)."""

    reasoning: list[str]

    def feed(self, delta: str) -> object: ...

    def flush(self) -> object: ...


@dataclass
class BatchRun:
    """A whole stream run in one go by a session that has `run_batch(deltas, flush)`
    (an out-of-process peer: one round trip per stream, not per delta)."""

    returns: list[object] = field(default_factory=list)  # each feed(), then flush() if it ran
    flushed: bool = False
    #: (call, step, summary, traceback) of the exception that stopped the stream, if any
    error: tuple[str, int | None, str, str] | None = None
    #: a splitter's reasoning channel per call (filled for prefetched runs, `take_ahead`)
    reasoning: list[str] = field(default_factory=list)


class Adapter(ABC):
    """A loaded scrubber: what it is, what context it accepts, how to open a stream."""

    kind: ScrubberKind = ScrubberKind.STREAM
    #: Each open() builds a new scrubber object; the reuse check (R-REUSE-1) then
    #: drives flush()-then-feed on that one object.
    fresh_object_per_stream: bool = True
    #: True for a scrubber that decides on whole tag tokens: it is run only on
    #: chunkings and truncation cuts that keep every tag whole (others are counted).
    token_aligned: bool = False
    #: the conformance classes the implementation claims (SPEC section 12); () claims
    #: nothing, and is judged in the generic class
    claims: tuple[str, ...] = ()

    def __init__(
        self,
        spec: str,
        name: str,
        supported_features: frozenset[str],
        accepted_context: frozenset[str],
    ) -> None:
        self.spec = spec
        self.name = name
        self.supported_features = supported_features
        self.accepted_context = accepted_context

    @property
    def streams(self) -> bool:
        """Whether feed() can emit text (False: everything comes at flush, hold-back "batch")."""
        return self.kind == ScrubberKind.STREAM

    def unsupported_reason(self, context: Context, text: str = "") -> str | None:
        """Why this scrubber cannot be given the stream `text` with `context` fairly,
        or None (R-CTX-1)."""
        return unsupported_reason(
            context.required_keys(text),
            context.features,
            self.accepted_context,
            self.supported_features,
        )

    def measurement_context(self) -> Context:
        """The context of a stream this scrubber is really used on, for measurements
        made outside the corpus (R-ROBUST-2): the defaults, unless it runs in a fixed mode."""
        return Context()

    def context_kwargs(self, context: Context, accepted: frozenset[str]) -> dict[str, object]:
        """The context keyword arguments a callable accepting `accepted` gets."""
        return {k: v for k, v in context.as_kwargs().items() if k in accepted}

    @property
    def prefetches(self) -> bool:
        """Whether `prefetch` does anything (worth building streams ahead for)."""
        return False

    def prefetch(self, context: Context, streams: list[tuple[str, ...]]) -> None:
        """Run these fresh, flushed streams ahead of time, if that is cheaper together
        (a peer: many streams per round trip); `take_ahead` then hands each one out.
        Default: nothing (each stream runs when asked)."""
        return None

    def take_ahead(self, context: Context, deltas: tuple[str, ...]) -> BatchRun | None:
        """The prefetched run of this fresh stream, once, or None."""
        return None

    @abstractmethod
    def open(self, context: Context) -> Session:
        """Start one stream with `context`."""

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.spec!r} kind={self.kind}>"
