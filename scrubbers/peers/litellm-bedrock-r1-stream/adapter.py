"""litellm's Bedrock DeepSeek-R1 stream parser, fed Bedrock generation chunks.

It assumes the stream starts inside the reasoning (a fixed mode: the manifest
says so, and other streams are UNSUPPORTED). flush() sends the final chunk.
"""

import os
import sys

sys.path.insert(0, os.environ["SCRUBCHECK_PEERLOOP_DIR"])
from peerloop import serve  # noqa: E402,I001

from litellm.llms.bedrock.chat.invoke_transformations.amazon_deepseek_transformation import (  # noqa: E402,E501
    AmazonDeepseekR1ResponseIterator,
)


class Stream:
    def __init__(self) -> None:
        self.parser = AmazonDeepseekR1ResponseIterator(streaming_response=iter(()),
                                                       sync_stream=True)

    def _chunk(self, generation: str, stop_reason: str | None) -> tuple[str, str]:
        chunk = {"generation": generation, "prompt_token_count": 1,
                 "generation_token_count": 1, "stop_reason": stop_reason}
        delta = self.parser.chunk_parser(chunk).choices[0].delta
        # litellm's Delta has no reasoning_content attribute when none was set
        return getattr(delta, "reasoning_content", None) or "", delta.content or ""

    def feed(self, delta: str) -> tuple[str, str]:
        return self._chunk(delta, None)

    def flush(self) -> tuple[str, str]:
        return self._chunk("", "stop")


serve(lambda context: Stream(), kind="stream-splitter", package="litellm")
