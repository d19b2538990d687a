"""Inline code spans on one line (SPEC R-CODE-1, R-CODE-3, R-CODE-5, R-CODE-6).

Backtick runs pair left to right as in CommonMark: a run of N opens a span that
the next run of exactly N on the same line closes; a run with no such partner
is literal and pairing resumes at the next run. A point of the line is guarded
when it stands between the two runs of one pair.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from dataclasses import dataclass, field

RUN = re.compile("`+")


@dataclass
class OpenRuns:
    """The runs of the visible line so far that a later run may still close.

    A run equal to the first unclosed one closes it and, with it, every run in
    between (they stood inside that span); otherwise the run waits its turn.
    """

    lengths: list[int] = field(default_factory=list)

    def add(self, length: int) -> None:
        if self.lengths and self.lengths[0] == length:
            self.lengths.clear()
        else:
            self.lengths.append(length)

    def clear(self) -> None:
        self.lengths.clear()


class LineRuns:
    """The backtick runs of text[start:end] (part of one line), found once and indexed
    by length, so that every tag on a long line is judged without reading it again."""

    def __init__(self, text: str, start: int, end: int, *, cut: bool = False) -> None:
        """`cut`: the line ends where a cut-off stream ended, so a run that touches its
        end has an unknown length: it may still grow (SPEC R-CODE-6)."""
        self.start, self.end = start, end
        self.spans = [m.span() for m in RUN.finditer(text, start, end)]
        self.growing = self.spans[-1] if cut and self.spans and self.spans[-1][1] == end else None
        self.starts = [a for a, _ in self.spans]
        self.by_length: dict[int, list[int]] = {}
        for a, b in self.spans:
            self.by_length.setdefault(b - a, []).append(a)

    def any_from(self, pos: int) -> bool:
        return bisect_left(self.starts, pos) < len(self.starts)

    def lengths_between(self, lo: int, hi: int) -> list[int]:
        first, last = bisect_left(self.starts, lo), bisect_left(self.starts, hi)
        return [b - a for a, b in self.spans[first:last]]

    def closing(self, length: int, pos: int, *, in_block: bool) -> int | None:
        """End of the first run of exactly `length` starting at or after `pos`, or None.

        A run at the cut is read the way that removes more (R-CODE-6): outside a block
        it closes no span, inside one it closes a span of its length or longer."""
        starts = self.by_length.get(length, [])
        k = bisect_left(starts, pos)
        growing = self.growing
        if k < len(starts) and (growing is None or starts[k] < growing[0]):
            return starts[k] + length
        if in_block and growing is not None and growing[0] >= pos and \
                growing[1] - growing[0] <= length:
            return growing[1]
        return None


def span_end(before: list[int], line: LineRuns, pos: int, *, in_block: bool) -> int | None:
    """Where the span holding `pos` ends, or None when `pos` is not in a span.

    `before`: lengths of the runs before `pos` on its line (since pairing last
    started afresh), in order; `line`: the runs from `pos` on. The point is guarded
    when a run before it has no partner before it but one after it.
    """
    later: dict[int, list[int]] = {}
    for i, length in enumerate(before):
        later.setdefault(length, []).append(i)
    i = 0
    while i < len(before):
        same = later[before[i]]
        k = bisect_left(same, i + 1)
        if k < len(same):
            i = same[k] + 1  # a pair before the point
            continue
        end = line.closing(before[i], pos, in_block=in_block)
        if end is not None:
            return end
        i += 1
    return None


def has_open_run(before: list[int]) -> bool:
    """Whether a run among `before` (lengths in order) has no partner after it: a point
    after them stands after an open run, and its line decides whether it is in a span."""
    following: dict[int, int] = {}  # length -> index of its next run, filled backwards
    partner = [0] * len(before)
    for k in range(len(before) - 1, -1, -1):
        partner[k] = following.get(before[k], -1)
        following[before[k]] = k
    i = 0
    while i < len(before):
        if partner[i] < 0:
            return True
        i = partner[i] + 1
    return False
