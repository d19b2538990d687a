"""splice_blind: releases a partial tag as soon as a removed piece follows it.

Field bug modelled: the scrubber holds back a partial tag at the end of a
delta, but when a block or tag is removed right after it, it flushes the
partial as text first. `<thi<think>x</think>nk>secret</think>` then shows
`<think>secret`: a tag formed by joining the text around the removed block, and
the reasoning of the block it opens (SPEC R-TAG-1). Everything else is the
reference scrubber.
"""

from __future__ import annotations

from scrubcheck.scrubbers.reference import ReferenceScrubber
from scrubcheck.scrubbers.reference.hooks import Quirks


class SpliceBlindScrubber(ReferenceScrubber):
    # the bug: what stood before the removed piece is final
    quirks = Quirks(splices_partials=False)
