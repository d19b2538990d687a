"""SPEC.md read as a batch: a whole input and its context in, the visible text out.

The reading goes left to right over the input in one of three modes (SPEC's
words): answer text, a fenced code block (section 4) and a block (section 3, a
pre-filled block of R-ORPHAN-2 and a harmony header or hidden message of section
2a included). Because the whole input is known, a question a streaming scrubber
must wait for is answered by looking ahead: a tag after an unclosed backtick run
is judged by the rest of its input line, read as literal text (R-CODE-6); a
block's close is judged by its whole line (R-CODE-5). Only R-TAG-1 looks back: a
removed piece may splice the partial tags before it with the text after it, so
those partials are taken back from the visible text and read again.

Where the reading looks ahead or back, it notes how much input a streaming scrubber
may read before it must show what was decided (R-STREAM-1's list of what may be held):
the rest of the line for a tag after an open backtick run, a spliced partial until
the character that settles it, and anything only the end of the stream decides.
`specmodel/decided.py` turns those notes into the hold-back yardstick.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum

from scrubcheck.model import Context
from scrubcheck.specmodel.backticks import RUN, LineRuns, OpenRuns, has_open_run, span_end
from scrubcheck.specmodel.blocks import FenceReading
from scrubcheck.specmodel.harmony import shows_message
from scrubcheck.specmodel.matcher import Matcher
from scrubcheck.specmodel.visible import Visible
from scrubcheck.vocabulary import HARMONY_MESSAGE, Tag, fold

#: what shapes code outside blocks: backtick runs, line feeds, tilde fence markers
_STRUCTURE = re.compile(r"`+|\n|~{3,}")


@dataclass(frozen=True)
class FoundTag:
    """A tag that stood outside code and was removed."""

    offset: int  # input offset of its first character
    raw: str  # its text as it stood (a spliced tag: joined across the removed piece)
    at: int  # position in the visible output where it was removed


@dataclass(frozen=True)
class Reading:
    visible: str
    cuts: tuple[int, ...]  # visible positions where something was removed (R-WS-1)
    tags: tuple[FoundTag, ...]
    #: (input offset, length, held_to) of each visible piece, in order: held_to is the
    #: input length a streaming scrubber may read before it must show the piece (0: no
    #: more than the piece itself, `len(text) + 1`: only the end of the stream decides)
    pieces: tuple[tuple[int, int, int], ...]


def read_stream(text: str, context: Context | None = None) -> Reading:
    """What SPEC says a scrubber shows for `text` under `context`."""
    reader = _Reader(text, context or Context())
    reader.read(0, len(text))
    reader.finish()
    return Reading(reader.visible.text(), tuple(reader.cuts), tuple(reader.tags),
                   reader.visible.pieces())


class Mode(Enum):
    ANSWER = "answer"
    FENCE = "fence"
    BLOCK = "block"


class Kind(Enum):
    """What a block is: its own rules at the end of the stream and at its close."""

    BLOCK = "block"  # R-BLOCK-1: opened by an open tag
    PREFILL = "prefill"  # R-ORPHAN-2: the stream starts in it
    HEADER = "header"  # R-HARMONY-1: decides what follows
    MESSAGE = "message"  # R-HARMONY-2: a hidden message


@dataclass(frozen=True)
class _Block:
    closes: Matcher
    start: int  # input offset of its first character of content
    kind: Kind
    by_start: bool = False  # a harmony header opened by `<|start|>`

    @property
    def recoverable(self) -> bool:
        """R-UNCLOSED-2 never recovers from a harmony header or message."""
        return self.kind in (Kind.BLOCK, Kind.PREFILL)


class _Reader:
    def __init__(self, text: str, context: Context) -> None:
        self.text = text
        self.context = context
        self.vocabulary = context.vocabulary()
        self.outside = Matcher.of(self.vocabulary.tags)
        self.visible = Visible()
        self.held: list[tuple[str, int]] = []  # partial tags before a removed piece (R-TAG-1)
        self.runs = OpenRuns()  # backtick runs of the visible line (R-CODE-1, R-CODE-6)
        self.fence_opener = False  # the line opened with a run of 3+ backticks (R-CODE-2)
        self.drop_run = False  # R-CODE-7: a run right after a removed piece goes with it
        self.mode = Mode.ANSWER
        self.info_line = False  # the rest of a tilde fence's opening line
        self.fence_stop: int | None = None  # where the open fence ends (R-CODE-2)
        self.fences = FenceReading()  # CommonMark's reading of fences (R-CODE-2)
        self.block: _Block | None = None
        self.may_recover = True  # R-UNCLOSED-2: at most once per stream
        self.cuts: list[int] = []
        self.tags: list[FoundTag] = []
        self._next: dict[str, tuple[int, re.Match[str] | None]] = {}
        self._line: LineRuns | None = None  # the runs of the line being judged
        self.never = len(text) + 1  # held_to of what only the end of the stream decides
        self.held_to = 0  # R-STREAM-1: what is shown up to `hold_end` may wait this long
        self.hold_end = -1
        self.finishing = False
        if context.starts_in_reasoning:
            self.block = _Block(Matcher.of(self.vocabulary.block_closes()), 0, Kind.PREFILL)
            self.mode = Mode.BLOCK

    # -- driving ---------------------------------------------------------------
    def read(self, start: int, end: int) -> None:
        i = start
        while i < end:
            if self.mode is Mode.ANSWER:
                i = self.answer_step(i, end)
            elif self.mode is Mode.FENCE:
                i = self.fence_step(i, end)
            else:
                i = self.block_step(i, end)

    def finish(self) -> None:
        """End of stream (section 5): an open block is discarded, or read again as
        answer text where R-SKIP-1 or R-UNCLOSED-2 say so; held partials are text."""
        self.finishing = True  # what the end of the stream decides may wait for it
        while self.mode is Mode.BLOCK:
            again = self.leave_unclosed()
            if again is None:
                break
            self.read(again, len(self.text))
        self.commit_held(self.never)

    def leave_unclosed(self) -> int | None:
        """Discard the open block; the input offset to read again as answer text, if any."""
        block, context = self.block, self.context
        assert block is not None
        self.mode, self.block = Mode.ANSWER, None
        stops = context.finish_reason == "stop"
        if not self.may_recover or not block.recoverable:
            return None
        self.may_recover = False
        if block.kind is Kind.PREFILL and context.may_skip_reasoning and not context.inline_answer:
            return 0 if stops else None  # R-SKIP-1 / R-SKIP-3: the model skipped reasoning
        newline = self.text.rfind("\n", block.start)
        if context.inline_answer and stops and newline >= 0:
            return newline + 1  # R-UNCLOSED-2: the last line of the reasoning
        return None

    # -- the visible text ------------------------------------------------------
    def commit(self, start: int, end: int) -> None:
        self.add(self.text[start:end], start)

    def add(self, piece: str, origin: int) -> None:
        held_to = self.held_to if origin <= self.hold_end else 0
        self.visible.add(piece, origin, self.never if self.finishing else held_to)

    def commit_held(self, held_to: int) -> None:
        """Show the held partials: `held_to`, the input read when they were settled."""
        for char, origin in self.held:
            self.visible.add(char, origin, self.never if self.finishing else held_to)
        self.held = []

    def hold_line(self, line_end: int) -> None:
        """R-STREAM-1: a tag after an open backtick run is judged once the rest of its
        line is known, so what its line still shows may wait for the line feed (for the
        end of the stream, when the line has none)."""
        has_newline = line_end < len(self.text) and self.text[line_end] == "\n"
        self.held_to = line_end + 1 if has_newline else self.never
        self.hold_end = line_end

    def search(self, name: str, pattern: re.Pattern[str], i: int, end: int) -> re.Match[str] | None:
        """pattern.search(text, i, end), remembered: a match at or after `i` found by an
        earlier search from before `i` is still the next one (keeps long texts linear)."""
        known = self._next.get(name)
        if known is not None and known[0] <= i:
            match = known[1]
            if match is None or match.start() >= i:
                return match
        match = pattern.search(self.text, i, end)
        self._next[name] = (i, match)
        return match

    # -- answer text -----------------------------------------------------------
    def answer_step(self, i: int, end: int) -> int:
        if self.held:
            return self.splice_step(i, end)
        if self.drop_run:
            self.drop_run = False
            if self.text[i] == "`":
                return RUN.match(self.text, i, end).end()  # type: ignore[union-attr]  # at a `
        tag = self.search("tag", self.outside.pattern, i, end)
        structure = self.search("structure", _STRUCTURE, i, end)
        if tag is None and structure is None:
            self.commit(i, end)
            return end
        if structure is None or (tag is not None and tag.start() < structure.start()):
            assert tag is not None
            self.commit(i, tag.start())
            found = self.outside.tag(tag.group())
            assert found is not None
            return self.on_tag(tag.group(), found, tag.start(), tag.end(), end)
        self.commit(i, structure.start())
        return self.on_structure(structure.group(), structure.start(), structure.end())

    def on_structure(self, piece: str, start: int, stop: int) -> int:
        if piece == "\n":
            self.commit(start, stop)
            opener = self.runs.lengths[0] if self.fence_opener else 0
            self.runs.clear()
            self.fence_opener = False
            if opener:
                self.open_fence(info_line=False)
            return stop
        # R-CODE-2: a run opens a fence where CommonMark's block structure says so
        opens = len(piece) >= 3 and self.fences.opens(self.visible.text(), piece)
        self.commit(start, stop)
        if piece[0] == "~":
            if opens:
                self.open_fence(info_line=True)
            return stop
        if opens:
            self.runs.lengths = [len(piece)]  # a fence opener, unless more backticks follow
            self.fence_opener = True
        else:
            self.fence_opener = False
            self.runs.add(len(piece))
        return stop

    def on_tag(self, raw: str, tag: Tag, at: int, after: int, end: int) -> int:
        """A tag in the visible text: literal when it stands in code (R-CODE-1/2/6)."""
        if not self.runs.lengths:
            return self.remove(raw, tag, at, after)
        line = self.line_runs(after, end)
        self.hold_line(line.end)
        if self.fence_opener and not line.any_from(after) and \
                not (line.end == len(self.text) and self.context.cut_off):
            return self.info_string(raw, at, after, line.end)
        closing = span_end(self.runs.lengths, line, after, in_block=False)
        if closing is None:
            return self.remove(raw, tag, at, after)
        self.add(raw, at)
        self.commit(after, closing)
        self.runs.clear()
        self.fence_opener = False
        return closing

    def line_runs(self, pos: int, end: int) -> LineRuns:
        """The runs of the input line from `pos` to its line feed (read as literal text),
        indexed once per line; the line a cut-off stream ends on ends at the cut."""
        line = self._line
        if line is None or not line.start <= pos <= line.end:
            newline = self.text.find("\n", pos, end)
            stop = end if newline < 0 else newline
            at_cut = stop == len(self.text) and self.context.cut_off
            line = self._line = LineRuns(self.text, pos, stop, cut=at_cut)
        return line

    def info_string(self, raw: str, at: int, after: int, line_end: int) -> int:
        """R-CODE-2: a tag on the opening line of a backtick fence is in its info string;
        the fence starts on the next line."""
        has_newline = line_end < len(self.text) and self.text[line_end] == "\n"
        stop = line_end + 1 if has_newline else line_end
        self.add(raw, at)
        self.commit(after, stop)
        self.runs.clear()
        self.fence_opener = False
        if has_newline:
            self.open_fence(info_line=False)
        return stop

    def remove(self, raw: str, tag: Tag, at: int, after: int) -> int:
        """R-BLOCK-1, R-ORPHAN-1, markers: the tag goes, and an open tag starts a block."""
        cut = self.visible.size
        self.cuts.append(cut)
        self.tags.append(FoundTag(at, raw, cut))
        self.held = self.visible.take_back(self.partial_chain())
        self.drop_run = not self.held and self.visible.ends_with_backtick()
        if tag.kind == "open":
            closes = Matcher.of(self.vocabulary.closes_of(tag))
            kind = Kind.HEADER if tag.header else Kind.BLOCK
            self.block = _Block(closes, after, kind, by_start=fold(raw) == "<|start|>")
            self.mode = Mode.BLOCK
        return after

    def partial_chain(self) -> int:
        """How many characters at the end of the visible text are partial tags touching
        one another (each the longest one ending where the next starts): all of them
        may be spliced by what follows the removed piece (R-TAG-1)."""
        window = self.outside.longest
        while True:
            tail = self.visible.tail(window)
            end = len(tail)
            while end > 0:
                start = self.outside.longest_partial(tail, end)
                if start is None:
                    break
                end = start
            if end > 0 or len(tail) < window:
                return len(tail) - end
            window *= 4

    def splice_step(self, i: int, end: int) -> int:
        """One character after a removed piece while partial tags are held (R-TAG-1):
        the earliest held start that still reads as a tag or the start of one wins."""
        char = self.text[i]
        if char in "`\n":
            self.commit_held(i + 1)
            return i
        reach = self.outside.longest - 1  # only this much before `char` can join it
        if len(self.held) > reach:
            self.held, rest = self.held[:-reach], self.held[-reach:]
            self.commit_held(i + 1)
            self.held = rest
        joined = [*self.held, (char, i)]
        chars = "".join(c for c, _ in joined)
        for start in range(len(chars)):
            tag = self.outside.tag(chars[start:])
            if tag is None and not self.outside.is_partial(chars[start:]):
                continue
            self.held = joined[:start]
            self.commit_held(i + 1)
            if tag is not None:
                return self.on_tag(chars[start:], tag, joined[start][1], i + 1, end)
            self.held = joined[start:]
            return i + 1
        self.held = joined
        self.commit_held(i + 1)
        return i + 1

    # -- fenced code -----------------------------------------------------------
    def open_fence(self, *, info_line: bool) -> None:
        self.mode = Mode.FENCE
        self.info_line = info_line
        self.fence_stop = None
        self.runs.clear()
        self.fence_opener = False

    def fence_step(self, i: int, end: int) -> int:
        """R-CODE-2: everything is literal up to and including the closing line, or up to
        the line that leaves the fence's containers (CommonMark, specmodel/blocks.py)."""
        if self.info_line:
            newline = self.text.find("\n", i, end)
            stop = end if newline < 0 else newline + 1
            self.commit(i, stop)
            self.info_line = newline < 0
            return stop
        if self.fence_stop is None:
            self.fence_stop = i + self.fences.end(self.visible.text(), self.text[i:])
        stop = min(self.fence_stop, end)
        self.commit(i, stop)
        if stop == self.fence_stop:
            self.mode = Mode.ANSWER
            self.fence_stop = None
        return stop

    # -- blocks ----------------------------------------------------------------
    def block_step(self, i: int, end: int) -> int:
        """R-BLOCK-2: the block ends at its first close that no span of its own line
        text guards (R-CODE-5; pairing counted from the block's start or the line's)."""
        block = self.block
        assert block is not None
        match = block.closes.find(self.text, i, end)
        fresh = i  # pairing starts afresh here: the block's start, a line's, a span's end
        while match is not None:
            at = match.start()
            newline = self.text.rfind("\n", fresh, at)
            if newline >= 0:
                fresh = newline + 1
            line = self.line_runs(fresh, end)
            before = line.lengths_between(fresh, at)
            if has_open_run(before):  # R-CODE-5 reads the rest of the line: R-STREAM-1
                self.hold_line(line.end)
            guard = span_end(before, line, match.end(), in_block=True)
            if guard is None:
                return self.close_block(block, at, match.end())
            fresh = guard
            match = block.closes.find(self.text, guard, end)
        return end

    def close_block(self, block: _Block, at: int, after: int) -> int:
        self.mode, self.block = Mode.ANSWER, None
        tag = self.vocabulary.lookup(self.text[at:after])
        if tag is not None and tag.kind == "open":  # R-BLOCK-5: a tool section ends it
            self.block = _Block(Matcher.of(self.vocabulary.closes_of(tag)), after, Kind.BLOCK)
            self.mode = Mode.BLOCK
            return after
        if block.kind is Kind.HEADER and not shows_message(self.text[block.start:at],
                                                           block.by_start):
            ends = [t for t in self.vocabulary.tags if HARMONY_MESSAGE in t.names]
            self.block = _Block(Matcher.of(ends), after, Kind.MESSAGE)  # R-HARMONY-2
            self.mode = Mode.BLOCK
        return after
