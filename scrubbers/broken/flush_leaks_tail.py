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
from scrubcheck.scrubbers.reference.scrubber import BLOCK

TAIL = 23


class FlushLeaksTailScrubber(ReferenceScrubber):
    _tail = ""

    def _enter_block(self, closes, recover: bool = True) -> None:  # type: ignore[no-untyped-def]
        self._tail = ""
        super()._enter_block(closes, recover)

    def _keep(self, text: str) -> None:
        self._tail = (self._tail + text)[-TAIL:]
        super()._keep(text)

    def flush(self, finish_reason: str | None = None) -> str:
        reason = self._finish_reason if finish_reason is None else finish_reason
        recovers = self._inline_answer and reason == "stop" and self._block_has_newline
        held = self._tail if self._mode == BLOCK and not recovers else ""
        return super().flush(finish_reason) + held  # the bug: the held tail is released
