"""CommonMark's block structure over the visible text, line by line (SPEC R-CODE-2).

Why the reference needs it: whether a backtick or tilde run opens a fenced code block,
and whether a later line closes it, depends on the containers the line stands in. A
fence in a list item (`- ```` or an indented fence under `10. `) or in a block quote
(`> ````) opens and closes at that container's indentation, and a line that leaves the
container (a quote line without `>`, a line indented less than the item's content)
ends the fence with it. A tag in such a fence is answer text (the answer quotes it); a
scrubber that misses the container reads it as a tag and loses the answer after it.

Theory of operation
===================

The tracker sees the visible text as the scrubber emits it (`see`), which is the text
R-CODE-6 judges code structure on. Of each line it keeps the *head*: the longest start
made only of characters that can shape block structure (spaces, tabs, `>`, list
markers, digits, `#`, `=`, `_`, backticks, tildes, carriage returns), whether anything
follows the head, and whether a backtick follows it (a backtick fence's info string
may hold none). Nothing else of a line decides its block structure, so the tracker
holds no line text beyond its head.

At each line feed `_Parser.line` reads the line against the open blocks, following
CommonMark 0.31.2's parsing strategy (its appendix): first the open containers are
matched (a block quote by its `>`, a list item by its indentation or a blank line),
then the open leaf (a fence by its closing line or its indentation, indented code by
its indentation, a paragraph by a line that is not blank), then new blocks are started
(block quotes, ATX headings, fences, setext underlines, thematic breaks, list items,
indented code), and last a paragraph line that left its containers may stay in them as
a lazy continuation line. HTML blocks and link reference definitions are not
recognised (SPEC R-CODE-4): their lines are paragraph lines. The states:

==========  ================================================  =====================
leaf        a line that ...                                   then
==========  ================================================  =====================
NONE        opens a fence (R-CODE-2)                          FENCE
NONE        starts indented code or a paragraph               CODE, PARA
PARA        is not blank and matches or is lazy               PARA
FENCE       matches every container and closes the fence      NONE (the line is code)
FENCE       matches every container                           FENCE (the line is code)
FENCE       leaves a container of the fence                   (as a line after NONE)
CODE        is indented four columns, or blank                CODE
any         is blank                                          NONE (CODE stays)
==========  ================================================  =====================

Two questions are asked in the middle of a line, answered by reading the line so far
on a copy of the state: whether a run of backticks or tildes that follows the head
would open a fence (`could_open_fence`), and, inside a fence, whether the line has
already left one of the fence's containers (`fence_goes_on`), so that the scanner
leaves the fence before it reads the character that decided it.

A carriage return counts as a space when only spaces, tabs and carriage returns follow
it on its line, and as a character that is not whitespace otherwise (SPEC R-CODE-2):
so CRLF streams read as LF streams, and lines end only at a line feed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

#: the characters a line's head is made of: all that can shape its block structure
HEAD = frozenset(" \t\r>-+*_=#.)0123456789`~")
#: what container matching inside a fence reads before it is decided
_CONTAINER_CHARS = frozenset(" \t\r>")
_BULLET = re.compile(r"[-+*]")
_ORDERED = re.compile(r"(\d{1,9})([.)])")
_ATX = re.compile(r"#{1,6}(?![#])")
HEADING = "heading"  # a heading or thematic break: a leaf that ends at its line
_FENCE = re.compile(r"`{3,}|~{3,}")
_CLOSING = re.compile(r"(`{3,}|~{3,})[ \t]*$")
_SETEXT = re.compile(r"(?:=+|-+)[ \t]*$")
_BREAK = re.compile(r"(?:(?:\*[ \t]*){3,}|(?:_[ \t]*){3,}|(?:-[ \t]*){3,})$")


class Leaf:
    """The open leaf block of the innermost container (see the table above)."""

    NONE = "none"
    PARA = "para"
    FENCE = "fence"
    CODE = "code"


@dataclass(frozen=True, slots=True)
class Container:
    """An open block quote (`need` 0) or list item (`need`: the columns of indentation,
    counted from its parent's content, that continue it)."""

    quote: bool
    need: int = 0
    has_content: bool = True  # a list item that began blank has none until a line adds some


@dataclass(frozen=True, slots=True)
class Fence:
    char: str
    length: int
    indent: int  # the opening run's indentation: that much is stripped from its lines


@dataclass(frozen=True, slots=True)
class Blocks:
    """The open blocks after a line: the containers, outermost first, and the leaf."""

    containers: tuple[Container, ...] = ()
    leaf: str = Leaf.NONE
    fence: Fence | None = None


@dataclass(slots=True)
class Line:
    """What a line's block structure depends on: its head, whether text follows it, and
    whether a backtick stands in that text."""

    head: str
    more: bool = False
    backtick_after: bool = False

    def normalized(self) -> Line:
        """Carriage returns read (see the module's text): trailing ones are spaces; the
        first other one ends the head, and what followed it becomes text."""
        head = self.head
        if "\r" not in head:
            return self
        at = head.find("\r")
        while at >= 0:
            rest = head[at:]
            if self.more or rest.strip(" \t\r"):
                return Line(head[:at], True, self.backtick_after or "`" in rest)
            at = head.find("\r", at + 1)
        return Line(head.replace("\r", " "), self.more, self.backtick_after)


class _Cursor:
    """A position in a line's head, in characters and columns (tab stops of four; a tab
    may be consumed in part, as CommonMark's containers do)."""

    __slots__ = ("text", "more", "offset", "column", "partial_tab", "next_nonspace",
                 "next_column", "indent", "blank")

    def __init__(self, line: Line) -> None:
        self.text = line.head
        self.more = line.more
        self.offset = 0
        self.column = 0
        self.partial_tab = False
        self.next_nonspace = 0
        self.next_column = 0
        self.indent = 0
        self.blank = False

    def find_next_nonspace(self) -> None:
        i, cols, text = self.offset, self.column, self.text
        while i < len(text):
            c = text[i]
            if c == " ":
                cols += 1
            elif c == "\t":
                cols += 4 - cols % 4
            else:
                break
            i += 1
        self.next_nonspace, self.next_column = i, cols
        self.indent = cols - self.column
        self.blank = i == len(text) and not self.more

    def peek(self, at: int | None = None) -> str:
        """The character at `at` (default: the next non-space): "" at the end of the
        head, and "\\0" where text that is not head follows."""
        i = self.next_nonspace if at is None else at
        if i < len(self.text):
            return self.text[i]
        return "\0" if self.more else ""

    def rest(self) -> str:
        return self.text[self.next_nonspace:]

    def advance_next_nonspace(self) -> None:
        self.offset, self.column = self.next_nonspace, self.next_column
        self.partial_tab = False

    def advance(self, count: int, columns: bool) -> None:
        text = self.text
        while count > 0 and self.offset < len(text):
            c = text[self.offset]
            if c == "\t":
                width = 4 - self.column % 4
                if columns:
                    self.partial_tab = width > count
                    step = min(width, count)
                    self.column += step
                    self.offset += 0 if self.partial_tab else 1
                    count -= step
                else:
                    self.partial_tab = False
                    self.column += width
                    self.offset += 1
                    count -= 1
            else:
                self.partial_tab = False
                self.offset += 1
                self.column += 1
                count -= 1


@dataclass(slots=True)
class Outcome:
    """What a line was: part of a fence (its opening, content or closing line)."""

    opens: bool = False  # it opened a fence (its rest is the info string)
    at: int = -1  # where in the line's head the opening run starts
    code: bool = False  # a content or closing line of a fence
    closes: bool = False  # the fence's closing line
    left: bool = False  # an open fence ended because the line left a container of it


def read_line(blocks: Blocks, line: Line) -> tuple[Blocks, Outcome]:
    """The open blocks after `line`, and what the line was (CommonMark's strategy)."""
    if not line.head and line.more and not blocks.containers:
        # the common line: text from its first character, in no container (what the
        # strategy below concludes for it, at once)
        if blocks.leaf == Leaf.FENCE:
            return blocks, _CODE_LINE
        return (blocks if blocks.leaf == Leaf.PARA else _PARAGRAPH), _TEXT_LINE
    line = line.normalized()
    cur = _Cursor(line)
    outcome = Outcome()
    containers = list(blocks.containers)
    matched = 0
    for container in containers:  # 1. the open containers
        cur.find_next_nonspace()
        if container.quote:
            if cur.indent < 4 and cur.peek() == ">":
                cur.advance_next_nonspace()
                cur.advance(1, False)
                if cur.peek(cur.offset) in (" ", "\t"):
                    cur.advance(1, True)
            else:
                break
        elif cur.blank:
            if not container.has_content:  # a list item begins with at most one blank line
                break
            cur.advance_next_nonspace()
        elif cur.indent >= container.need:
            cur.advance(container.need, True)
        else:
            break
        matched += 1
    all_matched = matched == len(containers)
    leaf = blocks.leaf
    if all_matched and leaf == Leaf.FENCE:  # 2. the open leaf: a fence
        open_fence = blocks.fence
        assert open_fence is not None
        cur.find_next_nonspace()
        closing = _CLOSING.match(cur.rest()) if cur.indent <= 3 and not line.more else None
        if closing and closing.group(1)[0] == open_fence.char and \
                len(closing.group(1)) >= open_fence.length:
            return Blocks(blocks.containers), Outcome(code=True, closes=True)
        return _with_content(blocks, line), Outcome(code=True)
    if leaf == Leaf.FENCE:
        outcome.left = True
    cur.find_next_nonspace()
    if all_matched and leaf == Leaf.CODE and (cur.indent >= 4 or cur.blank):
        return _with_content(blocks, line), outcome
    # 3. new blocks. `interrupting`: the innermost matched block is an open paragraph (a
    # setext underline, and the list items that may interrupt one); `tip_para`: the
    # innermost open block is, matched or not (indented code never interrupts one)
    interrupting = all_matched and leaf == Leaf.PARA and not cur.blank
    tip_para = leaf == Leaf.PARA
    new: list[Container] = []
    started: str | None = None
    fence: Fence | None = None
    whole = not line.more  # the head is the whole line
    while True:
        cur.find_next_nonspace()
        if cur.indent >= 4:
            if not tip_para and not cur.blank:
                started = Leaf.CODE
            break
        rest = cur.rest()
        if rest.startswith(">"):
            cur.advance_next_nonspace()
            cur.advance(1, False)
            if cur.peek(cur.offset) in (" ", "\t"):
                cur.advance(1, True)
            new.append(Container(quote=True))
            interrupting = tip_para = False
            continue
        atx = _ATX.match(rest)
        if atx and (rest[atx.end():atx.end() + 1] in (" ", "\t") or
                    (atx.end() == len(rest) and whole)):  # `#`s, then a space, a tab or the end
            started = HEADING
            break
        run = _FENCE.match(rest)
        if run and (run.group()[0] == "~" or ("`" not in rest[run.end():]
                                              and not line.backtick_after)):
            fence = Fence(run.group()[0], len(run.group()), cur.indent)
            started = Leaf.FENCE
            outcome.at = cur.next_nonspace
            break
        if whole and interrupting and _SETEXT.match(rest):
            started = HEADING
            break
        if whole and _BREAK.match(rest):
            started = HEADING  # a thematic break ends blocks as a heading does
            break
        item = _list_item(cur, interrupting)
        if item is not None:
            new.append(item)
            interrupting = tip_para = False
            continue
        break
    blank = cur.blank and not new and started is None
    if started is None and not new and not all_matched and not blank and leaf == Leaf.PARA:
        return blocks, outcome  # 4. a lazy continuation line: every block stays open
    kept = containers[:matched]
    if not blank:  # a line with content gives the list items it stands in content
        kept = [c if c.has_content else Container(c.quote, c.need) for c in kept]
    if started == Leaf.FENCE:
        outcome.opens = True
        return Blocks(tuple(kept + new), Leaf.FENCE, fence), outcome
    if started == Leaf.CODE:
        return Blocks(tuple(kept + new), Leaf.CODE), outcome
    if started is not None or cur.blank:
        return Blocks(tuple(kept + new)), outcome
    return Blocks(tuple(kept + new), Leaf.PARA), outcome


#: the outcomes and state of the common line (never changed: Outcome is only read)
_TEXT_LINE, _CODE_LINE = Outcome(), Outcome(code=True)
_PARAGRAPH = Blocks(leaf=Leaf.PARA)


def _with_content(blocks: Blocks, line: Line) -> Blocks:
    """A fence or code line that is not blank gives the list items it stands in content."""
    if all(c.has_content for c in blocks.containers) or \
            (not line.more and not line.head.strip(" \t")):
        return blocks
    return Blocks(tuple(c if c.has_content else Container(c.quote, c.need)
                        for c in blocks.containers), blocks.leaf, blocks.fence)


def _list_item(cur: _Cursor, interrupting: bool) -> Container | None:
    """A list item's marker at the cursor (CommonMark 5.2), consumed with the spaces after
    it, or None."""
    rest = cur.rest()
    marker = _BULLET.match(rest) or _ORDERED.match(rest)
    if marker is None:
        return None
    after = cur.peek(cur.next_nonspace + marker.end())
    if after not in (" ", "\t", ""):
        return None  # a marker must be followed by a space, a tab or the line's end
    empty = not cur.more and not rest[marker.end():].strip(" \t")
    if interrupting and (empty or (marker.re is _ORDERED and int(marker.group(1)) != 1)):
        return None  # an empty item, or one not numbered 1, does not interrupt a paragraph
    offset = cur.indent
    cur.advance_next_nonspace()
    cur.advance(marker.end(), True)
    start_column, start_offset, start_partial = cur.column, cur.offset, cur.partial_tab
    while True:
        cur.advance(1, True)
        if not (cur.column - start_column < 5 and cur.peek(cur.offset) in (" ", "\t")):
            break
    blank_item = cur.peek(cur.offset) == ""
    spaces = cur.column - start_column
    if spaces >= 5 or spaces < 1 or blank_item:
        padding = marker.end() + 1
        cur.column, cur.offset, cur.partial_tab = start_column, start_offset, start_partial
        if cur.peek(cur.offset) in (" ", "\t"):
            cur.advance(1, True)
    else:
        padding = marker.end() + spaces
    return Container(quote=False, need=offset + padding, has_content=not empty)


def fence_continues(blocks: Blocks, head: str) -> bool | None:
    """Inside a fence, on a line whose head so far is `head` and goes on with text that
    is not head: True when the line matched every container (it is in the fence), False
    when it left one (the fence ends before it), None when `head` does not decide yet."""
    cur = _Cursor(Line(head, more=True))
    for container in blocks.containers:
        cur.find_next_nonspace()
        if cur.next_nonspace == len(head):
            return None  # only spaces so far: what follows decides
        if container.quote:
            if cur.indent >= 4 or cur.peek() != ">":
                return False
            cur.advance_next_nonspace()
            cur.advance(1, False)
            if cur.offset < len(head) and head[cur.offset] in (" ", "\t"):
                cur.advance(1, True)
        elif cur.indent >= container.need:
            cur.advance(container.need, True)
        else:
            return False
    return True


@dataclass
class BlockTracker:
    """The block structure of the visible text so far, fed as it is emitted."""

    blocks: Blocks = field(default_factory=Blocks)
    head: list[str] = field(default_factory=list)
    head_open: bool = True  # nothing but head characters on this line so far
    backtick_after: bool = False
    last: Outcome = field(default_factory=Outcome)  # what the last finished line was
    goes_on: bool | None = None  # inside a fence: this line matched every container

    @property
    def in_fence(self) -> bool:
        return self.blocks.leaf == Leaf.FENCE

    @property
    def head_length(self) -> int:
        return len(self.head) if self.head_open else -1

    def see(self, text: str) -> None:
        """Visible text as it is emitted (answer text and fenced code alike)."""
        if not self.head_open and "\n" not in text:
            if not self.backtick_after and "`" in text:
                self.backtick_after = True
            return
        start = 0
        while True:
            newline = text.find("\n", start)
            piece = text[start:] if newline < 0 else text[start:newline]
            self._add(piece)
            if newline < 0:
                return
            self.end_line()
            start = newline + 1

    def _add(self, piece: str) -> None:
        if self.head_open:
            for k, c in enumerate(piece):
                if c not in HEAD:
                    self.head_open = False
                    piece = piece[k:]
                    break
                self.head.append(c)
            else:
                return
        if not self.backtick_after and "`" in piece:
            self.backtick_after = True

    def close_head(self) -> None:
        """Text that is not head follows (emitted without `see`, which holds no backtick)."""
        self.head_open = False

    def end_line(self) -> None:
        line = Line("".join(self.head), not self.head_open, self.backtick_after)
        self.blocks, self.last = read_line(self.blocks, line)
        self.head.clear()
        self.head_open = True
        self.backtick_after = False
        self.goes_on = None

    def could_open_fence(self, start: int, char: str, length: int) -> bool:
        """Whether a run of `length` `char`s at head position `start` opens a fence, read
        with the line so far before it (the state is not changed)."""
        if not self.head_open or length < 3:
            return False
        line = Line("".join(self.head[:start]) + char * length)
        after, outcome = read_line(self.blocks, line)
        return outcome.opens and outcome.at == start and after.fence is not None and \
            after.fence.char == char

    def fence_goes_on(self, c: str) -> bool | None:
        """Inside a fence, before `c` is read on a line whose head is still open: False
        when `c` shows that the line left a container of the fence."""
        if self.goes_on is not None or not self.blocks.containers:
            return self.goes_on is not False
        if c in _CONTAINER_CHARS:
            return None
        self.goes_on = fence_continues(self.blocks, "".join(self.head) + c)
        return self.goes_on
