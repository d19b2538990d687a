"""buffers_all: returns nothing from feed() and the whole scrubbed answer from flush().

Field bug modelled: the streaming path collects the answer and scrubs it once
at the end "to be safe". Nothing leaks, but the user sees no text until the
stream is over: decided text is not emitted by the feed() that decided it
(SPEC R-STREAM-2, a SHOULD).
"""

from __future__ import annotations

from scrubcheck.scrubbers.reference import strip_reasoning
from scrubcheck.vocabulary import FEATURES


class BuffersAllScrubber:
    supported_features = frozenset(FEATURES)

    def __init__(self, *, starts_in_reasoning: bool = False, inline_answer: bool = False,
                 finish_reason: str | None = "stop",
                 features: tuple[str, ...] | list[str] | frozenset[str] = ()) -> None:
        self._context = {"starts_in_reasoning": starts_in_reasoning,
                         "inline_answer": inline_answer, "finish_reason": finish_reason,
                         "features": tuple(features)}
        self._parts: list[str] = []

    def feed(self, delta: str) -> str:
        self._parts.append(delta)
        return ""  # the bug: everything waits for flush()

    def flush(self) -> str:
        text, self._parts = "".join(self._parts), []
        return strip_reasoning(text, **self._context)
