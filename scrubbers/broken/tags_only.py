"""tags_only: deletes the tag strings and keeps what stood between them.

Field bug modelled: "clean up the think tags" implemented as a replace of
`<think>` and `</think>` (state kept so split tags are still caught). The
markup vanishes, which looks clean in a quick test, but every word of the
reasoning is shown as if it were answer text.
"""

from __future__ import annotations

from scrubcheck.scrubbers.broken._simple import ANY_TAG, held_suffix


class TagsOnlyScrubber:
    def __init__(self, **context: object) -> None:
        self.held = ""

    def feed(self, delta: str) -> str:
        text = ANY_TAG.sub("", self.held + delta)
        keep = held_suffix(text)
        self.held = text[len(text) - keep :]
        return text[: len(text) - keep]

    def flush(self) -> str:
        out, self.held = self.held, ""
        return out
