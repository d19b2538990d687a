"""hermes-agent's gateway display filter: what a chat platform is shown while streaming.

The filter is two private methods of GatewayStreamConsumer that read and write
three fields; the consumer is built without its constructor (which wants a
platform adapter and a message) and only those fields are set. The visible
output of a call is what it appended to the accumulated display text.
"""

import os
import sys

sys.path.insert(0, os.environ["SCRUBCHECK_PEERLOOP_DIR"])
from peerloop import serve  # noqa: E402,I001

from gateway.stream_consumer import GatewayStreamConsumer  # noqa: E402


class DisplayFilter:
    def __init__(self) -> None:
        consumer = GatewayStreamConsumer.__new__(GatewayStreamConsumer)
        consumer._accumulated = ""
        consumer._in_think_block = False
        consumer._think_buffer = ""
        self.consumer = consumer
        self.shown = 0

    def _new_text(self) -> str:
        text = self.consumer._accumulated[self.shown:]
        self.shown = len(self.consumer._accumulated)
        return text

    def feed(self, delta: str) -> str:
        self.consumer._filter_and_accumulate(delta)
        return self._new_text()

    def flush(self) -> str:
        self.consumer._flush_think_buffer()
        return self._new_text()


serve(lambda context: DisplayFilter(), kind="stream", package="hermes-agent")
