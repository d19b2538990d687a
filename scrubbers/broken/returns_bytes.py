"""returns_bytes: flush() returns bytes instead of str.

Field bug modelled: a scrubber written for a byte-oriented SSE writer encodes
what it held back at end of stream; callers that concatenate str then crash
or print `b'...'`. SPEC R-ROBUST-1 requires str from feed() and flush().
"""

from __future__ import annotations

from scrubcheck.scrubbers.broken._simple import SimpleScrubber


class ReturnsBytesScrubber(SimpleScrubber):
    def flush(self) -> bytes:  # type: ignore[override]
        return super().flush().encode("utf-8")
