"""flush_last_line: at end of stream, emits the last line of a still-open block.

Field bug modelled: a gateway or display layer "recovers" the answer that some
relays write after the last newline of an unclosed block, but does so for every
stream, without the inline-answer signal and even for `finish_reason: length`.
A truncated or tool-interrupted stream then shows the last line of its
reasoning (SPEC R-UNCLOSED-2/3, R-TRUNC-1; docs/field.md#ctx-inline-answer).
"""

from __future__ import annotations

from scrubcheck.scrubbers.broken._simple import SimpleScrubber
from scrubcheck.vocabulary import FEATURES


class FlushLastLineScrubber(SimpleScrubber):
    supported_features = frozenset(FEATURES)

    def reset(self) -> None:
        super().reset()
        self.line = ""
        self.saw_newline = False

    def block_started(self) -> None:
        self.line, self.saw_newline = "", False

    def block_text(self, text: str) -> None:
        if "\n" in text:
            self.saw_newline = True
            self.line = text.rsplit("\n", 1)[1]
        else:
            self.line += text

    def end_inside_block(self) -> str:
        # The bug: no check of inline_answer or finish_reason.
        return self.line + self.held if self.saw_newline else ""
