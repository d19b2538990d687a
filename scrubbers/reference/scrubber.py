"""The reference streaming scrubber: SPEC.md made executable.

Design, in one paragraph: the input is scanned once, left to right, in one of
three modes (answer text, fenced code, block). Ordinary characters are skipped
in bulk with one regex search; only tag start characters, backticks and line
feeds are looked at one by one. A partial tag is held on a small stack so that
text joined around a removed piece is still recognised as a tag (R-TAG-1). A
tag that stands after a still-open backtick run cannot be judged until the
rest of its line is known (R-CODE-1/3/5); only then is the line held back, and
it is resolved in one pass. Every character is therefore scanned a bounded
number of times, which keeps the scrubber linear (R-ROBUST-2).

Speed (benchmarks/performance.py): a delta that holds none of the characters
the current mode looks for, while nothing is held, is placed whole by `feed`
without entering the scanner; a whole tag is matched by one regex from its
first character; and the scanner hands plain text and the special character
after it in one step. Each of these does exactly what the character-by-character
path would do (the reference's own tests and a differential run against the
previous version check it). Memory stays flat on an endless stream when
`record_cuts=False` (then `last_cuts` is not kept).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from scrubcheck.model import CUT_OFF
from scrubcheck.vocabulary import FEATURES, CustomDelimiter, Tag, custom_delimiters, fold

from .harmony import HEADER_KEPT, message_is_visible
from .spans import BACKTICK_RUN, LineIndex, RunState, guarded_until
from .tables import MatchTable, tables_for

OUT, FENCE, BLOCK = "out", "fence", "block"


class ReferenceScrubber:
    """Streaming scrubber: `feed(delta) -> str`, `flush() -> str`, reusable after flush."""

    supported_features = frozenset(FEATURES)

    def __init__(
        self,
        *,
        starts_in_reasoning: bool = False,
        inline_answer: bool = False,
        finish_reason: str | None = "stop",
        features: tuple[str, ...] | list[str] | frozenset[str] = (),
        may_skip_reasoning: bool = False,
        delimiters: Iterable[Mapping[str, object] | CustomDelimiter] = (),
        record_cuts: bool = True,
    ) -> None:
        """`delimiters`: the caller's pairs and markers (SPEC R-CUSTOM-1), as mappings
        {'open', 'close'} or {'marker'}; an unusable set raises DelimiterError here.
        `record_cuts=False` keeps no removal points (`last_cuts` stays empty), so that
        memory does not grow with the number of removed pieces in a very long stream."""
        self._record_cuts = record_cuts
        self._starts_in_reasoning = bool(starts_in_reasoning)
        self._inline_answer = bool(inline_answer)
        # SPEC R-SKIP-1: with both signals the inline-answer reading wins (it shows less)
        self._may_skip = bool(may_skip_reasoning) and not self._inline_answer
        self._finish_reason = finish_reason
        self._tables = tables_for(frozenset(features), custom_delimiters(delimiters))
        self.last_cuts: list[int] = []
        self._reset()

    # ------------------------------------------------------------------ API
    def feed(self, delta: str) -> str:
        if self._skip_text is not None:  # SPEC R-SKIP-2: undecided until the end or a close
            self._skip_text.append(delta)
        # Fast paths: a delta with no character that could change the state (no tag
        # start, backtick or line feed) while nothing is held, the common case, is
        # placed whole. Tables whose classify was changed have no special_chars.
        if delta and self._deferred is None:
            mode = self._mode
            if mode is OUT:
                chars = self._tables.outside.special_chars
                if chars and not (self._stack or self._run or self._tilde or self._drop_run) and (
                    self._col < 0 or delta[0] not in " ~"
                ):
                    for c in chars:
                        if c in delta:
                            break
                    else:
                        self._col = -1
                        self._emitted += len(delta)
                        self._last_backtick = False
                        return delta
            elif mode is BLOCK:
                chars = self._closes.special_chars  # type: ignore[union-attr]
                if chars and not (self._partial or self._block_run):
                    for c in chars:
                        if c in delta:
                            break
                    else:
                        self._keep(delta)
                        return ""
            elif self._fence_line == "no" and "\n" not in delta:
                self._emitted += len(delta)
                self._last_backtick = delta[-1] == "`"
                return delta
        self._process(delta, eof=False)
        return self._take()

    def flush(self, finish_reason: str | None = None) -> str:
        reason = self._finish_reason if finish_reason is None else finish_reason
        self._cut_off = reason in CUT_OFF
        self._process("", eof=True)
        self._end_of_stream(reason, allow_recovery=True)
        out = self._take()
        self.last_cuts = self._cuts
        self._reset()
        return out

    def reset(self) -> None:
        """Drop the current stream without output (for callers that abandon a stream)."""
        self._reset()

    # ---------------------------------------------------------------- state
    def _reset(self) -> None:
        self._out: list[str] = []
        self._emitted = 0
        self._cuts: list[int] = []
        self._mode = OUT
        self._deferred: list[str] | None = None
        self._deferred_tag: tuple[str, Tag] | None = None
        self._deferred_in_block = False
        self._cut_off = False
        # answer text
        self._stack: list[str] = []
        self._last_backtick = False  # the visible text ends with a backtick
        self._drop_run = False  # R-CODE-7: a run right after a removed piece is dropped
        self._col = 0  # leading spaces on the visible line, -1 once anything else shows
        self._tilde = 0
        self._run = 0
        self._run_at_line_start = False
        self._runs = RunState()
        self._fence_candidate = False
        # fenced code
        self._fence: tuple[str, int] | None = None
        self._fence_line = "lead"
        self._fence_lead = 0
        self._fence_run = 0
        # block
        self._closes: MatchTable | None = None
        self._partial = ""
        self._block_run = 0
        self._block_runs = RunState()
        self._block_line: list[str] | None = None
        self._block_has_newline = False
        # harmony header (SPEC R-HARMONY-1): its text, and whether `<|start|>` opened it
        self._header: list[str] | None = None
        self._header_len = 0
        self._header_start = False
        # SPEC R-SKIP-1: the whole input while a pre-filled block that may be an answer
        # is open (None when that cannot happen, or once a close ended the block)
        self._skip_text: list[str] | None = None
        if self._starts_in_reasoning:
            self._enter_block(self._tables.any_close)
            if self._may_skip:
                self._skip_text = []

    def _take(self) -> str:
        out = "".join(self._out)
        self._out = []
        return out

    def _emit(self, text: str) -> None:
        if text:
            self._emit_raw(text)
            if self._col >= 0 and text.strip(" "):
                self._col = -1

    def _emit_raw(self, text: str) -> None:
        if text:
            self._out.append(text)
            self._emitted += len(text)
            self._last_backtick = text[-1] == "`"

    def _cut(self) -> None:
        if self._record_cuts:
            self._cuts.append(self._emitted + sum(len(p) for p in self._stack))

    # ------------------------------------------------------------- driving
    def _process(self, text: str, eof: bool) -> None:
        i, n = 0, len(text)
        while i < n and self._deferred is None:  # the usual case: nothing held for a line
            mode = self._mode
            if mode is OUT:
                i = self._scan_out(text, i, n)
            elif mode is FENCE:
                i = self._scan_fence(text, i, n)
            else:
                i = self._scan_block(text, i, n)
        if self._deferred is not None:
            self._process_held(text, i, eof)

    def _process_held(self, text: str, start: int, eof: bool) -> None:
        """Go on from `start` while a tag waits for the rest of its line."""
        # Work items are (text, position, index); an index means the text runs to the
        # end of the current line, so a held tag in it can be judged at once.
        work: list[tuple[str, int, LineIndex | None]] = [(text, start, None)]
        while work:
            segment, i, index = work.pop()
            n = len(segment)
            while True:
                if self._deferred is not None:
                    if index is not None:
                        i = self._resolve(segment, i, index)
                        continue
                    j = segment.find("\n", i)
                    if j < 0:
                        self._deferred.append(segment[i:])
                        break
                    self._deferred.append(segment[i : j + 1])
                    work.append((segment, j + 1, None))
                    work.append(self._held_line())
                    break
                if i >= n:
                    break
                if self._mode == OUT:
                    i = self._scan_out(segment, i, n)
                elif self._mode == FENCE:
                    i = self._scan_fence(segment, i, n)
                else:
                    i = self._scan_block(segment, i, n)
            if eof and not work and self._deferred is not None:
                work.append(self._held_line(at_end=True))

    def _held_line(self, at_end: bool = False) -> tuple[str, int, LineIndex]:
        """The held tag and the rest of its line, as one indexed work item.

        A line that a cut-off stream ends is judged the way that removes more: a
        backtick run at the cut closes no span outside a block (so a tag there is
        a tag), but still may inside one (so the block goes on to the end).
        """
        assert self._deferred is not None and self._deferred_tag is not None
        line = "".join(self._deferred)
        self._deferred = []
        cut = at_end and self._cut_off
        return line, len(self._deferred_tag[0]), LineIndex(line, cut=cut)

    def _resolve(self, line: str, offset: int, index: LineIndex) -> int:
        """Judge the held tag that ends at `offset`; return where to go on scanning."""
        assert self._deferred_tag is not None
        raw, tag = self._deferred_tag
        self._deferred = None
        self._deferred_tag = None
        if self._deferred_in_block:
            end = guarded_until(self._block_runs, index, offset, in_block=True)
            if end is None:
                self._leave_block()
                return offset
            self._keep(line[offset:end])
            self._block_runs.reset()
            return end
        if self._fence_candidate and not index.has_run_from(offset) and not index.cut:
            # The line opened with a backtick fence and holds no other backtick: the
            # tag is in the fence's info string, and the fence starts on the next line
            # (R-CODE-2). A line the cut ends may still have had a backtick after it
            # (R-CODE-6): then it is no fence opener, and the tag is read as a tag.
            self._emit_dead_stack()
            self._emit(raw + line[offset:])
            length = self._runs.open_run
            self._runs.reset()
            self._fence_candidate = False
            if line.endswith("\n"):
                self._open_fence("`", length, opener_line=False)
            return len(line)
        end = guarded_until(self._runs, index, offset)
        if end is None:
            self._real_tag(raw, tag)
            return offset
        self._emit_dead_stack()
        self._emit(raw + line[offset:end])
        self._runs.reset()
        self._fence_candidate = False
        return end

    # --------------------------------------------------------- answer text
    def _scan_out(self, s: str, i: int, n: int) -> int:
        table = self._tables.outside
        special = table.special.search
        while i < n:
            if self._deferred is not None or self._mode != OUT:
                return i
            c = s[i]
            if self._drop_run:
                if c == "`":
                    i = BACKTICK_RUN.match(s, i).end()
                    continue
                self._drop_run = False
            if self._run:
                if c == "`":
                    j = BACKTICK_RUN.match(s, i).end()
                    self._emit_raw(s[i:j])
                    self._run += j - i
                    i = j
                    continue
                self._end_run()
            if self._stack:
                if c == "`" or c == "\n":
                    self._emit_dead_stack()
                else:
                    self._stack_char(c)
                    i += 1
                continue
            if self._tilde:
                if c == "~":
                    self._tilde += 1
                    self._emit_raw(c)
                    i += 1
                    continue
                count, self._tilde, self._col = self._tilde, 0, -1
                if count >= 3:
                    if c == "\n":
                        self._emit_raw(c)
                        i += 1
                        self._open_fence("~", count, opener_line=False)
                    else:
                        self._open_fence("~", count, opener_line=True)
                    return i
            elif self._col >= 0:
                if c == " ":
                    self._col = self._col + 1 if self._col < 3 else -1
                    self._emit_raw(c)
                    i += 1
                    continue
                if c == "~":
                    self._tilde = 1
                    self._emit_raw(c)
                    i += 1
                    continue
                if c != "`" and c != "\n" and c not in table.start_chars:
                    self._col = -1
            match = special(s, i)
            j = match.start() if match else n
            if j > i:
                # Plain text: nothing above applied to it past its first character, and
                # `_col` is already -1 (a line's leading spaces are counted one by one).
                self._out.append(s[i:j])
                self._emitted += j - i
                self._last_backtick = False
                if j == n:
                    return n
                i = j
                c = s[i]
            if c == "\n":
                self._newline()
                i += 1
            elif c == "`":
                self._run_at_line_start = self._col >= 0
                j = BACKTICK_RUN.match(s, i).end()
                self._emit_raw(s[i:j])
                self._run = j - i
                i = j
            else:
                found = table.tag_at(s, i)  # the stack is empty here
                if found is not None:
                    end, tag = found
                    self._tag(s[i:end], tag)
                    i = end
                elif i + 1 < n and table.classify(s[i : i + 2]) is None:
                    # Not a tag and not the start of one: what the stack would do, at once.
                    after = s[i + 1]
                    if after == "`" or after == "\n":
                        self._emit(c)
                        i += 1
                    elif after not in table.start_chars:
                        self._emit(s[i : i + 2])
                        i += 2
                    else:
                        self._stack_char(c)
                        i += 1
                else:
                    self._stack_char(c)
                    i += 1
        return i

    def _end_run(self) -> None:
        run, self._run = self._run, 0
        at_start, self._run_at_line_start = self._run_at_line_start, False
        self._col = -1
        if at_start and run >= 3 and not self._runs.open_run:
            self._runs.open_run = run
            self._fence_candidate = True
            return
        self._fence_candidate = False
        self._runs.add(run)

    def _newline(self) -> None:
        fence_length = self._runs.open_run if self._fence_candidate else 0
        self._emit_raw("\n")
        self._runs.reset()
        self._fence_candidate = False
        self._col = 0
        if fence_length:
            self._open_fence("`", fence_length, opener_line=False)

    def _stack_char(self, c: str) -> None:
        if self._stack:
            # The held partials form one visible run (they touch, or a removed piece lies
            # between them), so `c` may extend several of them together: `{` `{` + `/` is
            # `{{/`. The longest run at the top that `c` extends to (the start of) a tag
            # wins, where a plain scan would have started the tag (R-TAG-1).
            table = self._tables.outside
            joined, k, best_k, best_kind = self._stack[-1] + c, 1, 0, None
            while True:
                kind = table.classify(joined)
                if kind:
                    best_k, best_kind, best = k, kind, joined
                if k == len(self._stack) or len(joined) >= table.max_len:
                    break
                k += 1
                joined = self._stack[-k] + joined
            if best_k:
                del self._stack[-best_k:]
                if isinstance(best_kind, Tag):
                    self._tag(best, best_kind)
                else:
                    self._stack.append(best)
                return
            self._settle(self._stack.pop() + c)
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
        self._stack.extend(reversed(chain))
        if isinstance(kind, Tag):
            self._tag(text[start:], kind)
        else:
            self._stack.append(text[start:])

    def _emit_dead_stack(self) -> None:
        if self._stack:
            text = "".join(self._stack)
            self._stack.clear()
            self._emit(text)

    def _tag(self, raw: str, tag: Tag) -> None:
        if self._runs.open_run:
            self._deferred = [raw]
            self._deferred_tag = (raw, tag)
            self._deferred_in_block = False
            return
        self._real_tag(raw, tag)

    def _real_tag(self, raw: str, tag: Tag) -> None:
        self._cut()
        self._drop_run = self._last_backtick and not self._stack
        if tag.kind == "open":
            closes = self._tables.closes_by_name[tag.names]
            if tag.header:  # SPEC R-HARMONY-1: a header, read when `<|message|>` ends it
                self._enter_block(closes, recover=False)
                self._header = []
                self._header_start = fold(raw) == "<|start|>"
            else:
                self._enter_block(closes)

    # ---------------------------------------------------------- fenced code
    def _open_fence(self, char: str, length: int, opener_line: bool) -> None:
        self._mode = FENCE
        self._fence = (char, length)
        self._fence_line = "no" if opener_line else "lead"
        self._fence_lead = 0
        self._fence_run = 0
        self._runs.reset()
        self._fence_candidate = False

    def _scan_fence(self, s: str, i: int, n: int) -> int:
        assert self._fence is not None
        char, length = self._fence
        while i < n:
            if self._fence_line == "no":
                j = s.find("\n", i)
                if j < 0:
                    self._emit_raw(s[i:])
                    return n
                self._emit_raw(s[i:j])
                i = j
            c = s[i]
            i += 1
            self._emit_raw(c)
            if c == "\n":
                closes = self._fence_line in ("run", "trail") and self._fence_run >= length
                self._fence_line, self._fence_lead, self._fence_run = "lead", 0, 0
                if closes:
                    self._mode = OUT
                    self._fence = None
                    self._col = 0
                    return i
            elif self._fence_line == "lead":
                if c == " " and self._fence_lead < 3:
                    self._fence_lead += 1
                elif c == char:
                    self._fence_line, self._fence_run = "run", 1
                else:
                    self._fence_line = "no"
            elif self._fence_line == "run":
                if c == char:
                    self._fence_run += 1
                else:
                    self._fence_line = "trail" if c in " \t\r" else "no"
            elif c not in " \t\r":
                self._fence_line = "no"
        return i

    # ---------------------------------------------------------------- block
    def _enter_block(self, closes: MatchTable, recover: bool = True) -> None:
        """`recover=False`: R-UNCLOSED-2 never recovers from this block (a harmony
        header or hidden message, SPEC R-HARMONY-1/2)."""
        self._mode = BLOCK
        self._closes = closes
        self._partial = ""
        self._block_run = 0
        self._block_runs.reset()
        self._block_line = [] if self._inline_answer and recover else None
        self._block_has_newline = False

    def _leave_block(self) -> None:
        header, self._header = self._header, None
        self._mode = OUT
        self._closes = None
        self._block_line = None
        self._skip_text = None  # a close ended the pre-filled block: it was reasoning
        if header is not None and not message_is_visible(self._header_start, "".join(header)):
            # SPEC R-HARMONY-2: analysis, tool calls, other roles: hidden to the message's end
            assert self._tables.harmony_message is not None
            self._enter_block(self._tables.harmony_message, recover=False)

    def _keep(self, text: str) -> None:
        if self._block_line is not None and text:
            self._block_line.append(text)
        if self._header is not None:
            self._add_header(text)

    def _add_header(self, text: str) -> None:
        """Collect header text, no more than makes it too long to be a header."""
        if self._header_len <= HEADER_KEPT:
            self._header.append(text[: HEADER_KEPT + 1 - self._header_len])  # type: ignore[union-attr]
            self._header_len += len(text)

    def _scan_block(self, s: str, i: int, n: int) -> int:
        table = self._closes
        assert table is not None
        while i < n:
            if self._deferred is not None or self._mode != BLOCK or self._closes is not table:
                return i  # decided, or a harmony header gave way to its hidden message
            c = s[i]
            if self._block_run:
                if c == "`":
                    j = BACKTICK_RUN.match(s, i).end()
                    self._keep(s[i:j])
                    self._block_run += j - i
                    i = j
                    continue
                self._block_runs.add(self._block_run)
                self._block_run = 0
            if self._partial and c != "`" and c != "\n":
                candidate = self._partial + c
                self._keep(c)
                i += 1
                kind = table.classify(candidate)
                if not kind:
                    # The longest suffix that still matches, as after a failed match outside.
                    found = _last_piece(table, candidate, len(candidate), whole=True)
                    start, kind = found if found else (len(candidate), None)
                    candidate = candidate[start:]
                if isinstance(kind, Tag):
                    self._partial = ""
                    self._close(candidate, kind)
                else:
                    self._partial = candidate if kind else ""
                continue
            self._partial = ""
            match = table.special.search(s, i)
            j = match.start() if match else n
            if j > i:
                self._keep(s[i:j])
                i = j
                continue
            if c == "\n":
                self._block_runs.reset()
                self._block_has_newline = True
                if self._block_line is not None:
                    self._block_line = []
                if self._header is not None:
                    self._add_header(c)
                i += 1
            elif c == "`":
                j = BACKTICK_RUN.match(s, i).end()
                self._keep(s[i:j])
                self._block_run = j - i
                i = j
            else:
                found = table.tag_at(s, i)  # no partial is held here
                if found is not None:
                    end, tag = found
                    raw = s[i:end]
                    self._keep(raw)
                    i = end
                    self._close(raw, tag)
                    continue
                self._keep(c)
                i += 1
                kind = table.classify(c)
                if isinstance(kind, Tag):
                    self._close(c, kind)
                elif kind:
                    self._partial = c
        return i

    def _close(self, raw: str, tag: Tag) -> None:
        if self._block_runs.open_run:
            self._deferred = [raw]
            self._deferred_tag = (raw, tag)
            self._deferred_in_block = True
            return
        self._leave_block()

    # --------------------------------------------------------- end of stream
    def _end_of_stream(self, finish_reason: str | None, allow_recovery: bool) -> None:
        if self._mode == BLOCK and self._skip_text is not None and allow_recovery:
            # SPEC R-SKIP-1: the pre-filled block never closed and the model stopped: it
            # skipped reasoning, and the whole stream is answer text (read as such).
            whole, self._skip_text = "".join(self._skip_text), None
            self._leave_block()
            if finish_reason == "stop":
                self._process(whole, eof=True)
                self._end_of_stream(finish_reason, allow_recovery=False)
                return
        if self._mode == BLOCK:
            if self._block_run:
                self._block_runs.add(self._block_run)
                self._block_run = 0
            recovered = None
            if (
                allow_recovery
                and self._inline_answer
                and finish_reason == "stop"
                and self._block_has_newline
                and self._block_line is not None
            ):
                recovered = "".join(self._block_line)
            self._leave_block()
            if recovered:
                self._process(recovered, eof=True)
                self._end_of_stream(finish_reason, allow_recovery=False)
                return
        if self._mode == OUT and self._run:
            self._end_run()
        # R-TAG-1: partial tags held before a block that never closed were never part of
        # a tag; they stood before it in the answer text (`a <` of `a <<|start|>...`).
        self._emit_dead_stack()


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
