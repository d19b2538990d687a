"""The reference streaming scrubber: SPEC.md made executable.

Why this module is longer than ~500 lines: it is one class, `ReferenceScrubber`,
whose scanners (one group per mode: answer text, fenced code, block, end of
stream) read and write the same per-stream state on every character (`_out`,
`_emitted`, the mode objects), and whose fast paths inline steps of one another
for speed (R-ROBUST-2, benchmarks/performance.py). Splitting the class into
mixins per mode would put an attribute contract between files for no reader's
gain. What does stand alone has its own module: the states and their transition
table (states.py), backtick spans (spans.py), tag tables (tables.py), harmony
headers (harmony.py) and the public hook for test scrubbers (hooks.py). Each
group of methods below is headed by its mode, and each decision names its rule.

Theory of operation
===================

The input is scanned once, left to right. At every point the scanner is in
one of three modes (`Mode`), and each mode keeps its own small state object
(states.py, with the table of transitions and the rule behind each):

ANSWER (`AnswerState`): visible answer text, outside code and outside a block.
    Holds back: partial tags on `stack` (R-TAG-1: a partial tag that stands
    directly before a removed piece may join the text after it into a tag; at
    most the longest tag minus one character per link of the chain, R-STREAM-1);
    nothing else. Backtick runs, leading spaces and tildes are counted while
    the text itself is emitted at once (R-STREAM-2).
FENCE (`FenceState`): inside fenced code (R-CODE-2). Holds back nothing: every
    character is emitted as it comes. Whether a line closes the fence, or leaves a
    container of it (a block quote line without `>`, a list item line indented too
    little), the block tracker says (blocks.py).
BLOCK (`BlockState`): inside a removed block: reasoning (R-BLOCK-1), a
    pre-filled block (R-ORPHAN-2), a harmony header or a hidden harmony message
    (R-HARMONY-1/2). Nothing of it is emitted. Holds: a partial close tag, the
    backtick runs of the current line (R-CODE-5), the text after the block's
    last line feed when `inline_answer` may recover it (R-UNCLOSED-2), and,
    while in a harmony header, the header's text (`HeaderState`, R-HARMONY-2).

The block tracker (`BlockTracker`, blocks.py) sees every visible character as it
is emitted and keeps CommonMark's block structure of the visible text: the open
block quotes and list items, and whether a fence is open in them. It decides
where fences open and close (R-CODE-2, R-CODE-6); it holds no text but the head
of the current line (its leading characters that can shape block structure).

Two conditions cut across the modes:

held line (`HeldTag`): a tag that stands after a backtick run still open on its
    line cannot be judged until the rest of the line is known (R-CODE-1/3/5,
    R-CODE-6). The tag and the text after it are held, in ANSWER or BLOCK, until
    a line feed or the end of the stream; then the line is indexed once
    (`spans.LineIndex`) and the tag resolved in one pass (`_resolve`).
skip text (`_skip_text`): with `may_skip_reasoning` the whole input is kept while
    the pre-filled block is open, since the end of the stream may make all of it
    answer text (R-SKIP-1/2).

Invariants:

- At most one of `stack` (ANSWER), `partial` (BLOCK) and a held line is
  non-empty at a time at the top of a scan step, and each holds a bounded
  amount: the stack a chain of partial tags, `partial` less than one tag, a
  held line one input line (R-STREAM-1).
- Every character is scanned a bounded number of times: once by the mode
  scanners, at most once more when a held line is resolved, at most once more
  when the end of the stream re-reads recovered or skipped text as answer text
  (R-UNCLOSED-2, R-SKIP-1), which happens at most once per stream. The scrubber
  is linear (R-ROBUST-2).
- Output is only ever appended (`_out`), and `_emitted` counts what was placed;
  a removal point (`last_cuts`, R-WS-1) is `_emitted` plus the held partials.
- `flush()` ends every mode and leaves the object as new (R-REUSE-1).

Fast paths (benchmarks/performance.py), each doing what the character-by-
character path would do, and all switched off by `fast_paths=False`:

1. `feed` places a whole delta that holds none of the characters the current
   mode looks for, while nothing is held.
2. The mode scanners hand a run of plain text (and, in fenced code, the rest of
   a line that can no longer close the fence) in one step.
3. A whole tag is matched by one regex from its first character
   (`MatchTable.tag_at`), and a tag start character that begins no tag with the
   next character is placed at once.

With `fast_paths=False` every character goes through the partial-tag
machinery; tests/test_reference_fast_paths.py checks with Hypothesis that both
settings give the same output at every feed and at flush, and the same
`last_cuts`. Memory stays flat on an endless stream when `record_cuts=False`
(then `last_cuts` is not kept).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from scrubcheck.model import CUT_OFF
from scrubcheck.vocabulary import (
    FEATURES,
    GENERIC,
    CustomDelimiter,
    Tag,
    conformance_classes,
    custom_delimiters,
    fold,
)

from .blocks import HEAD, BlockTracker
from .harmony import HEADER_KEPT, message_is_visible
from .hooks import NO_QUIRKS, Quirks
from .spans import BACKTICK_RUN, LineIndex, guarded_until
from .states import (
    ANSWER,
    BLOCK,
    FENCE,
    AnswerState,
    BlockState,
    FenceState,
    HeaderState,
    HeldTag,
    Mode,
)
from .tables import MatchTable, tables_for


class ReferenceScrubber:
    """Streaming scrubber: `feed(delta) -> str`, `flush() -> str`, reusable after flush."""

    #: every feature of the registry, a live view: a format added with --formats is
    #: supported too (the adapter reads it once the formats are registered)
    supported_features = FEATURES.keys()
    #: SPEC section 12: every conformance class, each chosen by `conformance_class`
    #: (a callable, so that a format added with --formats is claimed too)
    claims = staticmethod(conformance_classes)
    #: the public hook for test scrubbers (hooks.py): none here, SPEC throughout
    quirks: Quirks = NO_QUIRKS

    def __init__(
        self,
        *,
        starts_in_reasoning: bool = False,
        inline_answer: bool = False,
        finish_reason: str | None = "stop",
        features: tuple[str, ...] | list[str] | frozenset[str] = (),
        may_skip_reasoning: bool = False,
        delimiters: Iterable[Mapping[str, object] | CustomDelimiter] = (),
        conformance_class: str = GENERIC,
        record_cuts: bool = True,
        fast_paths: bool = True,
    ) -> None:
        """`delimiters`: the caller's pairs and markers (SPEC R-CUSTOM-1), as mappings
        {'open', 'close'} or {'marker'}; an unusable set raises DelimiterError here.
        `conformance_class`: the class the stream is read in (SPEC section 12): generic,
        or a format whose delimiters are then the whole vocabulary (KeyError if unknown).
        `record_cuts=False` keeps no removal points (`last_cuts` stays empty), so that
        memory does not grow with the number of removed pieces in a very long stream.
        `fast_paths=False` scans character by character (same output, slower): the
        yardstick the fast paths are tested against."""
        self._record_cuts = record_cuts
        self._fast = fast_paths
        self._starts_in_reasoning = bool(starts_in_reasoning)
        self._inline_answer = bool(inline_answer)
        # SPEC R-SKIP-1: with both signals the inline-answer reading wins (it shows less)
        self._may_skip = bool(may_skip_reasoning) and not self._inline_answer
        self._finish_reason = finish_reason
        self._tables = self.quirks.tables(tables_for(
            frozenset(features), custom_delimiters(delimiters), conformance_class))
        self._hold_limit = self.quirks.max_holdback  # read on every feed: kept at hand
        self._tail_limit = self.quirks.flush_leaks_block_tail
        self._tail = ""  # with _tail_limit: the last characters kept in the block
        self.last_cuts: list[int] = []
        self._reset()

    # ------------------------------------------------------------------ API
    def feed(self, delta: str) -> str:
        if self._hold_limit is not None:  # Quirks.max_holdback (a broken scrubber)
            return self._feed_with_short_holdback(delta, self._hold_limit)
        if self._skip_text is not None:  # SPEC R-SKIP-2: undecided until the end or a close
            self._skip_text.append(delta)
        if delta and self._held is None and self._fast:  # fast path 1
            mode = self._mode
            if mode is ANSWER:
                # Plain answer text that cannot change the state: nothing held, not a
                # character of a line's head (R-CODE-2, blocks.py), and no tag start,
                # backtick or line feed in it. Tables whose classify was changed
                # (scrubbers/broken) have no special_chars, and so no fast path. Inline:
                # this is the cost of every one-character delta.
                a = self._answer
                chars = self._tables.outside.special_chars
                blocks = self._blocks
                if chars and not (a.stack or a.run or a.tilde or a.drop_run) and (
                    not blocks.head_open or delta[0] not in HEAD
                ):
                    for c in chars:
                        if c in delta:
                            break
                    else:
                        blocks.head_open = False  # (R-CODE-2) the line's head ended
                        a.last_backtick = False
                        self._emitted += len(delta)
                        return delta
            elif self._place_whole(delta, mode):
                return "" if mode is BLOCK else delta
        self._process(delta, eof=False)
        return self._take()

    def flush(self, finish_reason: str | None = None) -> str:
        reason = self._finish_reason if finish_reason is None else finish_reason
        leaked = self._leaked_tail(reason) if self._tail_limit else ""
        self._cut_off = reason in CUT_OFF  # R-CODE-6
        self._process("", eof=True)
        self._end_of_stream(reason, allow_recovery=True)
        out = self._take()
        self.last_cuts = self._cuts
        self._reset()  # R-REUSE-1
        return out + leaked

    # ---------------------------------------------------- quirks (hooks.py)
    def _feed_with_short_holdback(self, delta: str, limit: int) -> str:
        """Quirks.max_holdback: release the held partials once they pass `limit`."""
        self._process(delta, eof=False)
        if sum(len(p) for p in self._answer.stack) > limit:
            self._emit_dead_stack()
        return self._take()

    def _leaked_tail(self, reason: str | None) -> str:
        """Quirks.flush_leaks_block_tail: the block's last kept characters, unless the
        block is gone or R-UNCLOSED-2 recovers it."""
        recovers = self._inline_answer and reason == "stop" and self._block.has_newline
        return self._tail if self._mode is BLOCK and not recovers else ""

    def reset(self) -> None:
        """Drop the current stream without output (for callers that abandon a stream)."""
        self._reset()

    # --------------------------------------------------------- fast path 1
    def _place_whole(self, delta: str, mode: Mode) -> bool:
        """In a block or fenced code: place `delta` whole when it holds nothing the
        scanner of that mode would act on."""
        if mode is BLOCK:
            b = self._block
            chars = b.closes.special_chars  # type: ignore[union-attr]  # set in every block
            if not chars or b.partial or b.run:
                return False
            for c in chars:
                if c in delta:
                    return False
            self._keep(delta)
            return True
        assert self._fence is not None
        if (self._blocks.head_open and not self._fence.opener_line) or "\n" in delta:
            return False
        self._emitted += len(delta)
        self._answer.last_backtick = delta[-1] == "`"
        self._blocks.see(delta)
        return True

    # ---------------------------------------------------------------- state
    def _reset(self) -> None:
        self._out: list[str] = []
        self._emitted = 0
        self._cuts: list[int] = []
        self._cut_off = False  # R-CODE-6: set by flush before the held line is judged
        self._mode = ANSWER
        self._held: HeldTag | None = None
        self._answer = AnswerState()
        self._fence: FenceState | None = None
        self._blocks = BlockTracker()  # R-CODE-2: block structure of the visible text
        self._block = BlockState()
        self._header: HeaderState | None = None
        self._header_length = 0  # characters of the current harmony header, kept or not
        # SPEC R-SKIP-1: the whole input while a pre-filled block that may be an answer
        # is open (None when that cannot happen, or once a close ended the block)
        self._skip_text: list[str] | None = None
        if self._starts_in_reasoning:  # R-ORPHAN-2: any close of the vocabulary ends it
            self._enter_block(self._tables.any_close)
            if self._may_skip:
                self._skip_text = []

    # Read by probes outside this module (benchmarks/perf/memory.py, tests): the
    # held partials and the other hold-backs under their former names. The broken
    # scrubbers use none of them: they state their bug through `quirks` (hooks.py).
    @property
    def _stack(self) -> list[str]:
        return self._answer.stack

    @property
    def _deferred(self) -> list[str] | None:
        return None if self._held is None else self._held.parts

    @property
    def _partial(self) -> str:
        return self._block.partial

    @property
    def _block_line(self) -> list[str] | None:
        return self._block.line

    @property
    def _block_has_newline(self) -> bool:
        return self._block.has_newline

    # --------------------------------------------------------------- output
    def _take(self) -> str:
        out = "".join(self._out)
        self._out = []
        return out

    def _emit(self, text: str) -> None:
        self._emit_raw(text)

    def _emit_raw(self, text: str) -> None:
        if text:
            self._out.append(text)
            self._emitted += len(text)
            self._answer.last_backtick = text[-1] == "`"
            self._blocks.see(text)  # R-CODE-2, R-CODE-6: structure of the visible text

    def _cut(self) -> None:
        """Note a removal point (R-WS-1): after the output and the held partials."""
        if self._record_cuts:
            self._cuts.append(self._emitted + sum(len(p) for p in self._answer.stack))

    # ------------------------------------------------------------- driving
    def _scan(self, s: str, i: int, n: int) -> int:
        mode = self._mode
        if mode is ANSWER:
            return self._scan_answer(s, i, n)
        if mode is FENCE:
            return self._scan_fence(s, i, n)
        return self._scan_block(s, i, n)

    def _process(self, text: str, eof: bool) -> None:
        i, n = 0, len(text)
        while i < n and self._held is None:  # the usual case: nothing held for a line
            mode = self._mode  # `_scan`, inline: this runs for every delta
            if mode is ANSWER:
                i = self._scan_answer(text, i, n)
            elif mode is FENCE:
                i = self._scan_fence(text, i, n)
            else:
                i = self._scan_block(text, i, n)
        if self._held is not None:
            self._process_held(text, i, eof)

    def _process_held(self, text: str, start: int, eof: bool) -> None:
        """Go on from `start` while a tag waits for the rest of its line (R-CODE-6)."""
        # Work items are (text, position, index); an index means the text runs to the
        # end of the current line, so a held tag in it can be judged at once.
        work: list[tuple[str, int, LineIndex | None]] = [(text, start, None)]
        while work:
            segment, i, index = work.pop()
            n = len(segment)
            while True:
                held = self._held
                if held is not None:
                    if index is not None:
                        i = self._resolve(segment, i, index)
                        continue
                    j = segment.find("\n", i)
                    if j < 0:
                        held.parts.append(segment[i:])
                        break
                    held.parts.append(segment[i : j + 1])
                    work.append((segment, j + 1, None))
                    work.append(self._held_line())
                    break
                if i >= n:
                    break
                i = self._scan(segment, i, n)
            if eof and not work and self._held is not None:
                work.append(self._held_line(at_end=True))

    def _held_line(self, at_end: bool = False) -> tuple[str, int, LineIndex]:
        """The held tag and the rest of its line, as one indexed work item.

        A line that a cut-off stream ends is judged the way that removes more
        (R-CODE-6): a backtick run at the cut closes no span outside a block (so a
        tag there is a tag), but still may inside one (so the block goes on).
        """
        held = self._held
        assert held is not None
        line = "".join(held.parts)
        held.parts = []
        cut = at_end and self._cut_off
        return line, len(held.raw), self.quirks.line_index(line, LineIndex(line, cut=cut))

    def _resolve(self, line: str, offset: int, index: LineIndex) -> int:
        """Judge the held tag that ends at `offset`; return where to go on scanning."""
        held = self._held
        assert held is not None
        self._held = None
        if held.in_block:  # R-CODE-5: a close inside a span of the block's text is text
            end = guarded_until(self._block.runs, index, offset, in_block=True)
            if end is None:
                self._leave_block(held.tag)
                return offset
            self._keep(line[offset:end])
            self._block.runs.reset()
            return end
        a = self._answer
        if a.fence_candidate and not index.has_run_from(offset) and not index.cut:
            # The line opened with a backtick fence and holds no other backtick: the
            # tag is in the fence's info string, and the fence starts on the next line
            # (R-CODE-2). A line the cut ends may still have had a backtick after it
            # (R-CODE-6): then it is no fence opener, and the tag is read as a tag.
            self._emit_dead_stack()
            self._emit(held.raw + line[offset:])
            a.runs.reset()
            a.fence_candidate = False
            if line.endswith("\n") and self._blocks.in_fence:
                self._open_fence(opener_line=False)
            return len(line)
        end = guarded_until(a.runs, index, offset)
        if end is None:  # R-CODE-3: no span encloses it
            self._real_tag(held.raw, held.tag)
            return offset
        self._emit_dead_stack()  # R-CODE-1: inside a span, the tag is literal
        self._emit(held.raw + line[offset:end])
        a.runs.reset()
        a.fence_candidate = False
        return end

    # --------------------------------------------------------- answer text
    def _scan_answer(self, s: str, i: int, n: int) -> int:
        """Mode ANSWER from `s[i]`; returns where the mode changed, a line was held,
        or `n`."""
        a = self._answer
        special = self._tables.outside.special.search
        fast = self._fast
        while i < n:
            if self._held is not None or self._mode is not ANSWER:
                return i
            c = s[i]
            if a.drop_run or a.run or a.stack:
                went_on = self._answer_pending(s, i, c)
                if went_on is not None:
                    i = went_on
                    continue
            if a.tilde or self._blocks.head_open:
                went_on = self._line_start(s, i, c)
                if went_on is not None:
                    i = went_on
                    continue
            if fast:  # fast path 2: plain text up to the next special character
                match = special(s, i)
                j = match.start() if match else n
                if j > i:
                    # Nothing above applied to it past its first character, and the
                    # line's head has ended (its characters go one by one).
                    self._out.append(s[i:j])
                    self._emitted += j - i
                    a.last_backtick = False
                    if j == n:
                        return n
                    i = j
            i = self._answer_char(s, i, n)
        return i

    def _answer_pending(self, s: str, i: int, c: str) -> int | None:
        """What the characters before `s[i]` left pending: a dropped run (R-CODE-7), a
        backtick run whose end was unknown (R-CODE-1), held partials (R-TAG-1).
        Returns where to go on, or None when `c` is still to be read as usual."""
        a = self._answer
        if a.drop_run:
            if c == "`":  # R-CODE-7: a run right after a removed piece goes with it
                return BACKTICK_RUN.match(s, i).end()  # type: ignore[union-attr]  # s[i] is `
            a.drop_run = False
        if a.run:
            if c == "`":
                j = BACKTICK_RUN.match(s, i).end()  # type: ignore[union-attr]  # s[i] is `
                self._emit_raw(s[i:j])
                a.run += j - i
                return j
            self._end_run()
        if a.stack:
            if c == "`" or c == "\n":  # R-TAG-1: no tag holds either: the partials are text
                self._emit_dead_stack()
                return i
            self._stack_char(c)
            return i + 1
        return None

    def _line_start(self, s: str, i: int, c: str) -> int | None:
        """The head of a visible line: the characters that may shape its block structure
        (container markers, indentation, a tilde run), emitted one by one so that the
        block tracker sees them (R-CODE-2). Returns where to go on, or None when `c` is
        still to be read as usual (a tag start, a backtick, a line feed, or text that
        ends the head)."""
        a = self._answer
        blocks = self._blocks
        if a.tilde:
            if c == "~":
                a.tilde += 1
                self._emit_raw(c)
                return i + 1
            count, a.tilde = a.tilde, 0
            if c != "\n" and blocks.could_open_fence(a.tilde_start, "~", count):
                self._open_fence(opener_line=True)  # the rest is its info string
                return i
            # else `c` is read as below; at a line feed the tracker opens the fence
        if c == "`" or c == "\n" or c in self._tables.outside.start_chars:
            return None
        if c == "~":
            a.tilde, a.tilde_start = 1, blocks.head_length
            self._emit_raw(c)
            return i + 1
        if c in HEAD:
            self._emit_raw(c)
            return i + 1
        blocks.head_open = False  # text: the head has ended
        return None

    def _answer_char(self, s: str, i: int, n: int) -> int:
        """Read `s[i]` with nothing pending: a line feed, the start of a backtick run,
        or (with fast paths off, any other character) a possible tag start."""
        c = s[i]
        if c == "\n":
            self._newline()
            return i + 1
        if c == "`":
            a = self._answer
            a.run_at_line_start = self._blocks.head_open
            a.run_start = self._blocks.head_length
            j = BACKTICK_RUN.match(s, i).end()  # type: ignore[union-attr]  # s[i] is `
            self._emit_raw(s[i:j])
            a.run = j - i
            return j
        if self._fast:  # fast path 3
            table = self._tables.outside
            found = table.tag_at(s, i)  # the stack is empty here
            if found is not None:
                end, tag = found
                self._tag(s[i:end], tag)
                return end
            if i + 1 < n and table.classify(s[i : i + 2]) is None:
                # Not a tag and not the start of one: what the stack would do, at once.
                after = s[i + 1]
                if after == "`" or after == "\n":
                    self._emit(c)
                    return i + 1
                if after not in table.start_chars:
                    self._emit(s[i : i + 2])
                    return i + 2
        self._stack_char(c)
        return i + 1

    def _end_run(self) -> None:
        """A backtick run ended: it may open a fence (R-CODE-2) or pair (R-CODE-1)."""
        a = self._answer
        run, a.run = a.run, 0
        at_start, a.run_at_line_start = a.run_at_line_start, False
        if at_start and run >= 3 and not a.runs.open_run and \
                self._blocks.could_open_fence(a.run_start, "`", run):
            a.runs.open_run = run
            a.fence_candidate = True
            return
        a.fence_candidate = False
        a.runs.add(run)

    def _newline(self) -> None:
        """Spans never cross a line feed (R-CODE-1); the block tracker reads the line that
        ends, and a fence it opened starts on the next line (R-CODE-2)."""
        a = self._answer
        self._emit_raw("\n")
        a.runs.reset()
        a.fence_candidate = False
        a.tilde = 0
        if self._blocks.in_fence:
            self._open_fence(opener_line=False)

    def _stack_char(self, c: str) -> None:
        stack = self._answer.stack
        if stack:
            # The held partials form one visible run (they touch, or a removed piece lies
            # between them), so `c` may extend several of them together: `{` `{` + `/` is
            # `{{/`. The longest run at the top that `c` extends to (the start of) a tag
            # wins, where a plain scan would have started the tag (R-TAG-1).
            table = self._tables.outside
            joined, k, best_k, best_kind = stack[-1] + c, 1, 0, None
            while True:
                kind = table.classify(joined)
                if kind:
                    best_k, best_kind, best = k, kind, joined
                if k == len(stack) or len(joined) >= table.max_len:
                    break
                k += 1
                joined = stack[-k] + joined
            if best_k:
                del stack[-best_k:]
                if isinstance(best_kind, Tag):
                    self._tag(best, best_kind)
                else:
                    stack.append(best)
                return
            self._settle(stack.pop() + c)
            return
        self._settle(c)

    def _settle(self, text: str) -> None:
        """Place `text`, which directly follows the held partials, after a failed match.

        It ends in a whole tag, or in its longest suffix that is a partial tag, or
        in neither. What stands before that end piece is again split into a chain
        of partial tags that touch one another, because each of them would be
        spliced if the piece after it were removed (R-TAG-1, as in
        `<|channel|>analysis<think>x</think><|message|>`). Text that is not part of
        the chain is dead, and so is every held partial before it.
        """
        table = self._tables.outside
        found = _last_piece(table, text, len(text), whole=True)
        if found is None:
            self._emit_dead_stack()
            self._emit(text)
            return
        start, kind = found
        chain: list[str] = []
        end = start
        while end > 0:
            below = _last_piece(table, text, end, whole=False)
            if below is None:
                break
            chain.append(text[below[0] : end])
            end = below[0]
        if end > 0:
            self._emit_dead_stack()
            self._emit(text[:end])
        self._answer.stack.extend(reversed(chain))
        if isinstance(kind, Tag):
            self._tag(text[start:], kind)
        else:
            self._answer.stack.append(text[start:])

    def _emit_dead_stack(self) -> None:
        """The held partials can no longer become a tag: they are answer text."""
        stack = self._answer.stack
        if stack:
            text = "".join(stack)
            stack.clear()
            self._emit(text)

    def _tag(self, raw: str, tag: Tag) -> None:
        """A tag in answer text: judged now, or held with its line after an open run."""
        if self._answer.runs.open_run:  # R-CODE-6: a span may still enclose it
            self._held = HeldTag(raw, tag, in_block=False, parts=[raw])
            return
        self._real_tag(raw, tag)

    def _real_tag(self, raw: str, tag: Tag) -> None:
        """A tag outside code: removed (R-ORPHAN-1, R-HARMONY-3); an open tag starts a
        block (R-BLOCK-1) or a harmony header (R-HARMONY-1)."""
        if not self.quirks.splices_partials:  # Quirks.splices_partials (R-TAG-1 off)
            self._emit_dead_stack()
        self._cut()
        a = self._answer
        a.drop_run = a.last_backtick and not a.stack  # R-CODE-7
        if tag.kind == "open":
            closes = self._tables.closes_by_name[tag.names]  # R-BLOCK-2, R-CUSTOM-2
            if tag.header:  # SPEC R-HARMONY-1: a header, read when `<|message|>` ends it
                self._enter_block(closes, recover=False)
                self._header = HeaderState(opened_by_start=fold(raw) == "<|start|>")
                self._header_length = 0  # R-HARMONY-1: each header is measured alone
            else:
                self._enter_block(closes)

    # ---------------------------------------------------------- fenced code
    def _open_fence(self, opener_line: bool) -> None:
        """R-CODE-2: `opener_line`: the rest of this line is the info string."""
        self._mode = FENCE
        self._fence = FenceState(opener_line)
        a = self._answer
        a.runs.reset()
        a.fence_candidate = False
        a.tilde = 0

    def _leave_fence(self) -> None:
        """R-CODE-2: the fence closed, or the line left one of its containers; the scan
        goes on in answer text, on a line whose head the tracker has seen."""
        self._mode = ANSWER
        self._fence = None

    def _scan_fence(self, s: str, i: int, n: int) -> int:
        """Mode FENCE: everything is emitted; returns after the line that closed the
        fence, or before the character that shows a line left its containers (R-CODE-2)."""
        fence = self._fence
        assert fence is not None
        blocks = self._blocks
        fast = self._fast
        while i < n:
            if fast and (fence.opener_line or not blocks.head_open):
                j = s.find("\n", i)  # fast path 2: the rest of the line is code
                if j < 0:
                    self._emit_raw(s[i:])
                    return n
                self._emit_raw(s[i:j])
                i = j
            c = s[i]
            if c != "\n" and blocks.head_open and not fence.opener_line and \
                    blocks.fence_goes_on(c) is False:
                self._leave_fence()  # a container of the fence ended before `c`
                return i
            i += 1
            self._emit_raw(c)
            if c == "\n":
                fence.opener_line = False
                if not blocks.in_fence:  # its closing line, or a line that left its container
                    self._leave_fence()
                    return i
        return i

    # ---------------------------------------------------------------- block
    def _enter_block(self, closes: MatchTable, recover: bool = True) -> None:
        """`recover=False`: R-UNCLOSED-2 never recovers from this block (a harmony
        header or hidden message, SPEC R-HARMONY-1/2)."""
        self._mode = BLOCK
        self._tail = ""  # Quirks.flush_leaks_block_tail: only this block's text
        b = self._block
        b.closes = closes
        b.partial = ""
        b.run = 0
        b.runs.reset()
        b.line = [] if self._inline_answer and recover else None
        b.has_newline = False

    def _leave_block(self, tag: Tag | None = None) -> None:
        """A close ended the block (R-BLOCK-2); a header decides what follows it; the
        open of a tool section that ends reasoning starts that section (R-BLOCK-5)."""
        header, self._header = self._header, None
        self._mode = ANSWER
        self._block.closes = None
        self._block.line = None
        self._skip_text = None  # R-SKIP-3: a close ended the pre-filled block: reasoning
        if tag is not None and tag.kind == "open":  # R-BLOCK-5: hidden to its own close
            self._enter_block(self._tables.closes_by_name[tag.names])
            return
        if header is not None and not message_is_visible(header.opened_by_start,
                                                         "".join(header.parts)):
            # SPEC R-HARMONY-2: analysis, tool calls, other roles: hidden to the message's end
            assert self._tables.harmony_message is not None
            self._enter_block(self._tables.harmony_message, recover=False)

    def _keep(self, text: str) -> None:
        """Text inside the block: nothing shown; kept only where it may still count."""
        if self._tail_limit:  # Quirks.flush_leaks_block_tail
            self._tail = (self._tail + text)[-self._tail_limit:]
        if self._block.line is not None and text:
            self._block.line.append(text)
        if self._header is not None:
            self._add_header(text)

    def _add_header(self, text: str) -> None:
        """Collect header text, no more than makes it too long to be a header."""
        header = self._header
        assert header is not None
        if self._header_length <= HEADER_KEPT:
            header.parts.append(text[: HEADER_KEPT + 1 - self._header_length])
            self._header_length += len(text)

    def _scan_block(self, s: str, i: int, n: int) -> int:
        """Mode BLOCK: look for a close of `closes`; returns where the block ended, a
        line was held, or `n`."""
        b = self._block
        table = b.closes
        assert table is not None
        fast = self._fast
        while i < n:
            if self._held is not None or self._mode is not BLOCK or b.closes is not table:
                return i  # decided, or a harmony header gave way to its hidden message
            c = s[i]
            if b.run or b.partial:
                went_on = self._block_pending(s, i, c, table)
                if went_on is not None:
                    i = went_on
                    continue
            if fast:  # fast path 2: reasoning up to the next special character
                match = table.special.search(s, i)
                j = match.start() if match else n
                if j > i:
                    self._keep(s[i:j])
                    i = j
                    continue
            i = self._block_char(s, i, table)
        return i

    def _block_pending(self, s: str, i: int, c: str, table: MatchTable) -> int | None:
        """A backtick run whose end was unknown (R-CODE-5) or a partial close tag.
        Returns where to go on, or None when `c` is still to be read as usual."""
        b = self._block
        if b.run:
            if c == "`":
                j = BACKTICK_RUN.match(s, i).end()  # type: ignore[union-attr]  # s[i] is `
                self._keep(s[i:j])
                b.run += j - i
                return j
            b.runs.add(b.run)
            b.run = 0
        if b.partial and c != "`" and c != "\n":
            candidate = b.partial + c
            self._keep(c)
            kind = table.classify(candidate)
            if not kind:
                # The longest suffix that still matches, as after a failed match outside.
                found = _last_piece(table, candidate, len(candidate), whole=True)
                start, kind = found if found else (len(candidate), None)
                candidate = candidate[start:]
            if isinstance(kind, Tag):
                b.partial = ""
                self._close(candidate, kind)
            else:
                b.partial = candidate if kind else ""
            return i + 1
        b.partial = ""
        return None

    def _block_char(self, s: str, i: int, table: MatchTable) -> int:
        """Read `s[i]` with nothing pending: a line feed, a backtick run, or a possible
        start of a close tag."""
        c = s[i]
        b = self._block
        if c == "\n":
            b.runs.reset()  # R-CODE-5: pairing starts again on each line
            b.has_newline = True
            if b.line is not None:
                b.line = []  # R-UNCLOSED-2: only the text after the last line feed
            if self._header is not None:
                self._add_header(c)
            return i + 1
        if c == "`":
            j = BACKTICK_RUN.match(s, i).end()  # type: ignore[union-attr]  # s[i] is `
            self._keep(s[i:j])
            b.run = j - i
            return j
        if self._fast:  # fast path 3
            found = table.tag_at(s, i)  # no partial is held here
            if found is not None:
                end, tag = found
                raw = s[i:end]
                self._keep(raw)
                self._close(raw, tag)
                return end
        self._keep(c)
        kind = table.classify(c)
        if isinstance(kind, Tag):
            self._close(c, kind)
        elif kind:
            b.partial = c
        return i + 1

    def _close(self, raw: str, tag: Tag) -> None:
        """A close of this block: it ends the block, unless a span may enclose it."""
        if self._block.runs.open_run:  # R-CODE-5, R-CODE-6: judged with its line
            self._held = HeldTag(raw, tag, in_block=True, parts=[raw])
            return
        self._leave_block(tag)

    # --------------------------------------------------------- end of stream
    def _end_of_stream(self, finish_reason: str | None, allow_recovery: bool) -> None:
        if self._mode is BLOCK and self._skip_text is not None and allow_recovery:
            # SPEC R-SKIP-1: the pre-filled block never closed and the model stopped: it
            # skipped reasoning, and the whole stream is answer text (read as such).
            whole, self._skip_text = "".join(self._skip_text), None
            self._leave_block()
            if finish_reason == "stop":
                self._process(whole, eof=True)
                self._end_of_stream(finish_reason, allow_recovery=False)
                return
        if self._mode is BLOCK:
            recovered = self._unclosed_block(finish_reason, allow_recovery)
            if recovered:
                self._process(recovered, eof=True)
                self._end_of_stream(finish_reason, allow_recovery=False)
                return
        if self._mode is ANSWER and self._answer.run:
            self._end_run()
        # R-TAG-1, R-UNCLOSED-4: partial tags held at the end (also before a block that
        # never closed, `a <` of `a <<|start|>...`) were never part of a tag: answer text.
        self._emit_dead_stack()

    def _unclosed_block(self, finish_reason: str | None, allow_recovery: bool) -> str:
        """End a block still open at the end of the stream: discarded (R-UNCLOSED-1),
        except the text after its last line feed when R-UNCLOSED-2 recovers it."""
        b = self._block
        if b.run:
            b.runs.add(b.run)
            b.run = 0
        recovered = ""
        if (
            allow_recovery  # at most once per stream
            and self._inline_answer
            and finish_reason == "stop"  # R-UNCLOSED-3
            and b.has_newline
            and b.line is not None
        ):
            recovered = "".join(b.line)
        self._leave_block()
        return recovered


def _last_piece(
    table: MatchTable, text: str, end: int, *, whole: bool
) -> tuple[int, Tag | bool] | None:
    """The longest `text[start:end]` that is a partial tag (or, with `whole`, a tag)."""
    for start in range(max(0, end - table.max_len), end):
        if text[start] in table.start_chars:
            kind = table.classify(text[start:end])
            if kind is True or (whole and isinstance(kind, Tag)):
                return start, kind
    return None
