"""SGLang's registered reasoning parsers, driven as its chat server drives them.

SGLang maps each `--reasoning-parser` name to a detector class in
`ReasoningParser.DetectorMap`; its chat server builds one `ReasoningParser(name,
stream_reasoning=True, force_reasoning=..., request=...)` per request and calls
`parse_stream_chunk(text)` per chunk and `parse_stream_end()` at the end. This
driver does the same with the installed package, with the stand-ins of
`../../sglang_peer.py` for the engine-importing package modules. The parsers read
text only, so no tokenizer is involved.

A stream's pre-fill is `force_reasoning` (what the server sets when the template
wrote the open) and the request's `chat_template_kwargs` thinking flags
(`enable_thinking`, `thinking`), as a caller who switched thinking on sends them.
"""

from __future__ import annotations

import sys
from functools import cache
from importlib import metadata
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent.parent))
from sglang_peer import stand_in_packages  # noqa: E402

PACKAGE = "sglang"


class _Request:
    """What ReasoningParser reads of a chat request: its chat_template_kwargs."""

    def __init__(self, thinking: bool) -> None:
        self.chat_template_kwargs = {"enable_thinking": thinking, "thinking": thinking}
        self.continue_final_message = False


def version() -> str:
    return metadata.version(PACKAGE)


@cache
def _parser_class():
    stand_in_packages()
    from sglang.srt.parser.reasoning_parser import ReasoningParser

    return ReasoningParser


def names() -> list[dict]:
    """Every name of the installed release's DetectorMap, with its detector class."""
    detectors = _parser_class().DetectorMap
    return [{"name": name, "code": f"{cls.__module__}.{cls.__qualname__}"}
            for name, cls in sorted(detectors.items())]


def open_stream(name: str, tags: list[str], context: dict):
    thinking = bool(context.get("starts_in_reasoning"))
    parser = _parser_class()(name, stream_reasoning=True, force_reasoning=thinking,
                             request=_Request(thinking))

    class Stream:
        def feed(self, delta: str) -> tuple[str, str]:
            reasoning, normal = parser.parse_stream_chunk(delta)
            return reasoning or "", normal or ""

        def flush(self) -> tuple[str, str]:
            reasoning, normal = parser.parse_stream_end()
            return reasoning or "", normal or ""

    return Stream()
