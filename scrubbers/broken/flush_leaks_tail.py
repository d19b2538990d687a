"""flush_leaks_tail: at end of stream, shows the last 23 characters of an unclosed block.

Field bug modelled: a display filter holds back the end of a block while it
waits for the close tag; when the stream ends inside the block it releases that
buffer as if it were answer text (docs/field.md#fm-unclosed; observed in the
hermes CLI display filter, scrubbers/peers/hermes-cli/peer.toml). A
truncated stream then shows the end of its reasoning (SPEC R-UNCLOSED-1,
R-TRUNC-1). Everything else is the reference scrubber.
"""

from __future__ import annotations

from scrubcheck.scrubbers.reference import ReferenceScrubber
from scrubcheck.scrubbers.reference.hooks import Quirks

TAIL = 23


class FlushLeaksTailScrubber(ReferenceScrubber):
    quirks = Quirks(flush_leaks_block_tail=TAIL)  # the bug: the held tail is released
