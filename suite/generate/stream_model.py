"""The stream model: a stream made of known parts, and the visible output SPEC gives it.

A generated stream is a list of parts whose meaning is fixed by construction:
answer text (prose, code spans, fences), blocks, orphan closes, markers and the
composite shapes of SPEC (a guard bypassed by unequal backticks, a spliced tag,
a pre-filled open, an unclosed block with or without an inline answer, a
pre-filled block the model skipped, a harmony message whose header the builder
composed and whose meaning it states).
`render` turns it into input text and computes the expected visible output
from the structure alone: answer text joined, nothing trimmed (R-WS-1), a
backtick run after a removed piece dropped where R-CODE-7 says so.

The composition rules are only sound for streams where every tag the model
means is really a tag and every literal tag is really in code. `render` checks
exactly that, with plain string searches, and names the problem when it finds
one; generators discard such streams instead of guessing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from scrubcheck.corpus.overlap import overlaps
from scrubcheck.corpus.streams import ANSWER, REASONING, TAG
from scrubcheck.model import Context
from scrubcheck.vocabulary import Tag, all_feature_tag_texts, fold

CANARY, NOISE, CODE = "canary", "noise", "code"
_RUNS = re.compile("`+")


@dataclass(frozen=True)
class Reasoning:
    """Block content as parts: canary runs (what must never show), noise (tags and
    text that do not end the block) and code (an inline span holding a close, R-CODE-5)."""

    parts: tuple[tuple[str, str], ...] = ()

    @property
    def text(self) -> str:
        return "".join(text for _, text in self.parts)

    @property
    def canary_runs(self) -> tuple[str, ...]:
        return tuple(text for kind, text in self.parts if kind == CANARY)

    def code_ranges(self) -> list[tuple[int, int]]:
        """(start, end) of each code part in `text`."""
        ranges, at = [], 0
        for kind, text in self.parts:
            if kind == CODE:
                ranges.append((at, at + len(text)))
            at += len(text)
        return ranges


@dataclass(frozen=True)
class Answer:
    """Answer text. `kind`: prose, span (inline code), fence, open-fence (runs to the end),
    not-fence (a line like a fence opener that is none: text, started on a line of its own)."""

    text: str
    kind: str = "prose"


@dataclass(frozen=True)
class Block:
    """A reasoning block. With `tool` (body, close), `close` is the open of a tool
    section that ends the block (R-BLOCK-5), and the section runs on to its own close."""

    open: str
    reasoning: Reasoning
    close: str
    tool: tuple[str, str] | None = None


@dataclass(frozen=True)
class Orphan:
    close: str


@dataclass(frozen=True)
class Marker:
    text: str


@dataclass(frozen=True)
class Bypass:
    """R-CODE-3: `lead` + a run of `run` backticks + a block + the rest of the line.

    No run of that length follows on the input line, so the open tag is a tag.
    A run right after the block (`trail_run`) is removed with it (R-CODE-7).
    """

    lead: str
    run: int
    block: Block
    trail_run: int
    trail: str


@dataclass(frozen=True)
class Splice:
    """R-TAG-1: `tag` cut at `at` by a removed `inner` piece is still a tag; an open
    tag then starts a block holding `reasoning` up to `close`."""

    tag: str
    at: int
    inner: Block | Orphan
    reasoning: Reasoning | None = None
    close: str | None = None


@dataclass(frozen=True)
class Prefill:
    """R-ORPHAN-2: the stream starts inside a block that `close` ends."""

    reasoning: Reasoning
    close: str


@dataclass(frozen=True)
class Harmony:
    """R-HARMONY-1/2: one harmony message, `opener` + `header` + `<|message|>` + content.

    `visible` is what the header means, stated by whoever composed it (the builder
    decides it from the role, channel and recipient it chose, never by reading the
    text). A visible message's content is answer text (`str`); a hidden one's is
    reasoning that `end` (required) ends. `end` is `<|end|>`, `<|call|>`,
    `<|return|>` or None."""

    opener: str
    header: str
    visible: bool
    content: str | Reasoning
    end: str | None = None


@dataclass(frozen=True)
class Unclosed:
    """R-UNCLOSED-1..3: a block still open at the end. `open` is "" when it is the
    pre-filled block. `last_line` follows a line feed: recovered as answer text under
    R-UNCLOSED-2, reasoning otherwise."""

    open: str
    reasoning: Reasoning
    last_line: str | None = None


Item = Answer | Block | Orphan | Marker | Bypass | Splice | Harmony

MESSAGE = "<|message|>"


@dataclass(frozen=True)
class StreamModel:
    """`skipped`: R-SKIP-1, the stream starts in a pre-filled block that never closes
    and the model skipped reasoning: `items` (and `unclosed`, an open block) are the
    answer, read from the start of the stream."""

    context: Context = field(default_factory=Context)
    prefill: Prefill | None = None
    items: tuple[Item, ...] = ()
    unclosed: Unclosed | None = None
    labels: tuple[str, ...] = ()  # shapes the builder used, for rules and reports
    skipped: bool = False


@dataclass(frozen=True)
class RenderedStream:
    """A stream with everything known about it."""

    context: Context
    text: str
    expected: str
    cuts: tuple[int, ...]  # positions in `expected` where something was removed (R-WS-1)
    reasoning: tuple[str, ...]  # canary runs: any 8-character window of one is a leak
    pieces: tuple[tuple[str, str], ...]  # (answer | tag | reasoning, text), joined = text
    labels: tuple[str, ...]
    foreign: tuple[str, ...]  # delimiters of features not enabled, in the answer (R-VOCAB-4)
    problem: str | None = None  # why the model cannot vouch for `expected` (then unusable)

    @property
    def ok(self) -> bool:
        return self.problem is None

    def tag_ranges(self) -> list[tuple[int, int]]:
        """(start, end) in `text` of every removed tag piece: where splits matter most."""
        ranges, at = [], 0
        for role, text in self.pieces:
            if role == TAG and len(text) > 1:
                ranges.append((at, at + len(text)))
            at += len(text)
        return ranges


class _Invalid(Exception):
    """The parts do not mean what the model would say they mean."""


class _Renderer:
    def __init__(self, model: StreamModel) -> None:
        self.model = model
        self.vocabulary = model.context.vocabulary()
        self.pieces: list[tuple[str, str]] = []
        self.visible = ""
        self.cuts: list[int] = []
        self.literal: list[tuple[int, int]] = []  # code regions of `visible`
        self.open_fence: int | None = None  # where a fence that never closes starts
        self.canaries: list[str] = []
        self.foreign: list[str] = []
        self.closes = self.vocabulary.block_closes()  # what ends a pre-filled block

    # -- output ------------------------------------------------------------
    def answer(self, text: str, *, literal: bool = False, fence: bool = False) -> None:
        if not text:
            return
        prefix = ""
        if fence and self.visible and not self.visible.endswith("\n"):
            prefix = "\n"  # a fence opens only at the start of a visible line
        elif self.visible.endswith("`") and text.startswith("`"):
            prefix = " "  # never let two pieces' backtick runs join into one
        if prefix:
            self._add(ANSWER, prefix)
        start = len(self.visible)
        self._add(ANSWER, text)
        if literal:
            self.literal.append((start, len(self.visible)))

    def _add(self, role: str, text: str) -> None:
        if not text:
            return
        self.pieces.append((role, text))
        if role == ANSWER:
            self.visible += text

    def removed(self, *pieces: tuple[str, str]) -> None:
        self.cuts.append(len(self.visible))
        for role, text in pieces:
            self._add(role, text)

    # -- checks --------------------------------------------------------------
    def tag(self, text: str, kinds: tuple[str, ...]) -> Tag:
        tag = self.vocabulary.lookup(text)
        if tag is None or tag.kind not in kinds:
            raise _Invalid(f"{text!r} is not an active {'/'.join(kinds)} tag")
        return tag

    def block_body(self, reasoning: Reasoning, close: str | None, ends: list[Tag]) -> None:
        """`close` (None: none) must be the first tag of `ends` outside the code parts."""
        text = reasoning.text
        body = fold(text + (close or ""))
        code = reasoning.code_ranges()
        for end in ends:
            key = fold(end.text)
            at = body.find(key)
            while at >= 0:
                inside = any(a <= at and at + len(key) <= b for a, b in code)
                if not inside and not (close is not None and at == len(text)):
                    raise _Invalid(f"reasoning {text!r} holds {end.text!r} outside code")
                at = body.find(key, at + 1)
        self.canaries.extend(reasoning.canary_runs)

    def same_name(self, tag: Tag) -> list[Tag]:
        return self.vocabulary.closes_of(tag)

    # -- parts ---------------------------------------------------------------
    def block(self, block: Block) -> None:
        tag = self.tag(block.open, ("open",))
        if tag.header:
            raise _Invalid(f"{block.open!r} opens a harmony header, not a block")
        ender = self.tag(block.close, ("close",) if block.tool is None else ("open",))
        if ender not in self.same_name(tag):
            raise _Invalid(f"{block.close!r} does not end {block.open!r}")
        self.block_body(block.reasoning, block.close, self.same_name(tag))
        if block.tool is None:
            self.removed((TAG, block.open), (REASONING, block.reasoning.text),
                         (TAG, block.close))
            return
        body, close = block.tool  # R-BLOCK-5: the tool section runs to its own close
        if self.tag(close, ("close",)) not in self.same_name(ender):
            raise _Invalid(f"{close!r} does not close the tool section {block.close!r}")
        self.block_body(Reasoning(((NOISE, body),)), close, self.same_name(ender))
        self.removed((TAG, block.open), (REASONING, block.reasoning.text), (TAG, block.close),
                     (REASONING, body), (TAG, close))

    def item(self, item: Item) -> None:
        if isinstance(item, Answer):
            if item.kind == "open-fence":
                self.open_fence = len(self.visible)
            self.answer(item.text, literal=item.kind in ("span", "fence", "open-fence"),
                        fence=item.kind in ("fence", "open-fence", "not-fence"))
        elif isinstance(item, Block):
            self.block(item)
        elif isinstance(item, Orphan):
            self.tag(item.close, ("close",))
            self.removed((TAG, item.close))
        elif isinstance(item, Marker):
            self.tag(item.text, ("marker",))
            self.removed((TAG, item.text))
        elif isinstance(item, Bypass):
            self.bypass(item)
        elif isinstance(item, Harmony):
            self.harmony(item)
        else:
            self.splice(item)

    def harmony(self, item: Harmony) -> None:
        """R-HARMONY-1: the header is removed; R-HARMONY-2: the message is answer text
        or hidden up to its end token, as the composer of the header said."""
        opener = self.tag(item.opener, ("open",))
        if not opener.header:
            raise _Invalid(f"{item.opener!r} is not a harmony header opener")
        if fold(MESSAGE) in fold(item.header) or "`" in item.header:
            raise _Invalid("a header holds <|message|> or a backtick")
        header = item.opener + item.header + MESSAGE
        ends = [t for t in self.closes if t.kind == "close" and "harmony:message" in t.names]
        if item.end is not None and self.tag(item.end, ("close",)) not in ends:
            raise _Invalid(f"{item.end!r} does not end a harmony message")
        if item.visible:
            if not isinstance(item.content, str):
                raise _Invalid("a visible harmony message holds answer text")
            self.removed((TAG, header))
            self.answer(item.content)
            if item.end is not None:
                self.removed((TAG, item.end))
            return
        if not isinstance(item.content, Reasoning) or item.end is None:
            raise _Invalid("a hidden harmony message holds reasoning and ends")
        self.block_body(item.content, item.end, ends)
        self.removed((TAG, header), (REASONING, item.content.text), (TAG, item.end))

    def bypass(self, item: Bypass) -> None:
        """The lead may hold backtick runs (closed spans, a run that never closes): none
        of their lengths, nor the guard's, may follow on the line, so whatever they pair
        with stands before the tag and the tag is in no span."""
        if not item.lead or "\n" in item.lead + item.trail or "`" in item.trail:
            raise _Invalid("a bypass lead holds a line feed or its trail a backtick")
        if item.lead.endswith("`"):
            raise _Invalid("a bypass lead ending in a backtick would lengthen the guard")
        line_rest = item.block.reasoning.text + "`" * item.trail_run + item.trail
        if "\n" in item.block.reasoning.text or item.block.reasoning.code_ranges():
            raise _Invalid("a bypass block must be one line without code parts")
        lengths = {len(m.group()) for m in _RUNS.finditer(line_rest)}
        before = {len(m.group()) for m in _RUNS.finditer(item.lead)} | {item.run}
        if lengths & before:
            raise _Invalid("a run of a length seen before the tag follows on the line: "
                           "the tag may be code")
        stray = [len(m.group()) for m in _RUNS.finditer(item.block.reasoning.text)]
        if len(stray) > 1 or (stray and stray[0] == item.trail_run):
            raise _Invalid("the close would stand inside a span of the block's own text")
        self.answer(item.lead + "`" * item.run)
        self.block(item.block)
        if item.trail_run:
            self._add(TAG, "`" * item.trail_run)  # R-CODE-7: removed with the block
        self.answer(item.trail + "\n")

    def splice(self, item: Splice) -> None:
        tag = self.tag(item.tag, ("open", "close"))
        if tag.header and tag.kind == "open":
            raise _Invalid("a spliced harmony header opener is not modelled")
        if not 0 < item.at < len(item.tag):
            raise _Invalid("a splice must cut inside the tag")
        self.cuts.append(len(self.visible))
        self._add(TAG, item.tag[: item.at])
        if isinstance(item.inner, Block):
            self.block(item.inner)
        else:
            self.tag(item.inner.close, ("close",))
            self.removed((TAG, item.inner.close))
        self._add(TAG, item.tag[item.at :])
        if tag.kind == "open":
            if item.reasoning is None or item.close is None:
                raise _Invalid("a spliced open tag needs its block")
            self.tag(item.close, ("close",))
            self.block_body(item.reasoning, item.close, self.same_name(tag))
            self._add(REASONING, item.reasoning.text)
            self._add(TAG, item.close)

    def unclosed(self, tail: Unclosed) -> None:
        context = self.model.context
        if tail.open:
            opener = self.tag(tail.open, ("open",))
            if opener.header:
                raise _Invalid("an unclosed harmony header is not modelled")
            ends = self.same_name(opener)
        else:
            ends = self.closes
        content = tail.reasoning.text + ("" if tail.last_line is None else "\n" + tail.last_line)
        recovers = context.inline_answer and context.finish_reason == "stop" and "\n" in content
        if tail.last_line is not None and "\n" in tail.last_line:
            raise _Invalid("the last line of an unclosed block holds a line feed")
        if recovers and tail.last_line is None:
            raise _Invalid("recovery would surface reasoning: give the block a last line")
        self.block_body(tail.reasoning, None, ends)
        self.removed((TAG, tail.open), (REASONING, tail.reasoning.text))
        if tail.last_line is None:
            return
        if recovers:
            self._add(REASONING, "\n")
            self.answer(tail.last_line)
            return
        self._add(REASONING, "\n" + tail.last_line)
        self.canaries.append(tail.last_line)

    def finish(self) -> None:
        """Every tag of the vocabulary left in the visible text must lie in code, and
        in a cut-off stream not in a span whose closing run touches the cut (R-CODE-6)."""
        folded = fold(self.visible)
        cut_off = (self.model.context.cut_off and self.pieces and self.pieces[-1][0] == ANSWER
                   and self.pieces[-1][1].endswith("`"))
        # a fence that never closes is no span: a run at its end closes nothing
        fence_start = len(self.visible) if self.open_fence is None else self.open_fence
        for key in self.vocabulary.by_folded:
            at = folded.find(key)
            while at >= 0:
                spans = [(a, b) for a, b in self.literal if a <= at and at + len(key) <= b]
                if not spans:
                    shown = self.visible[at : at + len(key)]
                    raise _Invalid(f"the answer text forms the tag {shown!r} outside code")
                if cut_off and any(b == len(self.visible) and a < fence_start for a, b in spans):
                    raise _Invalid("a cut-off stream ends on the run that closes a span "
                                   "around a tag: that run's length is unknown")
                at = folded.find(key, at + 1)
        shared = overlaps(self.canaries, self.visible)
        if shared:
            raise _Invalid(f"a canary run shares {next(iter(shared.values()))!r} with the answer")


def render(model: StreamModel) -> RenderedStream:
    """The input text of `model` and the visible output SPEC gives it."""
    r = _Renderer(model)
    problem = None
    try:
        if model.skipped:
            _check_skipped(model)
        elif model.context.starts_in_reasoning:
            if model.prefill is not None:
                r.tag(model.prefill.close, ("close",))
                r.block_body(model.prefill.reasoning, model.prefill.close, r.closes)
                r.removed((REASONING, model.prefill.reasoning.text), (TAG, model.prefill.close))
            elif model.items or (model.unclosed is not None and model.unclosed.open):
                raise _Invalid("a pre-filled stream starts with its block")
        elif model.prefill is not None or (model.unclosed is not None and not model.unclosed.open):
            raise _Invalid("a pre-filled part needs starts_in_reasoning")
        for index, item in enumerate(model.items):
            last = index == len(model.items) - 1 and model.unclosed is None
            if isinstance(item, Answer) and item.kind == "open-fence" and not last:
                raise _Invalid("a fence that never closes must end the stream")
            r.item(item)
        if model.unclosed is not None:
            r.unclosed(model.unclosed)
        _check_foreign(r, model)
        r.finish()
        if model.skipped:
            _check_never_closed(r)
    except _Invalid as exc:
        problem = str(exc)
    text = "".join(t for _, t in r.pieces)
    return RenderedStream(
        context=model.context,
        text=text,
        expected=r.visible,
        cuts=tuple(r.cuts),
        reasoning=tuple(dict.fromkeys(c for c in r.canaries if c)),
        pieces=tuple(r.pieces),
        labels=model.labels,
        foreign=tuple(r.foreign),
        problem=problem,
    )


def _check_skipped(model: StreamModel) -> None:
    """R-SKIP-1 holds only with the signal, the pre-fill, `stop`, and without
    `inline_answer` (which would win); and the answer is all there is."""
    ctx = model.context
    if not (ctx.starts_in_reasoning and ctx.may_skip_reasoning and ctx.finish_reason == "stop"
            and not ctx.inline_answer):
        raise _Invalid("a skipped pre-fill needs starts_in_reasoning, may_skip_reasoning, "
                       "finish_reason stop and no inline_answer")
    if model.prefill is not None or (model.unclosed is not None and not model.unclosed.open):
        raise _Invalid("a skipped pre-fill has no pre-filled part of its own")


def _check_never_closed(r: _Renderer) -> None:
    """Read as the pre-filled block first, the stream must hold no close that ends it
    (anywhere, code included: inside the block fences guard nothing)."""
    text = fold("".join(t for _, t in r.pieces))
    for close in r.closes:
        if fold(close.text) in text:
            raise _Invalid(f"{close.text!r} would end the pre-filled block: not skipped")


def _check_foreign(r: _Renderer, model: StreamModel) -> None:
    """Record which delimiters of features that are not enabled stand in the answer."""
    enabled = set(r.vocabulary.by_folded)
    folded = fold(r.visible)
    r.foreign.extend(d for d in all_feature_tag_texts()
                     if fold(d) not in enabled and fold(d) in folded)
