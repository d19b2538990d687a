"""Shrinking a failing stream to a smallest one that fails the same way.

The reducer is delta debugging (Zeller and Hildebrandt's ddmin, as Hypothesis and
C-Reduce use it) over three things, cheapest first:

1. the context: each setting that is not the default is tried at its default, each
   enabled feature and each caller delimiter is tried without;
2. the delta boundaries: all of them at once (the stream as one delta), then each one;
3. the text: pieces of half its length, then a quarter, ... down to one character, each
   removed while the failure holds; then the boundaries again.

It repeats until nothing more can go, or the deadline passes (the smallest failing
candidate found so far is kept, and said to be incomplete). "The failure holds" is
the caller's `holds`: the same check fails and the same first wrong decision shows
(`trial`). Every candidate is asked at most once.

The result is 1-minimal in what it tried: no single character, boundary or setting can
go. It is not the smallest stream that fails (no reducer promises that), but on the
streams of a real bug it is a handful of characters that state the bug.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, fields, replace

from scrubcheck.explain.trial import Candidate
from scrubcheck.model import Context

#: a candidate still failing the same way (True), or not (False)
Holds = Callable[[Candidate], bool]


@dataclass(frozen=True)
class Shrunk:
    candidate: Candidate
    tries: int  # candidates asked about
    complete: bool  # False: the deadline passed before a fixed point


class _Asker:
    """`holds` with memory and a deadline."""

    def __init__(self, holds: Holds, deadline: float) -> None:
        self.holds = holds
        self.deadline = deadline
        self.seen: dict[Candidate, bool] = {}

    @property
    def late(self) -> bool:
        return time.monotonic() > self.deadline

    def __call__(self, candidate: Candidate) -> bool:
        if candidate not in self.seen:
            if self.late:
                return False
            self.seen[candidate] = self.holds(candidate)
        return self.seen[candidate]


def _context_steps(context: Context) -> list[Context]:
    """Each one-step simpler context: one setting back at its default, or one feature
    or caller delimiter fewer (the conformance class stays: it is the claim)."""
    default = Context(conformance_class=context.conformance_class)
    steps = []
    for spec in fields(Context):
        name = spec.name
        if name in ("features", "delimiters", "conformance_class"):
            continue
        if getattr(context, name) != getattr(default, name):
            steps.append(replace(context, **{name: getattr(default, name)}))
    for name in ("features", "delimiters"):
        values = getattr(context, name)
        for index in range(len(values)):
            steps.append(replace(context, **{name: values[:index] + values[index + 1:]}))
    return steps


def _simpler_context(candidate: Candidate, ask: _Asker) -> Candidate:
    changed = True
    while changed and not ask.late:
        changed = False
        for context in _context_steps(candidate.context):
            tried = replace(candidate, context=context)
            if ask(tried):
                candidate, changed = tried, True
                break
    return candidate


def _fewer_cuts(candidate: Candidate, ask: _Asker) -> Candidate:
    if not candidate.cuts:
        return candidate
    whole = replace(candidate, cuts=())
    if ask(whole):
        return whole
    index = len(candidate.cuts) - 1
    while index >= 0 and not ask.late:
        cuts = candidate.cuts[:index] + candidate.cuts[index + 1:]
        tried = replace(candidate, cuts=cuts)
        if ask(tried):
            candidate = tried
        index -= 1
    return candidate


def _shorter_text(candidate: Candidate, ask: _Asker) -> Candidate:
    size = max(1, len(candidate.text) // 2)
    while size >= 1 and not ask.late:
        start = 0
        while start < len(candidate.text) and not ask.late:
            tried = candidate.without(start, min(start + size, len(candidate.text)))
            if ask(tried):
                candidate = tried
            else:
                start += size
        size //= 2
    return candidate


#: a stream at most this long also has every short run of characters tried away, which
#: frees it from pieces that only go together (a code span, a delimiter and its partner)
SHORT = 32
RUNS = 4


def _no_short_runs(candidate: Candidate, ask: _Asker) -> Candidate:
    if len(candidate.text) > SHORT:
        return candidate
    for size in range(2, RUNS + 1):
        start = 0
        while start + size <= len(candidate.text) and not ask.late:
            tried = candidate.without(start, start + size)
            if ask(tried):
                candidate = tried
            else:
                start += 1
    return candidate


def _shortest_ends(candidate: Candidate, ask: _Asker) -> Candidate:
    """The shortest prefix that still fails, then the shortest suffix of it, each found by
    bisection: a long stream whose bug shows in one place loses most of its length in
    a few dozen tries."""
    low, high = 0, len(candidate.text)  # the shortest failing prefix is in (low, high]
    while high - low > 1 and not ask.late:
        middle = (low + high) // 2
        if ask(candidate.without(middle, len(candidate.text))):
            high = middle
        else:
            low = middle
    candidate = candidate.without(high, len(candidate.text))
    low, high = 0, len(candidate.text)  # the most that can go from the front is in [low, high)
    while high - low > 1 and not ask.late:
        middle = (low + high) // 2
        if ask(candidate.without(0, middle)):
            low = middle
        else:
            high = middle
    if low and ask(candidate.without(0, low)):
        candidate = candidate.without(0, low)
    return candidate


#: characters that give a stream its structure, kept when the rest is made plain
_STRUCTURAL = frozenset("`~\n<>|[]/{}()!?:=._-*#")


def _plain_letters(candidate: Candidate, ask: _Asker, keep: Callable[[int], bool]) -> Candidate:
    """The stream with every character that is neither structural nor kept (`keep`: a
    delimiter's) replaced by `x`, if it still fails: smallest streams of one bug then
    spell alike, and a run reuses what it already asked."""
    text = "".join(c if c in _STRUCTURAL or c.isspace() or keep(i) else "x"
                   for i, c in enumerate(candidate.text))
    tried = replace(candidate, text=text)
    return tried if tried != candidate and ask(tried) else candidate


def _window(candidate: Candidate, ask: _Asker, focus: int) -> Candidate:
    """The smallest of a few windows around `focus` (the input offset of the first wrong
    decision) that still fails: 16 characters either side, then 64, 256, ... Each try of a
    long stream costs as much as the stream, so a long one is cut down near where its
    bug shows before anything else is tried."""
    size = len(candidate.text)
    width = 16
    while width * 2 < size and not ask.late:
        start, end = max(0, focus - width), min(size, focus + width + 1)
        tried = candidate.without(end, size).without(0, start)
        if ask(tried):
            return tried
        width *= 4
    return candidate


def shrink(start: Candidate, holds: Holds, seconds: float,
           keep: Callable[[Candidate], Callable[[int], bool]] | None = None,
           focus: int | None = None) -> Shrunk:
    """A smallest candidate found from `start` for which `holds` stays true (`start`
    itself must hold; it is not asked again)."""
    ask = _Asker(holds, time.monotonic() + seconds)
    ask.seen[start] = True
    candidate = start
    if focus is not None and 0 <= focus < len(start.text):
        candidate = _window(candidate, ask, focus)
    candidate = _shortest_ends(candidate, ask)
    while not ask.late:
        before = candidate
        candidate = _simpler_context(candidate, ask)
        candidate = _fewer_cuts(candidate, ask)
        candidate = _shorter_text(candidate, ask)
        if keep is not None:
            candidate = _plain_letters(candidate, ask, keep(candidate))
        candidate = _no_short_runs(candidate, ask)
        candidate = _fewer_cuts(candidate, ask)
        if candidate == before:
            return Shrunk(candidate, len(ask.seen), True)
    return Shrunk(candidate, len(ask.seen), False)
