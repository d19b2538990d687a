"""quadratic_rescan: re-scrubs everything received so far on every delta.

Field bug modelled: "keep the whole buffer and run the batch scrubber over it
again on each chunk, then emit what is new". The output is right, but a long
stream in small deltas costs time quadratic in its length: a 1 MB answer in
one-character deltas never finishes (SPEC R-ROBUST-2).
"""

from __future__ import annotations

from scrubcheck.scrubbers.reference import ReferenceScrubber
from scrubcheck.vocabulary import FEATURES


class QuadraticRescanScrubber:
    supported_features = frozenset(FEATURES)

    def __init__(self, *, starts_in_reasoning: bool = False, inline_answer: bool = False,
                 finish_reason: str | None = "stop",
                 features: tuple[str, ...] | list[str] | frozenset[str] = ()) -> None:
        self._context = {"starts_in_reasoning": starts_in_reasoning,
                         "inline_answer": inline_answer, "finish_reason": finish_reason,
                         "features": tuple(features)}
        self._text = ""
        self._sent = ""

    def _new(self, output: str) -> str:
        fresh = output[len(self._sent):] if output.startswith(self._sent) else ""
        self._sent += fresh
        return fresh

    def feed(self, delta: str) -> str:
        self._text += delta
        return self._new(ReferenceScrubber(**self._context).feed(self._text))  # the bug

    def flush(self) -> str:
        scrubber = ReferenceScrubber(**self._context)
        out = self._new(scrubber.feed(self._text) + scrubber.flush())
        self._text, self._sent = "", ""
        return out
