"""agno's MiniMax stream filter: two module functions over a small state dict.

The state dict has the shape agno's own invoke_stream creates; each delta
travels in a ModelResponse, as in agno.
"""

import os
import sys

sys.path.insert(0, os.environ["SCRUBCHECK_PEERLOOP_DIR"])
from peerloop import serve  # noqa: E402,I001

from agno.models.minimax.minimax import (  # noqa: E402
    _flush_think_filter,
    _strip_inline_think_tags,
)
from agno.models.response import ModelResponse  # noqa: E402


class Stream:
    def __init__(self) -> None:
        self.state = {"in_think": False, "pending": ""}

    def feed(self, delta: str) -> str:
        response = ModelResponse()
        response.content = delta
        _strip_inline_think_tags(response, self.state)
        return response.content or ""

    def flush(self) -> str:
        tail = _flush_think_filter(self.state)
        return (tail.content or "") if tail is not None else ""


serve(lambda context: Stream(), kind="stream", package="agno")
