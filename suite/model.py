"""The data that flows through the harness: stream context and scenarios."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from enum import StrEnum
from typing import NotRequired, TypedDict

from scrubcheck.vocabulary import (
    GENERIC,
    CustomDelimiter,
    Vocabulary,
    build_vocabulary,
    custom_delimiters,
)

FINISH_REASONS: tuple[str | None, ...] = ("stop", "length", "tool_calls", "content_filter", None)
#: finish reasons of a stream that was cut off rather than finished (SPEC R-CODE-6)
CUT_OFF: frozenset[str | None] = frozenset({"length", "content_filter", None})


class ScrubberKind(StrEnum):
    """How a scrubber is driven: fed delta by delta (stream), given the whole text
    (batch), or a splitter returning the reasoning and the answer as two channels. A
    spec's `stream:`, `batch:` or `splitter:` prefix names it."""

    STREAM = "stream"
    BATCH = "batch"
    SPLITTER = "splitter"


class ContextKwargs(TypedDict):
    """A Context as keyword arguments: what a scrubber's factory (the reference's among
    them) and a peer receive."""

    starts_in_reasoning: bool
    inline_answer: bool
    finish_reason: str | None
    features: tuple[str, ...]
    may_skip_reasoning: bool
    delimiters: list[dict[str, str]]
    #: only outside the generic class (SPEC section 12), so that a generic context's
    #: keywords, digests and wire form are what they were before classes existed
    conformance_class: NotRequired[str]


@dataclass(frozen=True)
class Context:
    """What a client knows about a stream besides its text (SPEC R-CTX-1)."""

    starts_in_reasoning: bool = False
    inline_answer: bool = False
    finish_reason: str | None = "stop"
    features: tuple[str, ...] = ()
    #: SPEC R-SKIP-1: the template pre-fills the open tag but lets the model answer directly
    may_skip_reasoning: bool = False
    #: SPEC R-CUSTOM-1: the caller's own pairs and markers, added to the vocabulary
    delimiters: tuple[CustomDelimiter, ...] = ()
    #: SPEC section 12: the conformance class the stream is judged in: `generic` (the
    #: default family and the enabled features), or a format whose delimiters are the
    #: whole vocabulary. Never a key a scrubber must receive: one that claims a format
    #: is configured for it (the reference is told by this keyword).
    conformance_class: str = GENERIC

    def __post_init__(self) -> None:
        # Callers may pass mappings ({'open', 'close'} / {'marker'}), as as_kwargs() gives.
        if not all(isinstance(d, CustomDelimiter) for d in self.delimiters):
            object.__setattr__(self, "delimiters", custom_delimiters(self.delimiters))

    @property
    def cut_off(self) -> bool:
        """Whether the stream was cut off rather than finished (SPEC R-CODE-6)."""
        return self.finish_reason in CUT_OFF

    def required_keys(self, text: str = "") -> tuple[str, ...]:
        """Context keys a scrubber must be able to receive to judge this stream fairly.

        A key is required when its value changes the expected output: a pre-filled
        open, the inline-answer signal (and then the finish reason, which decides
        recovery), the finish reason of a cut-off stream whose `text` ends on a
        backtick (R-CODE-6: that run's length is unknown), any enabled feature, the
        skip signal of a pre-filled stream (and then the finish reason, R-SKIP-1), and
        the caller's delimiters. Only the last character of `text` is read, so callers
        may pass just that.
        """
        keys = []
        skip = self.may_skip_reasoning and self.starts_in_reasoning
        if self.starts_in_reasoning:
            keys.append("starts_in_reasoning")
        if self.inline_answer:
            keys.append("inline_answer")
        if self.inline_answer or skip or (self.cut_off and text.endswith("`")):
            keys.append("finish_reason")
        if self.features:
            keys.append("features")
        if skip:
            keys.append("may_skip_reasoning")
        if self.delimiters:
            keys.append("delimiters")
        return tuple(keys)

    def vocabulary(self) -> Vocabulary:
        """The active vocabulary: default family, enabled features, caller delimiters; or
        the conformance class's format (SPEC section 12)."""
        return build_vocabulary(self.features, self.delimiters, self.conformance_class)

    def as_kwargs(self) -> ContextKwargs:
        kwargs: ContextKwargs = {
            "starts_in_reasoning": self.starts_in_reasoning,
            "inline_answer": self.inline_answer,
            "finish_reason": self.finish_reason,
            "features": tuple(self.features),
            "may_skip_reasoning": self.may_skip_reasoning,
            "delimiters": [d.as_dict() for d in self.delimiters],
        }
        if self.conformance_class != GENERIC:
            kwargs["conformance_class"] = self.conformance_class
        return kwargs

    def for_rescrub(self) -> Context:
        """The context of R-IDEM-1: defaults, same vocabulary."""
        return Context(features=self.features, delimiters=self.delimiters,
                       conformance_class=self.conformance_class)

    def truncated(self) -> Context:
        """The context of a stream cut short (R-TRUNC-1)."""
        return Context(
            starts_in_reasoning=self.starts_in_reasoning,
            inline_answer=self.inline_answer,
            finish_reason="length",
            features=self.features,
            may_skip_reasoning=self.may_skip_reasoning,
            delimiters=self.delimiters,
            conformance_class=self.conformance_class,
        )


#: The keywords a scrubber may receive the context by (SPEC R-CTX-1): Context's fields,
#: in order. Here, beside Context, so the peers and the generator (below the adapters)
#: and the adapters (which read signatures for them) share one list.
CONTEXT_KEYS: tuple[str, ...] = tuple(f.name for f in fields(Context))


@dataclass(frozen=True)
class Scenario:
    """One corpus entry: a recorded stream and what must (not) come out of it."""

    id: str
    area: str
    rules: tuple[str, ...]
    description: str
    deltas: tuple[str, ...]
    reasoning: tuple[str, ...]
    context: Context = field(default_factory=Context)
    visible: str | None = None
    acceptable: tuple[str, ...] | None = None
    source: str | None = None
    labels: tuple[str, ...] = ()
    file: str = "<memory>"
    line: int = 0

    @property
    def text(self) -> str:
        return "".join(self.deltas)

    @property
    def expected_outputs(self) -> tuple[str, ...] | None:
        """All outputs SPEC accepts, or None for an invariants-only scenario."""
        if self.visible is not None:
            return (self.visible,)
        return self.acceptable

    @property
    def location(self) -> str:
        return f"{self.file}:{self.line} [{self.id}]"
