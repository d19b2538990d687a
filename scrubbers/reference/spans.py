"""Inline code span pairing (SPEC R-CODE-1, R-CODE-3, R-CODE-5).

Backtick runs on one line pair left to right: a run of N closes at the next run
of exactly N; a run with no such partner is literal and pairing resumes at the
next run. The scanner only needs this when a tag stands after a run that is
still open, and then it has the rest of the line in hand.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field

BACKTICK_RUN = re.compile("`+")


@dataclass
class RunState:
    """Online pairing state of one line: the open run and the runs seen after it."""

    open_run: int = 0
    pending: list[int] = field(default_factory=list)

    def add(self, length: int) -> None:
        if not self.open_run:
            self.open_run = length
        elif length == self.open_run:
            self.open_run = 0
            self.pending.clear()
        else:
            self.pending.append(length)

    def reset(self) -> None:
        self.open_run = 0
        self.pending.clear()


class LineIndex:
    """The backtick runs of the rest of one line, indexed once so that every tag on
    that line is judged by lookup instead of a rescan (R-ROBUST-2)."""

    def __init__(self, line: str, *, cut: bool = False) -> None:
        """With `cut`, the line was cut off by the end of a truncated stream: a run
        that ends there has an unknown length (SPEC R-CODE-6). Outside a block it closes
        no span; inside a block it may (`run_end_from(..., closes_at_cut=...)`). One
        line may hold both: a block that ends on it, then a tag outside it."""
        self.cut = cut  # the line ends at the cut, not at a line feed (R-CODE-6)
        self.starts: list[int] = []
        self.by_length: dict[int, list[int]] = {}
        self.cut_run: int | None = None  # start of the run that touches the cut
        self.cut_run_length = 0  # its length so far: it may still grow
        for m in BACKTICK_RUN.finditer(line):
            self.starts.append(m.start())
            self.by_length.setdefault(m.end() - m.start(), []).append(m.start())
            if cut and m.end() == len(line):
                self.cut_run, self.cut_run_length = m.start(), m.end() - m.start()

    def has_run_from(self, offset: int) -> bool:
        return bisect_left(self.starts, offset) < len(self.starts)

    def run_end_from(self, length: int, offset: int, *, closes_at_cut: bool = True) -> int | None:
        """End of the first run of exactly `length` backticks starting at or after `offset`
        (with `closes_at_cut=False`, the run touching the cut never counts; with
        `closes_at_cut=True`, a shorter run at the cut counts too: it may still grow)."""
        starts = self.by_length.get(length, [])
        k = bisect_left(starts, offset)
        if k < len(starts):
            if not closes_at_cut and starts[k] == self.cut_run:
                return None  # the run at the cut is the line's last: nothing follows it
            return starts[k] + length
        if (closes_at_cut and self.cut_run is not None and self.cut_run >= offset
                and self.cut_run_length < length):
            # R-CODE-6: a shorter run at the cut may still grow to `length` and close
            return self.cut_run + self.cut_run_length
        return None


def guarded_until(state: RunState, index: LineIndex, offset: int, *,
                  in_block: bool = False) -> int | None:
    """Whether `offset` of an indexed line lies inside a code span.

    `state` holds the runs before that position on the same line. Returns the
    offset just after the closing run of the enclosing span, or None when the
    position is not inside any span. `in_block`: the position is inside a block,
    where a run at the cut of a cut-off stream may still close a span (R-CODE-6).
    """
    before = [state.open_run, *state.pending] if state.open_run else list(state.pending)
    positions: dict[int, list[int]] = {}
    for i, length in enumerate(before):
        positions.setdefault(length, []).append(i)
    i = 0
    while i < len(before):
        same = positions[before[i]]
        k = bisect_right(same, i)
        if k < len(same):
            i = same[k] + 1
            continue
        end = index.run_end_from(before[i], offset, closes_at_cut=in_block)
        if end is not None:
            return end
        i += 1
    return None
