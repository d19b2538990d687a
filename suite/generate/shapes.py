"""Building stream models from a `Chooser`: every SPEC shape, in the vocabulary a scrubber declares.

One builder serves Hypothesis (choices are draws, so its shrinker simplifies the
structure), the fuzzer (choices are input bytes) and replays. Option 0 of every
choice is the simplest, so shrinking heads for one plain block in `<think>`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Protocol

from scrubcheck.formats import Template, registered_formats
from scrubcheck.generate.canary import canary_run
from scrubcheck.generate.chooser import Chooser, chance, more, pick
from scrubcheck.generate.pieces import (
    CODE_WORDS,
    CUSTOM_SETS,
    FENCE_INFO,
    FENCE_LINES,
    HARMONY_CHANNELS,
    HARMONY_CONSTRAINS,
    HARMONY_RECIPIENTS,
    HARMONY_ROLES,
    ODD_UNICODE,
    PUNCTUATION,
    WHITESPACE,
    WORDS,
    answer_literals,
    case_variant,
    foreign_delimiters,
    lookalikes,
)
from scrubcheck.generate.stream_model import (
    CANARY,
    CODE,
    NOISE,
    Answer,
    Block,
    Bypass,
    Harmony,
    Item,
    Marker,
    Orphan,
    Prefill,
    Reasoning,
    RenderedStream,
    Splice,
    StreamModel,
    Unclosed,
    render,
)
from scrubcheck.model import CONTEXT_KEYS, FINISH_REASONS, GENERIC, Context
from scrubcheck.vocabulary import FEATURES, HARMONY_MESSAGE, CustomDelimiter, Tag

ITEM_KINDS = ("prose", "block", "span", "fence", "orphan", "nested", "bypass", "splice", "marker",
              "harmony")
#: what a pre-filled stream whose model skipped reasoning is made of (R-SKIP-1)
SKIP_KINDS = ("prose", "span", "fence", "marker")


class Receiver(Protocol):
    """What `Profile.of` reads of a scrubber (an Adapter has both; the generator sits
    below the adapters and does not import them)."""

    @property
    def supported_features(self) -> frozenset[str]: ...

    @property
    def accepted_context(self) -> frozenset[str]: ...


@dataclass(frozen=True)
class Profile:
    """What streams a scrubber can be given fairly (SPEC R-CTX-1): the features it
    declares and the context keys it accepts. `max_items` bounds a stream's parts.

    `conformance_class` (SPEC section 12) other than generic draws streams within that
    class: its vocabulary is the whole vocabulary (no feature, no caller delimiter),
    pre-fill and skipping follow its format's template, and with an `exact` letter-case
    rule no delimiter is drawn in another case (such a stream is beyond the class)."""

    features: tuple[str, ...] = ()
    context_keys: frozenset[str] = field(default_factory=lambda: frozenset(CONTEXT_KEYS))
    max_items: int = 6
    conformance_class: str = GENERIC

    @classmethod
    def of(cls, *adapters: Receiver, max_items: int = 6,
           conformance_class: str = GENERIC) -> Profile:
        """What every one of `adapters` (scrubcheck Adapters) can receive, in
        `conformance_class`."""
        features = set(FEATURES)
        keys = set(CONTEXT_KEYS)
        for adapter in adapters:
            features &= set(adapter.supported_features)
            keys &= set(adapter.accepted_context)
        if conformance_class != GENERIC:
            features, keys = set(), keys - {"delimiters"}
        return cls(tuple(sorted(features)), frozenset(keys), max_items, conformance_class)

    @property
    def template(self) -> Template | None:
        """The class's chat template (None in the generic class: anything goes)."""
        if self.conformance_class == GENERIC:
            return None
        return registered_formats()[self.conformance_class].template

    def prefill(self, drawn: bool) -> bool:
        """Whether a stream starts in a pre-filled block: as `drawn`, unless the class's
        template always or never writes the open (SPEC section 12's within-class rule
        (c)), and never for a scrubber that does not take the key."""
        if "starts_in_reasoning" not in self.context_keys:
            return False
        template = self.template
        if template is None or template.prefills_open == "sometimes":
            return drawn
        return template.prefills_open == "always"

    @property
    def exact_case(self) -> bool:
        """True when the class matches its delimiters in their own letter case only."""
        return (self.conformance_class != GENERIC
                and registered_formats()[self.conformance_class].case == "exact")


