"""Shared by the four SGLang peers: import SGLang's reasoning parser without its engine.

SGLang's package __init__ files import torch, triton and numpy-heavy engine
code; the reasoning parser itself needs none of it. Empty package modules for
`sglang`, `sglang.srt` and `sglang.srt.utils` stand in for those __init__
files (their submodules still load from the installed package), then the real
ReasoningParser is imported. Runs inside the peer's environment (stdlib only
here; SGLang from the environment).
"""

import os
import sys
import types

from peerloop import serve


def _stand_in_packages() -> None:
    site = next(p for p in sys.path if p.endswith("site-packages"))
    for name in ("sglang", "sglang.srt", "sglang.srt.utils"):
        module = types.ModuleType(name)
        module.__path__ = [os.path.join(site, *name.split("."))]
        sys.modules[name] = module


def serve_parser(model_type: str, streaming: bool) -> None:
    """Serve ReasoningParser(model_type) as a streaming or a batch splitter."""
    _stand_in_packages()
    from sglang.srt.parser.reasoning_parser import ReasoningParser

    def make(context: dict) -> ReasoningParser:
        kwargs = {"stream_reasoning": True}
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
