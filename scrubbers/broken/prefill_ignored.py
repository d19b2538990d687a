"""prefill_ignored: accepts `starts_in_reasoning` and ignores it.

Field bug modelled: the chat template put `<think>` in the prompt, so the
stream starts inside the block and carries only `</think>`; the scrubber treats
that close as an orphan and keeps the text before it, which is the reasoning
(docs/field.md#fm-prefill; SPEC R-ORPHAN-2). Everything else is the reference
scrubber.
"""

from __future__ import annotations

from scrubcheck.scrubbers.reference import ReferenceScrubber


class PrefillIgnoredScrubber(ReferenceScrubber):
    def __init__(self, *, starts_in_reasoning: bool = False, inline_answer: bool = False,
                 finish_reason: str | None = "stop",
                 features: tuple[str, ...] | list[str] | frozenset[str] = ()) -> None:
        # The bug: the signal is accepted, then dropped.
        super().__init__(starts_in_reasoning=False, inline_answer=inline_answer,
                         finish_reason=finish_reason, features=features)
