"""How much output SPEC requires of a streaming scrubber after each one-character feed.

SPEC R-STREAM-1 lets a scrubber hold back only what it must to decide: a partial tag,
a backtick run whose length is not known yet, partial tags directly before a removed
piece (R-TAG-1), and, for a tag after an open backtick run, the rest of its line.
R-STREAM-2 asks that what is decided be shown by the `feed()` that decided it. So
after each feed, everything the model shows that none of those holds covers is due.

The batch reading (`reading.py`) notes, for each visible piece, how much input the
rules let a scrubber read before showing it (its `held_to`: the line feed that ends a
held line, the character that settles a spliced partial, the end of the stream for
what only the end decides). This module adds the two holds the reading need not know
about, because they are about what has not been read yet: a backtick run's unknown
length, and the partial tags touching one another at the end of what is due (a
removed piece may follow them and splice any of them, R-TAG-1, so a scrubber may
hold them all until the next character says no piece follows). One partial tag more
is left to the hold-back check, which allows every scrubber the longest tag's length
of lag.

This replaces running the reference scrubber one character at a time as the lag
yardstick: the reference is judged like any implementation.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from itertools import accumulate

from scrubcheck.model import Context
from scrubcheck.specmodel.matcher import Matcher
from scrubcheck.specmodel.reading import read_stream

_RUN = re.compile(r"`+")


def decided_ends(text: str, context: Context | None = None) -> list[int]:
    """For each k, how many characters of the visible text are due once `text[:k + 1]`
    has been fed one character at a time (non-decreasing; the last one may be short of
    the whole output, which `flush()` then owes)."""
    never = len(text) + 1
    run_end = _run_ends(text, never)
    reading = read_stream(text, context)
    due: list[int] = []  # per visible character: the input length that makes it due
    for origin, length, held_to in reading.pieces:
        for offset in range(origin, origin + length):
            due.append(max(offset + 1, held_to, run_end.get(offset, 0)))
    latest = list(accumulate(due, max))  # a character is shown only after those before it
    chain = _PartialChains(reading.visible, Matcher.of((context or Context()).vocabulary().tags))
    ends = []
    for fed in range(1, len(text) + 1):
        shown = bisect_right(latest, fed)
        ends.append(shown - chain.length(shown))
    return ends


class _PartialChains:
    """How many characters before a point of the visible text are partial tags touching
    one another (each the longest one ending where the next starts), remembered, so
    that asking at every feed costs about the text's length."""

    def __init__(self, visible: str, matcher: Matcher) -> None:
        self.visible, self.matcher = visible, matcher
        self.known: dict[int, int] = {0: 0}

    def length(self, end: int) -> int:
        walked = []
        point = end
        while point not in self.known:
            start = self.matcher.longest_partial(self.visible, point)
            if start is None:
                self.known[point] = 0
                break
            walked.append((point, start))
            point = start
        for point, start in reversed(walked):
            self.known[point] = point - start + self.known[start]
        return self.known[end]


def _run_ends(text: str, never: int) -> dict[int, int]:
    """For each backtick, the input length that tells its run's length: the run and one
    more character (the end of the stream, for a run that ends the text)."""
    ends: dict[int, int] = {}
    for match in _RUN.finditer(text):
        known = match.end() + 1 if match.end() < len(text) else never
        for offset in range(match.start(), match.end()):
            ends[offset] = known
    return ends
