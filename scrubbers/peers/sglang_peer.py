"""Shared by the SGLang peers: import SGLang's reasoning parser without its engine.

SGLang's package __init__ files import torch, triton and numpy-heavy engine
code; the reasoning parser itself needs none of it. Empty package modules for
`sglang`, `sglang.srt` and `sglang.srt.utils` stand in for those __init__
files (their submodules still load from the installed package), then the real
ReasoningParser is imported. Runs inside the peer's environment (stdlib only
here; SGLang from the environment).

The parser is built as SGLang's chat server builds it per request
(serving_chat.py): `force_reasoning` from the template's pre-fill
(`starts_in_reasoning`), and the request's `chat_template_kwargs`, where a
caller who knows the model may answer without reasoning sets
`force_nonempty_content` (sglang#20284) -- the context's `may_skip_reasoning`.
The server flushes the parser (parse_stream_end) when the last chunk carries a
finish reason; the parser never reads which one, so neither does this adapter.
"""

import os
import sys
import types

from peerloop import serve


def stand_in_packages() -> None:
    site = next(p for p in sys.path if p.endswith("site-packages"))
    for name in ("sglang", "sglang.srt", "sglang.srt.utils"):
        module = types.ModuleType(name)
        module.__path__ = [os.path.join(site, *name.split("."))]
        sys.modules[name] = module


class Request:
    """What ReasoningParser reads of a chat request: its chat_template_kwargs."""

    def __init__(self, context: dict) -> None:
        self.chat_template_kwargs = (
            {"force_nonempty_content": True} if context.get("may_skip_reasoning") else {})


def serve_parser(model_type: str, streaming: bool) -> None:
    """Serve ReasoningParser(model_type) as a streaming or a batch splitter."""
    stand_in_packages()
    from sglang.srt.parser.reasoning_parser import ReasoningParser

    def make(context: dict) -> ReasoningParser:
        kwargs = {"stream_reasoning": True, "request": Request(context)}
        if model_type != "deepseek-r1":  # that detector always starts in reasoning
            kwargs["force_reasoning"] = bool(context.get("starts_in_reasoning"))
        return ReasoningParser(model_type, **kwargs)

    class Stream:
        def __init__(self, context: dict) -> None:
            self.parser = make(context)

        def feed(self, delta: str) -> tuple[str, str]:
            reasoning, normal = self.parser.parse_stream_chunk(delta)
            return reasoning or "", normal or ""

        def flush(self) -> tuple[str, str]:
            reasoning, normal = self.parser.parse_stream_end()
            return reasoning or "", normal or ""

    def batch(context: dict):
        def split(text: str) -> tuple[str, str]:
            reasoning, normal = make(context).parse_non_stream(text)
            return reasoning or "", normal or ""
        return split

    if streaming:
        serve(Stream, kind="stream-splitter", package="sglang")
    else:
        serve(batch, kind="batch-splitter", package="sglang")
