"""Which visible lines are fenced code (SPEC R-CODE-2), as a CommonMark parser reads them.

Whether a run of backticks or tildes opens a fence, and where the fence ends, is
CommonMark's block structure: the block quotes and list items a line stands in, their
indentation, lazy continuation lines. The SPEC model does not read that structure
itself; it asks commonmark.py, a port of the CommonMark reference implementation
(commonmark.js), so that the yardstick is not the reference scrubber's own reading
(scrubbers/reference/blocks.py). Each question is about visible text already decided
(R-CODE-6: structure is judged on the visible text as it is built):

- `opens_fence`: does a run at the end of the visible text open a fence?
- `fence_end`: once a fence is open, how much of what follows belongs to it?

The parser reads the text as SPEC R-CODE-2 and R-CODE-4 say it is read:

- HTML blocks and link reference definitions are not recognised (their lines are
  paragraph lines): `<` and `[` are read as another character that is not whitespace;
- a carriage return is a space when only spaces, tabs and carriage returns follow it
  on its line, and a character that is not whitespace otherwise (lines end only at a
  line feed);
- trailing tabs are read as spaces: CommonMark 0.30 let a closing fence be followed by
  spaces or tabs, and the parser reads the older rule (spaces only); trailing
  whitespace changes nothing else of a line's block structure.
"""

from __future__ import annotations

import re
import sys
import threading
from functools import lru_cache

import commonmark

#: characters that may stand before a fence's run on its line (containers, indentation)
_HEAD = re.compile(r"[ \t\r>\-+*_=#.)0-9`~]*")
_TRAILING = re.compile(r"[ \t\r]+$", re.MULTILINE)
_INERT = "\x01"  # read as text that is not whitespace


def _source(text: str) -> str:
    """The visible text as the parser is to read it (see the module's text)."""
    text = text.replace("<", _INERT).replace("[", _INERT)
    text = _TRAILING.sub(lambda m: " " * len(m.group()), text)
    return text.replace("\r", _INERT)


#: a fenced code block: its opening line and last line (from 0), and where on the opening
#: line its run starts (a character offset)
Fence = tuple[int, int, int]


@lru_cache(maxsize=64)
def fences(text: str) -> tuple[Fence, ...]:
    """The fenced code blocks of `text`."""
    try:
        return _fences(_source(text))
    except RecursionError:  # containers nested hundreds deep: read on a deeper stack
        return _on_deep_stack(_source(text))


def _fences(source: str) -> tuple[Fence, ...]:
    """A parser of its own for each text: commonmark.py's keeps the document it is
    building on itself, so one shared by threads (the gateway audit judges on several)
    mixes their documents up."""
    found = []
    for node, entering in commonmark.Parser().parse(source).walker():
        if entering and node.t == "code_block" and node.is_fenced:
            (first, column), (last, _) = node.sourcepos
            found.append((first - 1, last - 1, column - 1))
    return tuple(found)


def _on_deep_stack(source: str) -> tuple[Fence, ...]:
    result: list[tuple[Fence, ...]] = []
    limit = sys.getrecursionlimit()
    size = threading.stack_size(512 << 20)
    try:
        sys.setrecursionlimit(1_000_000)
        worker = threading.Thread(target=lambda: result.append(_fences(source)))
        worker.start()
        worker.join()
    finally:
        threading.stack_size(size)
        sys.setrecursionlimit(limit)
    return result[0]


#: a safe place to start reading again: after a blank line, a line that starts with a
#: character that can neither continue a container nor start a block other than a
#: paragraph. Every block quote, list item, indented code block and paragraph is
#: closed there (a fence is not, so none may be open: `FenceReading` knows where the
#: last one ended), so what follows reads the same from there as from the start.
_RESTART = re.compile(r"\n[ \t\r]*\n(?=[^ \t\r>\-+*_=#.)0-9`~\n])")


class FenceReading:
    """The two questions, asked of one stream's growing visible text. Each parse starts
    at the last safe restart line (`_RESTART`), and a fence's end is looked for in
    growing pieces of what follows, so a long stream with many fences costs about its
    length, not its length times its number of fences."""

    def __init__(self) -> None:
        self.base = 0  # where the text is read from (a safe restart line)
        self.scanned = 0  # how far restart lines have been looked for
        self.after_fence = 0  # where the last fence ended: no restart before it
        self.base_char = ""  # the character at `base` (text taken back changes it)

    def _advance(self, before: str) -> str:
        if self.base and not (self.base < len(before) and before[self.base - 1] == "\n"
                              and before[self.base] == self.base_char):
            # R-TAG-1 took back the end of the visible text, restart line and all
            self.base, self.scanned = 0, min(self.scanned, len(before))
        start = max(self.scanned, self.after_fence, self.base) - 1
        for match in _RESTART.finditer(before, max(start, 0)):
            if match.end() < len(before):
                self.base = match.end()
                self.base_char = before[self.base]
        self.scanned = max(len(before) - 1, 0)
        return before[self.base:]

    def opens(self, before: str, run: str) -> bool:
        """Whether `run` (three or more backticks or tildes) at the end of the visible
        text `before` opens a fence (for backticks, if no backtick follows on its line)."""
        line_start = before.rfind("\n") + 1
        if not _HEAD.fullmatch(before, line_start):
            return False  # text stands before the run on its line: no block starts there
        local = self._advance(before)
        line, column = local.count("\n"), len(before) - line_start
        return any(first == line and at == column for first, _, at in fences(local + run))

    def end(self, before: str, rest: str) -> int:
        """`before`: the visible text up to and with the line feed of a fence's opening
        line; `rest`: the text after it, all literal while the fence lasts. How much of
        `rest` the fence takes: through its closing line, or up to the line that leaves
        its containers, or all of it when it never closes."""
        local = self._advance(before)
        opener = local.count("\n") - 1
        size = 4096
        while True:
            cut = rest.find("\n", min(size, len(rest)))
            part = rest if cut < 0 else rest[:cut + 1]  # whole lines only
            lines = part.count("\n") + (0 if part.endswith("\n") else 1)
            found = [last for first, last, _ in fences(local + part) if first == opener]
            if not found:
                raise AssertionError(f"the SPEC model opened a fence on visible line "
                                     f"{before.count(chr(10))} that CommonMark does not "
                                     "read as one")
            inside = found[0] - opener  # lines of `part` in the fence
            if part is rest or inside < lines:
                taken = _through_line(rest, inside)
                self.after_fence = len(before) + taken
                return taken
            size *= 4


def _through_line(text: str, count: int) -> int:
    """The length of `text`'s first `count` lines with their line feeds (all of it when
    it has fewer)."""
    position = 0
    for _ in range(count):
        newline = text.find("\n", position)
        if newline < 0:
            return len(text)
        position = newline + 1
    return position
