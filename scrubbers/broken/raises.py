"""raises: counts bytes of each delta and crashes on a lone surrogate.

Field bug modelled: a scrubber that enforces a buffer limit in bytes calls
`delta.encode("utf-8")`, which raises UnicodeEncodeError for a lone surrogate
(which a broken upstream decoder can produce). SPEC R-ROBUST-1 requires
feed() to return str for any input string.
"""

from __future__ import annotations

from scrubcheck.scrubbers.broken._simple import SimpleScrubber


class RaisesScrubber(SimpleScrubber):
    def reset(self) -> None:
        super().reset()
        self.bytes_seen = 0

    def feed(self, delta: str) -> str:
        self.bytes_seen += len(delta.encode("utf-8"))
        return super().feed(delta)
