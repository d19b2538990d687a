"""Splitters: parsers that return the reasoning and the answer as two channels.

The answer channel is the visible output the checks judge; the reasoning
channel is recorded on the session for `scrubcheck show`. A batch splitter is a
function `text -> (reasoning, answer)`; a streaming splitter is a factory of
objects whose feed()/flush() return such pairs. Pairs may be a 2-tuple
`(reasoning, answer)`, an object or mapping with `answer` and `reasoning`;
a None channel means empty. Anything else is passed through unchanged so that
the type check reports it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from scrubcheck.adapters.base import Adapter, FeedFlush
from scrubcheck.adapters.batch import BufferedSession, require_text_function
from scrubcheck.adapters.context import accepted_keywords, declared_features, required_positionals
from scrubcheck.adapters.stream import probe_instance, require_feed_flush
from scrubcheck.model import Context, ScrubberKind


def split_channels(value: object) -> tuple[object, object] | None:
    """(reasoning, answer) from a splitter's return value, or None if it has no such shape."""
    if isinstance(value, tuple | list) and len(value) == 2:
        reasoning, answer = value
    elif isinstance(value, Mapping) and "answer" in value:
        reasoning, answer = value.get("reasoning"), value["answer"]
    elif hasattr(value, "answer") and hasattr(value, "reasoning"):
        reasoning, answer = value.reasoning, value.answer
    else:
        return None
    return ("" if reasoning is None else reasoning), ("" if answer is None else answer)


class SplitSession:
    """Wraps a session whose values are split results; returns the answer channel."""

    def __init__(self, inner: FeedFlush) -> None:
        self.inner = inner
        self.reasoning: list[str] = []

    def _answer(self, value: object) -> object:
        channels = split_channels(value)
        if channels is None:
            return value
        reasoning, answer = channels
        if isinstance(reasoning, str):
            self.reasoning.append(reasoning)
        return answer

    def feed(self, delta: str) -> object:
        return self._answer(self.inner.feed(delta))

    def flush(self) -> object:
        return self._answer(self.inner.flush())


class _CallSession:
    def __init__(self, scrubber: FeedFlush) -> None:
        self.scrubber = scrubber

    def feed(self, delta: str) -> object:
        return self.scrubber.feed(delta)

    def flush(self) -> object:
        return self.scrubber.flush()


class SplitterAdapter(Adapter):
    kind = ScrubberKind.SPLITTER

    def __init__(self, spec: str, name: str, target: Callable) -> None:
        self.streaming = isinstance(target, type) or required_positionals(target) == 0
        if self.streaming:
            probe = require_feed_flush(probe_instance(target, spec), spec)
            features = declared_features(target, probe)
        else:
            require_text_function(target, spec)
            features = declared_features(target)
        self.target = target
        super().__init__(spec, name, features or frozenset(), accepted_keywords(target))

    @property
    def streams(self) -> bool:
        return self.streaming

    def open(self, context: Context) -> SplitSession:
        kwargs = self.context_kwargs(context, self.accepted_context)
        if self.streaming:
            return SplitSession(_CallSession(self.target(**kwargs)))
        return SplitSession(BufferedSession(lambda text: self.target(text, **kwargs)))