class _Builder:
    def __init__(self, ch: Chooser, profile: Profile) -> None:
        self.ch = ch
        self.profile = profile
        self.serial = 0
        self.labels: list[str] = []

    def label(self, name: str) -> None:
        if name not in self.labels:
            self.labels.append(name)

    # -- context and vocabulary ---------------------------------------------
    def context(self) -> Context:
        ch, keys, features = self.ch, self.profile.context_keys, self.profile.features
        enabled: tuple[str, ...] = ()
        if features:
            mode = ch.below(3)
            if mode == 1:
                enabled = (pick(ch, features),)
            elif mode == 2:
                enabled = tuple(features)
        template = self.profile.template
        prefill = self.profile.prefill("starts_in_reasoning" in keys and chance(ch, 4))
        inline = {"inline_answer", "finish_reason"} <= keys and chance(ch, 4)
        skip = prefill and {"may_skip_reasoning", "finish_reason"} <= keys and chance(ch, 2)
        if template is not None and not template.may_skip_reasoning:
            skip = False
        finish: str | None = "stop"
        # a stream cut off by its length limit is common with or without the flags
        if "finish_reason" in keys and ch.below(2 if inline or skip else 4) == 1:
            finish = pick(ch, FINISH_REASONS[1:])
        delimiters: tuple[CustomDelimiter, ...] = ()
        if "delimiters" in keys and chance(ch, 4):
            delimiters = pick(ch, CUSTOM_SETS)
        return Context(prefill, inline, finish, enabled, skip, delimiters,
                       conformance_class=self.profile.conformance_class)

    def use(self, context: Context) -> None:
        self.vocabulary = context.vocabulary()
        tags = self.vocabulary.tags
        # harmony's header tokens open no plain block: they get their own item
        self.all_opens = [t for t in tags if t.kind == "open"]
        self.opens = [t for t in self.all_opens if not t.header]
        self.closes = [t for t in tags if t.kind == "close"]
        self.block_closes = self.vocabulary.block_closes()
        self.markers = [t for t in tags if t.kind == "marker"]
        #: (reasoning open, tool-section open that ends its block): R-BLOCK-5
        self.tool_ends = [(o, t) for o in self.opens for t in self.vocabulary.closes_of(o)
                          if t.kind == "open"]
        self.message_ends = [t for t in tags if HARMONY_MESSAGE in t.names]
        self.foreign = foreign_delimiters(self.vocabulary)
        self.literals = answer_literals(self.vocabulary)
        self.no_closes = False  # R-SKIP-1 streams hold no close at all
        if context.features:
            self.label("features")
        if context.delimiters:
            self.label("custom")
        if context.may_skip_reasoning and context.starts_in_reasoning:
            self.label("may-skip")

    def text_of(self, tag: Tag) -> str:
        if self.profile.exact_case:
            return tag.text
        style = self.ch.below(4)
        if style:
            self.label("case")
        return case_variant(tag.text, style)

    def close_of(self, tag: Tag) -> Tag:
        """One of the closes that end `tag`'s block (some pairs have several)."""
        return pick(self.ch, [t for t in self.vocabulary.closes_of(tag) if t.kind == "close"])

    # -- reasoning -------------------------------------------------------------
    def canaries(self) -> str:
        count = 1 + self.ch.below(3)
        run = canary_run(self.serial, count)
        self.serial += count
        return run

    def reasoning(self, ends: list[Tag], *, one_line: bool = False, stray: int = 0) -> Reasoning:
        """Canaries and noise that none of `ends` terminates (except inside code)."""
        ch = self.ch
        if not one_line and chance(ch, 10):
            self.label("empty-block")
            return Reasoning(((NOISE, pick(ch, ("", "\n\n", "\n", " "))),))
        parts: list[tuple[str, str]] = [(CANARY, self.canaries())]
        if stray:
            parts.insert(0, (NOISE, "`" * stray))
        ending = {t.text for t in ends}
        while more(ch, len(parts), 7, 3):
            sep = pick(ch, (" ", "", "\n")) if not one_line else pick(ch, (" ", ""))
            parts.append((NOISE, sep))
            kind = ch.below(9)
            if kind == 8:
                parts.extend(self.held_partial(ends, one_line))
            else:
                parts.append(self.reasoning_part(kind, ending, one_line))
        return Reasoning(tuple(p for p in parts if p[1]))

    def held_partial(self, ends: list[Tag], one_line: bool) -> list[tuple[str, str]]:
        """The start of a close the block ends at, cut short: a streaming scrubber holds it
        back as a possible close and must let it go at whatever comes next (R-TAG-1): a
        line feed, a `<`, a code span holding the close (R-CODE-5), or the close itself
        when the part ends the reasoning."""
        ch = self.ch
        closes = [t for t in ends if len(t.text) > 1]
        if not closes:
            return [(CANARY, self.canaries())]
        self.label("held-partial")
        text = self.text_of(pick(ch, closes))
        prefix = text[: 1 + ch.below(len(text) - 1)]
        follow = ch.below(4)
        if follow == 1 and not one_line:
            return [(NOISE, prefix + "\n")]
        if follow == 2:
            return [(NOISE, prefix + "<")]
        if follow == 3 and not one_line and not self.no_closes:
            inner = self.text_of(pick(ch, closes))
            return [(NOISE, prefix), (CODE, f"`{inner}` ")]
        return [(NOISE, prefix)]

    def reasoning_part(self, kind: int, ending: set[str], one_line: bool) -> tuple[str, str]:
        ch = self.ch
        if kind == 1:
            return NOISE, pick(ch, (" ", "\t") if one_line else ("\n", "\n\n", "\r\n", " "))
        # an open is reasoning text inside a block, unless it ends it (R-BLOCK-5)
        inner_opens = [t for t in self.all_opens if t.text not in ending]
        if kind == 2 and inner_opens:
            self.label("open-in-block")
            return NOISE, self.text_of(pick(ch, inner_opens))
        if kind == 3 and not self.no_closes:
            others = [t for t in self.closes if t.text not in ending]
            if others:
                self.label("other-close")
                return NOISE, self.text_of(pick(ch, others))
        if kind in (3, 4):
            options = [*self.foreign, *(lk for lk in lookalikes("think") if "\n" not in lk)]
            self.label("foreign-in-block")
            return NOISE, pick(ch, options)
        if kind == 5 and not one_line and not self.no_closes:
            closes = [t for t in self.closes if t.text in ending]
            self.label("code-in-block")
            inner = self.text_of(pick(ch, closes))
            return CODE, pick(ch, (f" `{inner}` ", f" ``a `{inner}` b`` ", f" ```{inner}``` "))
        if kind == 6 and not one_line:
            return NOISE, pick(ch, ("\n```\n", "\n~~~ py\n"))
        if kind == 7 and self.markers:
            return NOISE, self.text_of(pick(ch, self.markers))
        return CANARY, self.canaries()

    # -- answer text ---------------------------------------------------------
    def prose(self, *, one_line: bool = False) -> str:
        ch = self.ch
        tokens = [pick(ch, WORDS)]
        while more(ch, len(tokens), 8, 2):
            category = ch.below(5)
            if category == 1:
                options = WHITESPACE
            elif category == 2:
                options = PUNCTUATION
            elif category == 3:
                options = ODD_UNICODE
                self.label("unicode")
            elif category == 4:
                options = self.literals
                self.label("lookalike")
            else:
                options = WORDS
            token = pick(ch, options)
            sep = pick(ch, (" ", "", "\n"))
            if one_line and "\n" in token + sep:
                continue
            tokens.append(sep + token)
        return "".join(tokens)

    def code_content(self) -> str:
        ch = self.ch
        kind = ch.below(4)
        if kind == 1 and not self.no_closes and self.opens:
            opener = pick(ch, self.opens)
            return self.text_of(opener) + "x" + self.text_of(self.close_of(opener))
        if kind == 2:
            return pick(ch, CODE_WORDS)
        if kind == 3:
            return pick(ch, [lk for lk in self.literals if "\n" not in lk]).strip()
        tags = [t for t in self.vocabulary.tags
                if not (self.no_closes and (t.kind == "close" or t.ends))]
        return self.text_of(pick(ch, tags))

    def span(self) -> Answer:
        self.label("span")
        run = "`" * (1 + self.ch.below(3))
        content = self.code_content()
        if len(run) in {len(m) for m in re.findall("`+", content)} or not content.strip("`"):
            content = "x"
        return Answer(run + content + run, "span")

    def fence(self, *, unclosed: bool = False) -> Answer:
        ch = self.ch
        self.label("fence")
        char = pick(ch, ("`", "~"))
        length = 3 + ch.below(2)
        eol = pick(ch, ("\n", "\r\n"))
        lines = [self.fence_line(char * length)]
        while more(ch, len(lines), 4, 2):
            lines.append(self.fence_line(char * length))
        infos = [i for i in FENCE_INFO if not (self.no_closes and "</" in i)]
        # R-CODE-2: a closed fence may stand in a block quote, every line marked; the
        # first line without `>` after it closes the quote, so what follows reads alike.
        # Its code lines are indented four more columns, so that none of them closes it
        # (`>\t~~~` would: the tab's last two columns are all the indentation it has).
        quote = "" if unclosed or not chance(ch, 4) else "> "
        if quote:
            self.label("fence-quote")
        inside = quote + "    " if quote else ""
        text = (quote + self.fence_indent() + char * length + pick(ch, infos) + eol
                + "".join(inside + line + eol for line in lines))
        if unclosed:
            return Answer(text.removesuffix(eol) if chance(ch, 2) else text, "open-fence")
        closing = (quote + self.fence_indent() + char * (length + ch.below(2))
                   + pick(ch, ("", " ", "\t")))
        return Answer(text + closing + eol, "fence")

    def not_a_fence(self) -> Answer:
        """A line that reads like a fence opener but is none (R-CODE-2): the run stands
        after four spaces, a tab or text, so the tags on the next lines are tags."""
        ch = self.ch
        self.label("not-a-fence")
        lead = pick(ch, ("    ", "\t", "A", "-> "))
        run = pick(ch, ("`", "~")) * (3 + ch.below(2))
        return Answer(lead + run + pick(ch, ("", " py")) + "\n", "not-fence")

    def fence_indent(self) -> str:
        """R-CODE-2: a fence line may start after at most three spaces."""
        if not chance(self.ch, 4):
            return ""
        self.label("fence-indent")
        return " " * (1 + self.ch.below(3))

    def fence_line(self, run: str) -> str:
        """A line of code; sometimes the fence's own run indented by four spaces (code,
        not the closing line) or after a letter (no closing line either)."""
        kind = self.ch.below(5)
        if kind == 4:
            self.label("fence-not-closed")
            return pick(self.ch, ("    ", "\t", "A", "> ")) + run
        if kind % 2:
            return self.code_content()
        return pick(self.ch, FENCE_LINES)

    # -- items -------------------------------------------------------------------
    def block(self, opener: Tag | None = None, *, one_line: bool = False,
              stray: int = 0) -> Block:
        opener = opener or pick(self.ch, self.opens)
        closer = self.close_of(opener)
        self.label("block")
        ends = self.vocabulary.closes_of(opener)  # any of them would end it (R-CUSTOM-2)
        reasoning = self.reasoning(ends, one_line=one_line, stray=stray)
        return Block(self.text_of(opener), reasoning, self.text_of(closer))

    def tool_block(self) -> Block | None:
        """R-BLOCK-5: a block that a tool section of its format ends (the model starts
        a tool call while reasoning), the section closed; None when no open has one."""
        ch = self.ch
        if not self.tool_ends:
            return None
        opener, section = pick(ch, self.tool_ends)
        self.label("tool-ends-block")
        reasoning = self.reasoning(self.vocabulary.closes_of(opener))
        body = pick(ch, ('call:get_weather{city:"Oslo"}', "functions.lookup:0 {}", " [] "))
        close = self.text_of(self.close_of(section))
        return Block(self.text_of(opener), reasoning, self.text_of(section), (body, close))

    def items(self) -> list[Item]:
        ch = self.ch
        items: list[Item] = []
        while more(ch, len(items), self.profile.max_items, 3):
            kind = ITEM_KINDS[ch.below(len(ITEM_KINDS))]
            items.extend(self.item(kind))
        return items

    def item(self, kind: str) -> list[Item]:
        ch = self.ch
        if not self.opens and kind in ("block", "nested", "bypass", "splice"):
            # a class with headers only (a channel grammar, SPEC 2a) has no plain block
            kind = "harmony" if self.message_ends else "prose"
        if kind in ("orphan", "marker") and not self.closes:  # markers only (answer wrappers)
            kind = "marker" if self.markers else "prose"
        if kind == "block":
            # R-BLOCK-5 (drawn only where a format has such a tool section, so the
            # draws of every other vocabulary are what they were)
            tool = self.tool_block() if self.tool_ends and chance(ch, 4) else None
            return [tool or self.block()]
        if kind == "span":
            return [self.span()]
        if kind == "fence":
            return [self.not_a_fence() if chance(ch, 5) else self.fence()]
        if kind == "orphan" or (kind == "marker" and not self.markers):
            self.label("orphan")
            return [Orphan(self.text_of(pick(ch, self.closes)))]
        if kind == "marker":
            self.label("marker")
            return [Marker(self.text_of(pick(ch, self.markers)))]
        if kind == "nested":
            return self.nested()
        if kind == "bypass":
            return [self.bypass()]
        if kind == "splice":
            return [self.splice()]
        if kind == "harmony" and self.message_ends:
            return [self.harmony()]
        return [Answer(self.prose())]

    def harmony(self) -> Harmony:
        """R-HARMONY-1/2: a message whose header this builder composes from parts, and
        whose meaning it states from those parts (never by reading the text)."""
        ch = self.ch
        self.label("harmony")
        start = ch.below(3) != 0  # else the bare `<|channel|>...` a model writes first
        channel_token = self.vocabulary.lookup("<|channel|>")
        start_token = self.vocabulary.lookup("<|start|>")
        assert channel_token is not None and start_token is not None
        role = pick(ch, HARMONY_ROLES) if start else "assistant"
        channel = pick(ch, HARMONY_CHANNELS[0 if start else 1:])
        recipient = pick(ch, HARMONY_RECIPIENTS[1:]) if ch.below(2) else None
        in_role = start and recipient is not None and ch.below(2) == 1
        header = role if start else ""
        if recipient is not None and in_role:
            header += " to=" + recipient
        if channel is not None:
            header += (self.text_of(channel_token) if start else "") + channel
        if recipient is not None and not in_role:
            header += " to=" + recipient
        header += pick(ch, HARMONY_CONSTRAINS)
        opener = self.text_of(start_token if start else channel_token)
        visible = (role.lower() == "assistant" and recipient is None
                   and (channel or "").lower() in ("final", "commentary"))
        content: str | Reasoning
        if visible:
            self.label("harmony-visible")
            content = self.prose()
            end = pick(ch, [None, *self.message_ends])
        else:
            self.label("harmony-tool" if recipient is not None else "harmony-hidden")
            content = self.reasoning(list(self.message_ends))
            end = pick(ch, self.message_ends)
        return Harmony(opener, header, visible, content,
                       self.text_of(end) if end is not None else None)

    def nested(self) -> list[Item]:
        """`<think>a <think>b</think>c</think>`: no nesting is counted (R-BLOCK-2)."""
        self.label("nested")
        opener = pick(self.ch, self.opens)
        block = self.block(opener)
        inner = ((NOISE, self.text_of(opener)), (NOISE, " "))
        block = Block(block.open, Reasoning(inner + block.reasoning.parts), block.close)
        return [block, Answer(self.prose()), Orphan(self.text_of(self.close_of(opener)))]

    def bypass(self) -> Bypass:
        """R-CODE-3: an unmatched run of one length does not guard a tag."""
        ch = self.ch
        self.label("bypass")
        run = 1 + ch.below(3)
        stray = pick(ch, [0, *(n for n in (1, 2, 3) if n != run)])
        trail_run = pick(ch, [0, *(n for n in (1, 2, 3) if n not in (run, stray))])
        if trail_run:
            self.label("code-7")
        lead = pick(ch, WORDS) + self.crowd((stray, trail_run))
        block = self.block(one_line=True, stray=stray)
        return Bypass(lead, run, block, trail_run, self.prose(one_line=True))

    def crowd(self, taken: tuple[int, ...]) -> str:
        """Closed spans ahead of a guard run on the same line, sometimes after a run that
        never closes: the tag after them is judged by walking every run before it (R-CODE-3),
        hundreds of them in a long line of inline code. The lengths avoid the runs that
        follow the tag (`taken`), so nothing before the tag pairs across it."""
        ch = self.ch
        size = ch.below(4)
        if not size:
            return ""
        self.label("crowd")
        count = (1 + ch.below(3), 128 + ch.below(3), 300)[size - 1]
        width = pick(ch, [n for n in (1, 2, 3) if n not in taken])
        span = "`" * width
        lone = pick(ch, [0, *(n for n in (2, 3, 4) if n not in (*taken, width))])
        runs = ["`" * lone] if lone else []
        runs.extend(f"{span}k{span}" for _ in range(count))
        return " " + " ".join(runs) + " "

    def splice(self) -> Splice:
        ch = self.ch
        self.label("splice")
        tag = pick(ch, [t for t in (*self.opens, *self.closes) if len(t.text) > 1])
        text = self.text_of(tag)
        at = 1 + ch.below(len(text) - 1)
        inner: Block | Orphan
        if ch.below(2):
            inner = Orphan(self.text_of(pick(ch, self.closes)))
        else:
            inner = self.block()
        if tag.kind == "close":
            return Splice(text, at, inner)
        closer = self.close_of(tag)
        return Splice(text, at, inner, self.reasoning(self.vocabulary.closes_of(tag)),
                      self.text_of(closer))

    def unclosed(self, context: Context, opener: Tag | None) -> Unclosed:
        """R-UNCLOSED-1..3: the last line is answer only when it will be recovered."""
        ch = self.ch
        self.label("unclosed")
        ends = self.vocabulary.closes_of(opener) if opener else list(self.block_closes)
        recovers = context.inline_answer and context.finish_reason == "stop"
        if recovers and chance(ch, 4):
            reasoning = self.reasoning(ends, one_line=True)
            return Unclosed(self.text_of(opener) if opener else "", reasoning, None)
        reasoning = self.reasoning(ends)
        last: str | None = None
        if recovers:
            self.label("inline-recovered")
            last = self.prose(one_line=True)
        elif context.cut_off and not self.no_closes and chance(ch, 3):
            reasoning = self.cut_in_span(reasoning, ends)
        elif ch.below(2):
            self.label("last-line")
            last = self.canaries()
        return Unclosed(self.text_of(opener) if opener else "", reasoning, last)

    def cut_in_span(self, reasoning: Reasoning, ends: list[Tag]) -> Reasoning:
        """R-CODE-6 inside a block: a span opens, a close follows, and the stream is cut
        on a run no longer than the opening one. That run may yet grow to close the span,
        so the close is inside it and the block runs to the cut (cut any earlier, the
        same close would end the block)."""
        ch = self.ch
        self.label("cut-in-span")
        width = pick(ch, (1, 2, 3, 15))
        close = self.text_of(pick(ch, ends))
        code = ("`" * width + pick(ch, ("", "x ", " ")) + close + pick(ch, ("", " draft"))
                + "`" * (1 + ch.below(width)))
        return Reasoning((*reasoning.parts, (NOISE, " "), (CODE, code)))

    def skipped(self, context: Context) -> StreamModel:
        """R-SKIP-1: the model answered at once and never closed the pre-filled block:
        answer text without any close (an open block may be left at the end)."""
        ch = self.ch
        self.label("skipped")
        self.no_closes = True
        items: list[Item] = [Answer(self.prose())]
        kinds = [k for k in SKIP_KINDS if k != "marker" or self.markers]
        while more(ch, len(items), self.profile.max_items, 3):
            items.extend(self.item(pick(ch, kinds)))
        # R-SKIP-1: nothing may end the pre-filled block, a tool section that ends
        # reasoning (R-BLOCK-5) included
        quiet = [t for t in self.opens if not t.ends]
        tail = (self.unclosed(context, pick(ch, quiet))
                if chance(ch, 3) and quiet else None)
        return StreamModel(context, None, tuple(items), tail, tuple(self.labels), skipped=True)

    def build(self) -> StreamModel:
        ch = self.ch
        context = self.context()
        self.use(context)
        if context.starts_in_reasoning:
            self.label("prefill")
            skips = (context.may_skip_reasoning and not context.inline_answer
                     and context.finish_reason == "stop")
            if skips and chance(ch, 2):
                return self.skipped(context)
            if not skips and chance(ch, 4):
                return StreamModel(context, None, (), self.unclosed(context, None),
                                   tuple(self.labels))
            reasoning = self.reasoning(list(self.block_closes))
            closes = [t for t in self.block_closes if t.kind == "close"]
            prefill = Prefill(reasoning, self.text_of(pick(ch, closes)))
        else:
            prefill = None
        items = self.items()
        tail = None
        ending = ch.below(6)
        if ending == 1 and self.opens:
            tail = self.unclosed(context, pick(ch, self.opens))
        elif ending == 2:
            items.append(self.fence(unclosed=True))
        elif ending == 3:
            self.label("partial-end")
            text = self.text_of(pick(ch, [t for t in self.vocabulary.tags if len(t.text) > 1]))
            items.append(Answer(text[: 1 + ch.below(len(text) - 1)]))
        last = items[-1] if items else None
        if (context.cut_off and tail is None and isinstance(last, Answer)
                and last.kind != "open-fence" and last.text[-1:] == "`"):
            items.append(Answer("."))  # R-CODE-6: a span closing at the cut is no span
        return StreamModel(context, prefill, tuple(items), tail, tuple(self.labels))


