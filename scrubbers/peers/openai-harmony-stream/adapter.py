"""OpenAI's harmony library: StreamableParser over gpt-oss completion tokens.

`StreamableParser(encoding, role=Role.ASSISTANT)` is how harmony's README parses a
completion as it is sampled: one `process(token)` per token, `last_content_delta`
for the text that token added and `current_channel` / `current_recipient` /
`current_role` to say whose text it is, `process_eos()` at the end. An application
decides what to show from the channel, as harmony's format guide says: `analysis` is
the chain of thought (the reasoning channel here), `final` the answer, and
`commentary` carries tool calls (a message with a recipient: neither channel) and,
without a recipient, a preamble meant to be shown to the user (the answer). A message
of another role or on another channel is shown nowhere.

The parser takes token ids; a delta is text, so each delta is encoded on its own with
the same encoding, special tokens allowed (as the model samples them), and its ids are
processed in order. A harmony token cut over two deltas is then ordinary text to the
parser, which a model never produces: the manifest is token_aligned. `process_eos()`
raises for a completion that ends inside a header (an empty one too); that error is
caught, as servers that drive the parser do, and every other error of the parser is
the stream's.

harmony downloads its o200k vocabulary on first use, and this machine is offline.
litellm's wheel ships the same file (named by the SHA-1 of its download address, as
harmony's tiktoken cache names it): TIKTOKEN_RS_CACHE_DIR points at that folder, after
the file's SHA-256 is checked against o200k_base's.
"""

import hashlib
import importlib.util
import os
import sys
from pathlib import Path

sys.path.insert(0, os.environ["SCRUBCHECK_PEERLOOP_DIR"])
from peerloop import serve  # noqa: E402,I001

#: o200k_base.tiktoken, named as tiktoken caches it, and its published SHA-256
VOCABULARY = "fb374d419588a4632f3f557e76b4b70aebbca790"
VOCABULARY_SHA256 = "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d"


def _vocabulary_dir() -> Path:
    """litellm's tokenizer folder, once its copy of o200k_base is the right file
    (found without importing litellm, which is slow and has side effects)."""
    spec = importlib.util.find_spec("litellm")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("openai-harmony peer: litellm is not installed in this environment; "
                         "its wheel provides the o200k vocabulary harmony needs offline")
    folder = Path(next(iter(spec.submodule_search_locations))) / \
        "litellm_core_utils" / "tokenizers"
    path = folder / VOCABULARY
    try:
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError as exc:
        raise SystemExit(f"openai-harmony peer: cannot read the vocabulary {path}: {exc}") \
            from exc
    if digest != VOCABULARY_SHA256:
        raise SystemExit(f"openai-harmony peer: {path} has SHA-256 {digest}, not o200k_base's "
                         f"{VOCABULARY_SHA256}; refusing to tokenize with it")
    return folder


os.environ["TIKTOKEN_RS_CACHE_DIR"] = str(_vocabulary_dir())

from openai_harmony import (  # noqa: E402
    HarmonyEncodingName,
    HarmonyError,
    Role,
    StreamableParser,
    load_harmony_encoding,
)

ENCODING = load_harmony_encoding(HarmonyEncodingName.HARMONY_GPT_OSS)


def _where(parser: StreamableParser) -> str:
    """Which channel of the application the current message's text goes to."""
    if parser.current_role != Role.ASSISTANT or parser.current_recipient:
        return "none"  # another role, or a tool call
    channel = parser.current_channel
    if channel == "analysis":
        return "reasoning"
    if channel in ("final", "commentary"):
        return "answer"
    return "none"


class Completion:
    """One sampled completion, after the prompt's `<|start|>assistant`."""

    def __init__(self) -> None:
        self.parser = None

    def _parse(self, tokens: list[int]) -> tuple[str, str]:
        if self.parser is None:
            self.parser = StreamableParser(ENCODING, role=Role.ASSISTANT)
        out = {"reasoning": [], "answer": [], "none": []}
        for token in tokens:
            self.parser.process(token)
            delta = self.parser.last_content_delta
            if delta:
                out[_where(self.parser)].append(delta)
        return "".join(out["reasoning"]), "".join(out["answer"])

    def feed(self, delta: str) -> tuple[str, str]:
        return self._parse(ENCODING.encode(delta, allowed_special="all"))

    def flush(self) -> tuple[str, str]:
        parsed = self._parse([])
        parser, self.parser = self.parser, None  # the next stream is the next completion
        try:
            parser.process_eos()
        except HarmonyError:
            # a completion that ends before its header does (empty, or cut by length):
            # every delta was routed as it came, so the application has shown all it will;
            # servers driving the parser log this and go on (the manifest says so)
            pass
        return parsed


serve(lambda context: Completion(), kind="stream-splitter", package="openai-harmony")
