"""litellm's Ollama chat stream parser, fed Ollama chunks whose content is each delta.

flush() sends the final chunk (done: true) that ends every Ollama stream.
"""

import os
import sys

sys.path.insert(0, os.environ["SCRUBCHECK_PEERLOOP_DIR"])
from peerloop import serve  # noqa: E402,I001

from litellm.llms.ollama.chat.transformation import (  # noqa: E402
    OllamaChatCompletionResponseIterator,
)


class Stream:
    def __init__(self) -> None:
        self.parser = OllamaChatCompletionResponseIterator(streaming_response=iter(()),
                                                           sync_stream=True)

    def _chunk(self, content: str, done: bool) -> tuple[str, str]:
        chunk = {"model": "scrubcheck", "created_at": "2026-01-01T00:00:00Z",
                 "message": {"role": "assistant", "content": content}, "done": done}
        if done:
            chunk.update(done_reason="stop", prompt_eval_count=1, eval_count=1)
        delta = self.parser.chunk_parser(chunk).choices[0].delta
        # litellm's Delta has no reasoning_content attribute when none was set
        return getattr(delta, "reasoning_content", None) or "", delta.content or ""

    def feed(self, delta: str) -> tuple[str, str]:
        return self._chunk(delta, False)

    def flush(self) -> tuple[str, str]:
        return self._chunk("", True)


serve(lambda context: Stream(), kind="stream-splitter", package="litellm")
