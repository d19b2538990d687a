"""litecc-proxy's streamed path: the SSE rewriter a `"stream": true` request goes through.

`POST /v1/messages` with `"stream": true` relays LiteLLM's Anthropic events through
`StreamState.process_event`, which feeds each text block's `text_delta`s to
`process_buffer` and emits `thinking` and `text` blocks. This adapter plays that
upstream: one text block (`content_block_start`), one `text_delta` event per delta,
and `content_block_stop` at flush; it reads the events the proxy writes back, the
`text_delta`s being the answer and the `thinking_delta`s the reasoning. A new
`StreamState` is made for each response, as the proxy makes one per request, with
the server's default settings (`think_enabled` on: `PROXY_THINK` unset).
"""

import json
import logging
import os
import sys

sys.path.insert(0, os.environ["SCRUBCHECK_PEERLOOP_DIR"])
from peerloop import serve  # noqa: E402,I001

from litecc_proxy.server import StreamState  # noqa: E402
from litecc_proxy.settings import Settings  # noqa: E402

# one warning per orphan close would fill the stderr log; the behaviour is unchanged
logging.getLogger("litecc_proxy").setLevel(logging.ERROR)


def _read(events: list[str]) -> tuple[str, str]:
    """(reasoning, answer) of the SSE events the proxy wrote."""
    reasoning, answer = [], []
    for event in events:
        data = json.loads(event.split("data: ", 1)[1])
        delta = data.get("delta") or {}
        if delta.get("type") == "thinking_delta":
            reasoning.append(delta["thinking"])
        elif delta.get("type") == "text_delta":
            answer.append(delta["text"])
    return "".join(reasoning), "".join(answer)


class ProxiedResponse:
    """One streamed response as the proxy relays it."""

    def __init__(self) -> None:
        self.state = None

    def _begin(self) -> None:
        self.state = StreamState(think_enabled=Settings().think_enabled)
        self.state.process_event("content_block_start", {
            "type": "content_block_start", "index": 0,
            "content_block": {"type": "text", "text": ""}})

    def feed(self, delta: str) -> tuple[str, str]:
        if self.state is None:
            self._begin()
        return _read(self.state.process_event("content_block_delta", {
            "type": "content_block_delta", "index": 0,
            "delta": {"type": "text_delta", "text": delta}}))

    def flush(self) -> tuple[str, str]:
        if self.state is None:
            self._begin()
        events = self.state.process_event("content_block_stop",
                                          {"type": "content_block_stop", "index": 0})
        self.state = None  # the next stream is the next request
        return _read(events)


serve(lambda context: ProxiedResponse(), kind="stream-splitter", package="litecc-proxy")
