"""Plain streaming scrubbers: a zero-argument factory of objects with feed/flush.

A class qualifies as-is (hermes' `StreamingThinkScrubber` needs no glue).
Context goes to the factory by keyword when its signature names the key;
`finish_reason` may instead be taken by `flush(finish_reason=...)`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeGuard

from scrubcheck.adapters.base import Adapter, FeedFlush
from scrubcheck.adapters.context import accepted_keywords, declared_features
from scrubcheck.adapters.resolve import AdapterError
from scrubcheck.model import Context, ScrubberKind


def probe_instance(factory: Callable, label: str) -> object:
    """Build one object from `factory` with no arguments, or explain why that fails."""
    try:
        return factory()
    except TypeError as exc:
        raise AdapterError(
            f"{label}: calling it with no arguments failed ({exc}); a stream scrubber spec "
            "must name a class or a zero-argument factory"
        ) from exc
    except Exception as exc:
        raise AdapterError(
            f"{label}: building a scrubber raised {type(exc).__name__}: {exc}"
        ) from exc


def _missing_methods(obj: object) -> list[str]:
    return [m for m in ("feed", "flush") if not callable(getattr(obj, m, None))]


def _feeds_and_flushes(obj: object) -> TypeGuard[FeedFlush]:
    return not _missing_methods(obj)


def require_feed_flush(obj: object, label: str) -> FeedFlush:
    """obj, which has callable feed() and flush() methods, or an error naming those missing."""
    if _feeds_and_flushes(obj):
        return obj
    raise AdapterError(
        f"{label}: the object it builds ({type(obj).__name__}) has no "
        + " and no ".join(f"{m}()" for m in _missing_methods(obj))
        + " method"
    )


class StreamSession:
    """One scrubber object driven over one stream (and, for R-REUSE-1, the next)."""

    def __init__(self, scrubber: FeedFlush, flush_kwargs: dict[str, object]) -> None:
        self.scrubber = scrubber
        self.reasoning: list[str] = []
        self._flush_kwargs = flush_kwargs

    def feed(self, delta: str) -> object:
        return self.scrubber.feed(delta)

    def flush(self) -> object:
        return self.scrubber.flush(**self._flush_kwargs)


class StreamAdapter(Adapter):
    kind = ScrubberKind.STREAM

    def __init__(self, spec: str, name: str, factory: Callable) -> None:
        probe = require_feed_flush(probe_instance(factory, spec), spec)
        self.factory = factory
        self.factory_keys = accepted_keywords(factory)
        flush_keys = accepted_keywords(probe.flush, ("finish_reason",))
        self.flush_keys = flush_keys - self.factory_keys
        features = declared_features(factory, probe) or frozenset()
        super().__init__(spec, name, features, self.factory_keys | self.flush_keys)

    def open(self, context: Context) -> StreamSession:
        scrubber = self.factory(**self.context_kwargs(context, self.factory_keys))
        return StreamSession(scrubber, self.context_kwargs(context, self.flush_keys))
