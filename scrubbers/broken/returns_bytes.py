"""returns_bytes: flush() returns what it held back as bytes instead of str.

Field bug modelled: a scrubber written for a byte-oriented SSE writer encodes
what it held back at end of stream (say the `<thi` of an answer that ends in a
partial tag); callers that concatenate str then crash or print `b'...'`. When
nothing was held back it returns "" like a correct scrubber, so only streams
that end in a held partial tag show the bug. SPEC R-ROBUST-1 requires str from
feed() and flush() (docs/field.md#fm-robustness).
"""

from __future__ import annotations

from scrubcheck.scrubbers.broken._simple import SimpleScrubber


class ReturnsBytesScrubber(SimpleScrubber):
    def flush(self) -> str | bytes:  # type: ignore[override]
        held = super().flush()
        return held.encode("utf-8") if held else held  # the bug: what was held goes out as bytes
