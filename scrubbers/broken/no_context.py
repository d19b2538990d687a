"""no_context: a good-looking scrubber whose factory takes no arguments.

Field bug modelled: the scrubber cannot be told that the chat template
pre-filled `<think>` (or that the gateway writes the answer inside an unclosed
block), so on such streams it shows the reasoning before the first `</think>`.
The harness cannot deliver that context, so those scenarios are UNSUPPORTED
for it (counted and shown, never passed), per SPEC R-CTX-1.
"""

from __future__ import annotations

from scrubcheck.scrubbers.broken._simple import SimpleScrubber


class NoContextScrubber(SimpleScrubber):
    def __init__(self) -> None:
        super().__init__()
