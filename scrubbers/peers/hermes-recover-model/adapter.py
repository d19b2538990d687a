"""A MODEL (our code) of the flush() change proposed for hermes' StreamingThinkScrubber.

The proposal: when the stream ends inside an unclosed block, emit the text
after the block's last newline, on the theory that the model wrote its answer
there. The real 0.19.0 class does everything else; this subclass only records
the raw stream so that flush() can find the unclosed block's text, which the
real class has already thrown away. Labelled a model wherever it is reported.
"""

import os
import sys

sys.path.insert(0, os.environ["SCRUBCHECK_PEERLOOP_DIR"])
from peerloop import serve  # noqa: E402,I001

from agent.think_scrubber import StreamingThinkScrubber  # noqa: E402


class RecoverOnFlush(StreamingThinkScrubber):
    def __init__(self) -> None:
        super().__init__()
        self._raw: list[str] = []

    def feed(self, text: str) -> str:
        self._raw.append(text)
        return super().feed(text)

    def _unclosed_block_text(self) -> str:
        """The reasoning of the unclosed block: after the first open tag that follows
        the last close tag of the stream (tags as the real class knows them)."""
        raw = "".join(self._raw)
        lower = raw.lower()
        last_close = max((lower.rfind(t.lower()) + len(t) for t in self._CLOSE_TAGS
                          if t.lower() in lower), default=0)
        opens = [(lower.find(t.lower(), last_close), len(t)) for t in self._OPEN_TAGS]
        opens = [(i, n) for i, n in opens if i != -1]
        if not opens:
            return ""
        index, length = min(opens)
        return raw[index + length:]

    def flush(self) -> str:
        recovered = ""
        if self._in_block:
            block = self._unclosed_block_text()
            if "\n" in block:
                recovered = block.rsplit("\n", 1)[1]
        self._raw = []
        return super().flush() + recovered


serve(lambda context: RecoverOnFlush(), kind="stream", package="hermes-agent")