def choose_context(ch: Chooser, profile: Profile | None = None) -> Context:
    """A context `profile` can receive: features, pre-fill, inline answer, finish reason."""
    return _Builder(ch, profile or Profile()).context()


def build_answer_model(ch: Chooser, profile: Profile | None = None) -> StreamModel:
    """A stream of answer text only (prose, code spans, fences): its text is its output."""
    b = _Builder(ch, profile or Profile())
    b.use(Context(features=b.profile.features))
    items: list[Item] = [Answer(b.prose())]
    while more(ch, len(items), b.profile.max_items, 3):
        items.extend(b.item(pick(ch, ("prose", "span", "fence"))))
    return StreamModel(Context(features=b.profile.features), items=tuple(items),
                       labels=tuple(b.labels))


def build_reasoning(ch: Chooser, close: str = "</think>", profile: Profile | None = None,
                    first_canary: int = 0) -> Reasoning:
    """Block content that `close` would end only where the content ends."""
    b = _Builder(ch, profile or Profile())
    b.use(Context(features=b.profile.features))
    b.serial = first_canary
    tag = b.vocabulary.lookup(close)
    if tag is None or tag.kind != "close":
        raise ValueError(f"{close!r} is not a close tag of the profile's vocabulary")
    return b.reasoning([tag])


def build_model(ch: Chooser, profile: Profile | None = None) -> StreamModel:
    """A stream model whose every choice comes from `ch`."""
    return _Builder(ch, profile or Profile()).build()


def build_stream(ch: Chooser, profile: Profile | None = None) -> RenderedStream:
    """`build_model` rendered: text, context, expected output, canaries."""
    return render(build_model(ch, profile))

