"""stateless: applies the batch regex `<think>.*?</think>` to each delta on its own.

Field bug modelled: a display filter reuses the whole-text regex on every
streamed chunk. A block that arrives in one delta disappears, but as soon as a
tag or a block is split across deltas the reasoning (and the tags) stream
straight through (docs/field.md#fm-split-tags).
"""

from __future__ import annotations

import re

from scrubcheck.scrubbers.broken._simple import NAMES

_BLOCK = re.compile(
    r"<(" + "|".join(NAMES) + r")>.*?</\1>", re.IGNORECASE | re.ASCII | re.DOTALL
)


class StatelessScrubber:
    def __init__(self, **context: object) -> None:
        pass

    def feed(self, delta: str) -> str:
        return _BLOCK.sub("", delta)

    def flush(self) -> str:
        return ""
