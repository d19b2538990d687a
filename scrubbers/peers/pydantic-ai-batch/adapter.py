"""pydantic-ai's splitter for non-streamed responses with thinking tags in the text.

The answer is what a caller reads, ModelResponse.text over the parts it made
(adjacent text parts joined, others separated as pydantic-ai does); the
reasoning channel is the thinking parts.
"""

import os
import sys

sys.path.insert(0, os.environ["SCRUBCHECK_PEERLOOP_DIR"])
from peerloop import serve  # noqa: E402,I001

from pydantic_ai._thinking_part import split_content_into_text_and_thinking  # noqa: E402
from pydantic_ai.messages import ModelResponse, ThinkingPart  # noqa: E402

TAGS = ("<think>", "</think>")  # pydantic-ai's default thinking tags


def split(text: str) -> tuple[str, str]:
    parts = split_content_into_text_and_thinking(text, TAGS)
    reasoning = "".join(p.content for p in parts if isinstance(p, ThinkingPart))
    return reasoning, ModelResponse(parts=parts).text or ""


serve(lambda context: split, kind="batch-splitter", package="pydantic-ai-slim")
