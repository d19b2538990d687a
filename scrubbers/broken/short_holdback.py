"""short_holdback: holds back at most 7 characters of a partial tag at the end of a delta.

Field bug modelled: a streaming filter keeps back only what could still become
`<think>` or `</think>` (7 characters). A longer tag split across deltas after
its seventh character (`<reasonin` | `g>`, `</thinki` | `ng>`) is released as
text, so the tag never forms and the block's reasoning streams out
(docs/field.md#fm-split-tags: a splitter sized for `<think>` that leaked
`<reasoning>`).
Everything else is the reference scrubber.
"""

from __future__ import annotations

from scrubcheck.scrubbers.reference import ReferenceScrubber
from scrubcheck.scrubbers.reference.hooks import Quirks

HOLD = len("<think>")


class ShortHoldbackScrubber(ReferenceScrubber):
    quirks = Quirks(max_holdback=HOLD)  # the bug: a fixed, short hold-back
