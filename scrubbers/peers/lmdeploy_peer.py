"""Shared by the lmdeploy peers: its response parser without its engine.

lmdeploy's package __init__ files import torch and the inference engines; the
response parser needs none of them. An empty package module stands in for
`lmdeploy` and `lmdeploy.serve`, and `lmdeploy.utils` (which imports the
engine stack) is replaced by a module offering the one function the parser
uses, `get_logger` (the standard logging.getLogger). Everything else is the
installed package: BaseResponseParser with the `default` reasoning parser, as
`lmdeploy serve --reasoning-parser default` sets it up.
"""

import logging
import os
import sys
import types

from peerloop import serve


def stand_ins() -> None:
    site = next(p for p in sys.path if p.endswith("site-packages"))
    for name in ("lmdeploy", "lmdeploy.serve"):
        module = types.ModuleType(name)
        module.__path__ = [os.path.join(site, *name.split("."))]
        sys.modules[name] = module
    utils = types.ModuleType("lmdeploy.utils")
    utils.get_logger = logging.getLogger
    sys.modules["lmdeploy.utils"] = utils


def serve_parser(streaming: bool) -> None:
    """Serve lmdeploy's default response parser as a streaming or a batch splitter.

    The stream's starts_in_reasoning becomes the request's enable_thinking (the
    default parser starts in reasoning unless thinking is switched off)."""
    stand_ins()
    from lmdeploy.serve.openai.protocol import ChatCompletionRequest
    from lmdeploy.serve.parsers.response_parser import BaseResponseParser

    BaseResponseParser.set_parsers("default")

    def make(context: dict) -> BaseResponseParser:
        request = ChatCompletionRequest(
            model="scrubcheck", messages=[{"role": "user", "content": "scrubcheck"}],
            chat_template_kwargs={"enable_thinking": bool(context.get("starts_in_reasoning"))})
        return BaseResponseParser(request)

    def channels(messages) -> tuple[str, str]:
        reasoning = "".join(m.reasoning_content or "" for m, _ in messages)
        return reasoning, "".join(m.content or "" for m, _ in messages)

    class Stream:
        def __init__(self, context: dict) -> None:
            self.context = context
            self.parser = make(context)

        def feed(self, delta: str) -> tuple[str, str]:
            return channels(self.parser.stream_chunk(delta, []))

        def flush(self) -> tuple[str, str]:
            out = channels(self.parser.stream_chunk("", [], final=True))
            self.parser = make(self.context)  # lmdeploy builds one parser per request
            return out

    def batch(context: dict):
        def split(text: str) -> tuple[str, str]:
            content, _, reasoning = make(context).parse_complete(text)
            return reasoning or "", content or ""
        return split

    if streaming:
        serve(Stream, kind="stream-splitter", package="lmdeploy")
    else:
        serve(batch, kind="batch-splitter", package="lmdeploy")
