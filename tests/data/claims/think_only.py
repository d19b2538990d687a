"""A scrubber that reads like the reference but knows only `<think>` (any letter case):
the shape of most scrubbers configured for one model family. It claims the `think`
conformance class; judged in the generic class it "leaks" on every other tag name."""

from scrubcheck.scrubbers.reference import ReferenceScrubber


def ThinkOnly(*, starts_in_reasoning: bool = False, inline_answer: bool = False,
              finish_reason: str | None = "stop",
              may_skip_reasoning: bool = False) -> ReferenceScrubber:
    return ReferenceScrubber(starts_in_reasoning=starts_in_reasoning,
                             inline_answer=inline_answer, finish_reason=finish_reason,
                             may_skip_reasoning=may_skip_reasoning, conformance_class="think")


ThinkOnly.claims = ("think",)  # type: ignore[attr-defined]
