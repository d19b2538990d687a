"""drops_blank_deltas: skips deltas that hold only whitespace.

Field bug modelled: an SSE loop does `if not delta.strip(): continue` to skip
keep-alive chunks, and so drops the "\\n\\n" delta between a paragraph and the
next one, or the space between two words that arrived alone
(docs/field.md#fm-whitespace: eaten whitespace, glued words; SPEC R-FID-1,
R-WS-1, R-CHUNK-1).
Everything else is the reference scrubber.
"""

from __future__ import annotations

from scrubcheck.scrubbers.reference import ReferenceScrubber


class DropsBlankDeltasScrubber(ReferenceScrubber):
    def feed(self, delta: str) -> str:
        if delta and not delta.strip():
            return ""  # the bug: whitespace-only deltas are treated as keep-alives
        return super().feed(delta)
