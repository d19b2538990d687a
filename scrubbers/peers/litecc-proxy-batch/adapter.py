"""litecc-proxy's non-streamed path: `rewrite_think_tags_in_content` on LiteLLM's reply.

A `POST /v1/messages` without `"stream": true` gets LiteLLM's whole Anthropic
message and each `text` content block is rewritten by `split_think_tags` into
`thinking` and `text` blocks. The whole text is one text block here; the answer is
the text blocks' text joined (a client shows them one after another), the
reasoning the thinking blocks'.
"""

import logging
import os
import sys

sys.path.insert(0, os.environ["SCRUBCHECK_PEERLOOP_DIR"])
from peerloop import serve  # noqa: E402,I001

from litecc_proxy.server import rewrite_think_tags_in_content  # noqa: E402

logging.getLogger("litecc_proxy").setLevel(logging.ERROR)


def split(text: str) -> tuple[str, str]:
    blocks = rewrite_think_tags_in_content([{"type": "text", "text": text}])
    reasoning = "".join(b["thinking"] for b in blocks if b["type"] == "thinking")
    answer = "".join(b["text"] for b in blocks if b["type"] == "text")
    return reasoning, answer


serve(lambda context: split, kind="batch-splitter", package="litecc-proxy")
