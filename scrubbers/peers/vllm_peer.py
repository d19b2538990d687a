"""Shared by the vLLM peers: vLLM's response parsers without its engine.

vLLM's serving layer turns a reasoning-parser name into a parser class with
`vllm.parser.ParserManager.get_parser(reasoning_parser_name=...)` and calls
`parse_delta(...)` per streamed chunk and `parse(...)` on a finished output.
These peers do the same with the installed package. What cannot be imported
without torch or the inference engine is replaced, and only that:

- empty package modules for `vllm`, `vllm.utils`, `vllm.parser` and
  `vllm.renderers` (their `__init__` files import torch, the engine or the
  multimodal stack; their submodules still load from the installed package);
  the `vllm.utils` one also offers `random_uuid`, the one name imported from it;
- `vllm.entrypoints.generate.base.protocol` (imports the engine config): a
  `DeltaMessage` container with `content`, `reasoning` and `tool_calls`;
- inert placeholder modules (every name is an empty class) for modules only
  needed for types, tools and structured output: `xgrammar` (imports torch),
  `vllm.sampling_params`, `vllm.transformers_utils.config`,
  `vllm.renderers.chat_utils` and the chat-completion and responses request
  modules (the engine config, torch, PIL);
- the request: an object with `include_reasoning=True`, no tools,
  `tool_choice=None` and no messages.

The tokenizer is built in memory with the `tokenizers` library (no model is
downloaded): byte-level, whose vocabulary holds the model's tags as added
tokens, so that a delta containing a whole tag encodes it as that one token.
"""

import os
import sys
import types
import uuid

from peerloop import serve

#: The tags each parser's model has as single tokens.
TAGS = {
    "deepseek_r1": ("<think>", "</think>"),
    "qwen3": ("<think>", "</think>", "<tool_call>", "</tool_call>"),
}


class _Placeholder:
    """Stands for a class of a replaced module; never used by the parsing path."""

    def __init__(self, *args, **kwargs) -> None:
        pass

    def __class_getitem__(cls, item):
        return cls


class _PlaceholderModule(types.ModuleType):
    def __getattr__(self, name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        made = type(name, (_Placeholder,), {"__module__": self.__name__})
        setattr(self, name, made)
        return made


class DeltaMessage:
    """Stand-in for vLLM's DeltaMessage (a pydantic model there): the same fields."""

    def __init__(self, role=None, content=None, reasoning=None, tool_calls=None) -> None:
        self.role = role
        self.content = content
        self.reasoning = reasoning
        self.tool_calls = list(tool_calls or [])


def stand_ins() -> None:
    site = next(p for p in sys.path if p.endswith("site-packages"))
    for name in ("vllm", "vllm.utils", "vllm.parser", "vllm.renderers"):
        module = types.ModuleType(name)
        module.__path__ = [os.path.join(site, *name.split("."))]
        sys.modules[name] = module
    sys.modules["vllm.utils"].random_uuid = lambda: uuid.uuid4().hex[:16]
    for name in ("xgrammar", "xgrammar.structural_tag", "xgrammar.openai_tool_call_schema",
                 "vllm.sampling_params", "vllm.transformers_utils.config",
                 "vllm.renderers.chat_utils", "vllm.entrypoints.openai.chat_completion.protocol",
                 "vllm.entrypoints.openai.responses.protocol",
                 "vllm.entrypoints.generate.base.protocol"):
        module = _PlaceholderModule(name)
        module.__path__ = []
        sys.modules[name] = module
    sys.modules["vllm.entrypoints.generate.base.protocol"].DeltaMessage = DeltaMessage


def tokenizer_with(tags: tuple[str, ...]):
    """A byte-level tokenizer whose vocabulary holds `tags` as added tokens."""
    from tokenizers import AddedToken, Tokenizer, decoders, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    alphabet = pre_tokenizers.ByteLevel.alphabet()
    model = models.BPE(vocab={c: i for i, c in enumerate(sorted(alphabet))}, merges=[])
    raw = Tokenizer(model)
    raw.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)
    raw.decoder = decoders.ByteLevel()
    raw.add_tokens([AddedToken(tag, normalized=False) for tag in tags])
    return PreTrainedTokenizerFast(tokenizer_object=raw)


def serve_parser(name: str, streaming: bool, token_ids: bool) -> None:
    """Serve the parser vLLM composes for `--reasoning-parser name`.

    With `token_ids`, every delta is also encoded with the tokenizer and its ids
    are passed on, as the server passes the ids of the chunk's tokens; without,
    the parser gets the text only (empty id lists)."""
    stand_ins()
    from vllm.parser import parser_manager

    tokenizer = tokenizer_with(TAGS[name])
    parser_cls = parser_manager.ParserManager.get_parser(reasoning_parser_name=name)
    request = types.SimpleNamespace(include_reasoning=True, tools=None, tool_choice=None,
                                    messages=[], parallel_tool_calls=True)

    def make(context: dict):
        kwargs = {}
        if name == "qwen3":
            kwargs["chat_template_kwargs"] = {
                "enable_thinking": bool(context.get("starts_in_reasoning"))}
        return parser_cls(tokenizer, None, model_config=None, **kwargs)

    def ids(text: str) -> list[int]:
        return tokenizer.encode(text, add_special_tokens=False) if token_ids and text else []

    def channels(message) -> tuple[str, str]:
        if message is None:
            return "", ""
        return message.reasoning or "", message.content or ""

    class Stream:
        def __init__(self, context: dict) -> None:
            self.context = context
            self.parser = make(context)

        def feed(self, delta: str) -> tuple[str, str]:
            return channels(self.parser.parse_delta(delta, ids(delta), request,
                                                    finished=False))

        def flush(self) -> tuple[str, str]:
            out = channels(self.parser.parse_delta("", [], request, finished=True))
            self.parser = make(self.context)  # the server builds one parser per request
            return out

    def batch(context: dict):
        def split(text: str) -> tuple[str, str]:
            reasoning, content, _ = make(context).parse(text, request,
                                                        model_output_token_ids=ids(text))
            return reasoning or "", content or ""
        return split

    if streaming:
        serve(Stream, kind="stream-splitter", package="vllm")
    else:
        serve(batch, kind="batch-splitter", package="vllm")
