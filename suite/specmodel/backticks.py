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

    def __init__(self, text: str, start: int, end: int) -> None:
        self.start, self.end = start, end
        self.spans = [m.span() for m in RUN.finditer(text, start, end)]
        self.starts = [a for a, _ in self.spans]
        self.by_length: dict[int, list[int]] = {}
        for a, b in self.spans:
            self.by_length.setdefault(b - a, []).append(a)

    def any_from(self, pos: int) -> bool:
        return bisect_left(self.starts, pos) < len(self.starts)

    def lengths_between(self, lo: int, hi: int) -> list[int]:
        first, last = bisect_left(self.starts, lo), bisect_left(self.starts, hi)
        return [b - a for a, b in self.spans[first:last]]

    def closing(self, length: int, pos: int, *, cut: int | None = None) -> int | None:
        """End of the first run of exactly `length` starting at or after `pos`; None if
        there is none, or if it is the run that ends at `cut` (R-CODE-6, outside a block)."""
        starts = self.by_length.get(length, [])
        k = bisect_left(starts, pos)
        if k == len(starts) or starts[k] + length == cut:
            return None
        return starts[k] + length


def span_end(before: list[int], line: LineRuns, pos: int, *, cut: int | None = None
             ) -> int | None:
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
        end = line.closing(before[i], pos, cut=cut)
        if end is not None:
            return end
        i += 1
    return None
