"""pydantic-ai's splitter for non-streamed responses with thinking tags in the text.

The answer is what a caller reads, ModelResponse.text over the parts it made
(adjacent text parts joined, others separated as pydantic-ai does); the
reasoning channel is the thinking parts. A caller's pair (context `delimiters`)
is the model profile's `thinking_tags`, which replaces the default pair, as it
does for pydantic-ai's users; the manifest lets only one pair through.
"""

import os
import sys

sys.path.insert(0, os.environ["SCRUBCHECK_PEERLOOP_DIR"])
from caller_pairs import one_pair  # noqa: E402,I001
from peerloop import serve  # noqa: E402,I001

from pydantic_ai._thinking_part import split_content_into_text_and_thinking  # noqa: E402
from pydantic_ai.messages import ModelResponse, ThinkingPart  # noqa: E402
from pydantic_ai.profiles import DEFAULT_THINKING_TAGS  # noqa: E402


def splitter(context: dict):
    tags = one_pair(context, DEFAULT_THINKING_TAGS)  # the profile's thinking_tags

    def split(text: str) -> tuple[str, str]:
        parts = split_content_into_text_and_thinking(text, tags)
        reasoning = "".join(p.content for p in parts if isinstance(p, ThinkingPart))
        return reasoning, ModelResponse(parts=parts).text or ""
    return split


serve(splitter, kind="batch-splitter", package="pydantic-ai-slim")
