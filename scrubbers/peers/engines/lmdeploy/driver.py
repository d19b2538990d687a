"""lmdeploy's registered reasoning parsers, driven as its chat server drives them.

lmdeploy registers its reasoning parsers in an mmengine registry
(`ReasoningParserManager`, filled when its package is imported) and keeps three
deprecated names that select `default` (`LEGACY_REASONING_PARSER_NAMES`). For
`lmdeploy serve --reasoning-parser NAME` the server calls
`BaseResponseParser.set_parsers(NAME)` once and builds one response parser per
request, calling `stream_chunk(text, token_ids)` per chunk and once more with
`final=True`. This driver does the same with the installed package and the
stand-ins of `../../lmdeploy_peer.py`. A stream's pre-fill is the request's
`chat_template_kwargs` thinking flags (`enable_thinking`, `thinking`).
"""

from __future__ import annotations

import sys
from functools import cache
from importlib import metadata
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent.parent))
from lmdeploy_peer import stand_ins  # noqa: E402

PACKAGE = "lmdeploy"


def version() -> str:
    return metadata.version(PACKAGE)


@cache
def _loaded():
    stand_ins()
    from lmdeploy.serve.parsers import reasoning_parser
    from lmdeploy.serve.parsers.response_parser import BaseResponseParser

    reasoning_parser.ReasoningParserManager.import_from_location()
    return reasoning_parser, BaseResponseParser


def names() -> list[dict]:
    """Every registered name, the deprecated ones with the code they select."""
    module, _ = _loaded()
    manager = module.ReasoningParserManager
    entries = [{"name": name, "code": f"{cls.__module__}.{cls.__qualname__}"}
               for name, cls in sorted(manager.module_dict.items())]
    default = manager.module_dict["default"]
    entries += [{"name": name, "code": f"{default.__module__}.{default.__qualname__}"}
                for name in module.LEGACY_REASONING_PARSER_NAMES]
    return entries


def open_stream(name: str, tags: list[str], context: dict):
    _, response_parser = _loaded()
    from lmdeploy.serve.openai.protocol import ChatCompletionRequest

    response_parser.set_parsers(name)
    thinking = bool(context.get("starts_in_reasoning"))
    request = ChatCompletionRequest(
        model="scrubcheck", messages=[{"role": "user", "content": "scrubcheck"}],
        chat_template_kwargs={"enable_thinking": thinking, "thinking": thinking})
    parser = response_parser(request)

    def channels(messages) -> tuple[str, str]:
        reasoning = "".join(m.reasoning_content or "" for m, _ in messages)
        return reasoning, "".join(m.content or "" for m, _ in messages)

    class Stream:
        def feed(self, delta: str) -> tuple[str, str]:
            return channels(parser.stream_chunk(delta, []))

        def flush(self) -> tuple[str, str]:
            return channels(parser.stream_chunk("", [], final=True))

    return Stream()
