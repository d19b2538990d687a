"""What a format file says, as values (formats/README.md describes the file).

These are plain data: `scrubcheck.vocabulary` turns a format's delimiters into the
tags every scanner reads, and `scrubcheck.claims` turns a format into a conformance
class. Nothing here decides what a kind does.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

#: kinds that open a section closed by one of their `closes` (SPEC R-VOCAB-3): a
#: reasoning pair, the same with special tokens (exact case in its own class), and a
#: tool section (hidden like reasoning: tool calls are never visible)
PAIR_KINDS: tuple[str, ...] = ("pair", "special-token-pair", "tool-section")

Generic = Literal["base", "feature", "none"]
Case = Literal["ascii-insensitive", "exact"]
Prefill = Literal["never", "sometimes", "always"]


@dataclass(frozen=True)
class Source:
    """A public page that shows the format, and what it shows."""

    url: str
    shows: str


@dataclass(frozen=True)
class Template:
    """What the format's chat template does to the start of a stream (SPEC 5a, R-ORPHAN-2).

    `prefills_open`: whether the template writes the open tag into the prompt, so the
    stream starts inside the block: never, sometimes (a flag such as enable_thinking
    decides) or always. `may_skip_reasoning`: whether the model may answer directly
    after a pre-filled open tag, without closing it (R-SKIP-1)."""

    prefills_open: Prefill = "never"
    may_skip_reasoning: bool = False


@dataclass(frozen=True)
class ChannelGrammar:
    """A message grammar (SPEC section 2a): headers that decide what follows them.

    A header runs from `start` or `channel` to `message`; what it says (role, channel,
    recipient: section 2a) decides whether the message after it is answer text; the
    message ends at one of `ends`. `constrain` is a separator inside headers and a
    marker outside them. The kind reads headers as harmony writes them, so its token
    texts are harmony's (HARMONY_TOKENS; the reading refuses others)."""

    start: str
    channel: str
    message: str
    constrain: str
    ends: tuple[str, ...]


#: the token texts the channel-grammar kind reads headers with (SPEC section 2a)
HARMONY_TOKENS = ChannelGrammar("<|start|>", "<|channel|>", "<|message|>", "<|constrain|>",
                                ("<|end|>", "<|call|>", "<|return|>"))


@dataclass(frozen=True)
class Delimiter:
    """One entry of a format's `delimiters` list.

    `kind` is one of PAIR_KINDS (`open` and `closes`), `marker` (`text`),
    `answer-wrapper` (`open` and `closes[0]`, both removed like markers, the content
    kept) or `channel-grammar` (`grammar`). `ends_reasoning` (a tool section only):
    its open also ends a reasoning block of the format it stands in (SPEC R-BLOCK-5),
    as most servers' parsers read a tool call the model starts while reasoning."""

    kind: str
    open: str = ""
    closes: tuple[str, ...] = ()
    text: str = ""
    grammar: ChannelGrammar | None = None
    line: int = 0
    ends_reasoning: bool = False

    def texts(self) -> tuple[str, ...]:
        """Every delimiter text this entry adds to a vocabulary."""
        if self.grammar is not None:
            g = self.grammar
            return (g.start, g.channel, g.message, g.constrain, *g.ends)
        if self.text:
            return (self.text,)
        return (self.open, *self.closes)


@dataclass(frozen=True)
class Format:
    """One model family's reasoning format: a file of the registry.

    `generic` says what the format is in the generic conformance class: `base` (always
    on: the default family), `feature` (enabled by a stream's context, SPEC
    R-VOCAB-3) or `none` (a conformance class of its own only). `case` is the
    letter-case rule inside its own class; the generic class matches every delimiter
    ASCII case-insensitively."""

    name: str
    title: str
    sources: tuple[Source, ...]
    generic: Generic
    case: Case
    template: Template
    delimiters: tuple[Delimiter, ...]
    models: tuple[str, ...] = ()
    sample: str = ""
    order: int | None = None
    file: str = "<memory>"
    line: int = 0

    @property
    def sort_key(self) -> tuple[int, str]:
        """Where the format stands in the registry: its `order`, then its name."""
        return (self.order if self.order is not None else 1_000_001, self.name)

    @property
    def pairs(self) -> tuple[Delimiter, ...]:
        return tuple(d for d in self.delimiters if d.kind in PAIR_KINDS)

    @property
    def grammar(self) -> ChannelGrammar | None:
        return next((d.grammar for d in self.delimiters if d.grammar is not None), None)

    def texts(self) -> tuple[str, ...]:
        """Every delimiter text of the format, each once, in file order."""
        return tuple(dict.fromkeys(t for d in self.delimiters for t in d.texts()))
