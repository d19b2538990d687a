"""vLLM's registered reasoning parsers, driven as its chat server drives them.

vLLM keeps its reasoning-parser names in `vllm.reasoning`'s lazy registry
(`ReasoningParserManager`); `vllm serve --reasoning-parser NAME` has
`vllm.parser.ParserManager.get_parser(reasoning_parser_name=NAME)` compose the
parser, and the streaming chat path calls `parse_delta(text, token_ids, request,
finished=...)` per chunk. This driver does the same with the installed package,
without its engine: the stand-ins of `../../vllm_peer.py` replace only what
imports torch or the engine, and the tokenizer is made up in memory (byte level,
the harness's tags as single added tokens), so both the text-engine parsers and
the ones that decide on token ids see a whole tag as the model's one token.

A stream's pre-fill reaches the parser as the request's `chat_template_kwargs`,
with both spellings the parsers read for "thinking on" (`enable_thinking`,
`thinking`), true when the template wrote the open.
"""

from __future__ import annotations

import sys
import types
from functools import cache
from importlib import metadata
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent.parent))
from vllm_peer import stand_ins, tokenizer_with  # noqa: E402

PACKAGE = "vllm"
_REQUEST = types.SimpleNamespace(include_reasoning=True, tools=None, tool_choice=None,
                                 messages=[], parallel_tool_calls=True)


def version() -> str:
    return metadata.version(PACKAGE)


@cache
def _loaded() -> None:
    stand_ins()


def names() -> list[dict]:
    """Every name the installed release registers, with the class it selects."""
    _loaded()
    from vllm.reasoning import ReasoningParserManager

    entries = []
    for name in sorted(ReasoningParserManager.list_registered()):
        try:
            cls = ReasoningParserManager.get_reasoning_parser(name)
            code = f"{cls.__module__}.{cls.__qualname__}"
        except Exception as exc:  # noqa: BLE001 -- the name is listed with why
            code = f"cannot be imported: {type(exc).__name__}: {exc}"[:300]
        entries.append({"name": name, "code": code})
    return entries


@cache
def _tokenizer(tags: tuple[str, ...]):
    return tokenizer_with(tags)


def open_stream(name: str, tags: list[str], context: dict):
    _loaded()
    from vllm.parser import parser_manager

    tokenizer = _tokenizer(tuple(tags))
    parser_cls = parser_manager.ParserManager.get_parser(reasoning_parser_name=name)
    thinking = bool(context.get("starts_in_reasoning"))
    flags = {"enable_thinking": thinking, "thinking": thinking}

    def make():
        return parser_cls(tokenizer, None, model_config=None, chat_template_kwargs=flags)

    def ids(text: str) -> list[int]:
        return tokenizer.encode(text, add_special_tokens=False) if text else []

    def channels(message) -> tuple[str, str]:
        if message is None:
            return "", ""
        return message.reasoning or "", message.content or ""

    class Stream:
        def __init__(self) -> None:
            self.parser = make()

        def feed(self, delta: str) -> tuple[str, str]:
            return channels(self.parser.parse_delta(delta, ids(delta), _REQUEST,
                                                    finished=False))

        def flush(self) -> tuple[str, str]:
            return channels(self.parser.parse_delta("", [], _REQUEST, finished=True))

    return Stream()
