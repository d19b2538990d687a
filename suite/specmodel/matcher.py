"""Finding delimiters of one vocabulary in text (SPEC R-VOCAB-1..3, R-CUSTOM-1..2).

Matching is ASCII case-insensitive. No delimiter is a proper prefix of another,
so at any position at most one delimiter starts; the leftmost one is found first.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from scrubcheck.vocabulary import Tag, fold


@dataclass(frozen=True)
class Matcher:
    """Whole delimiters of a set, and their proper prefixes (all ASCII-folded)."""

    tags: dict[str, Tag]
    prefixes: frozenset[str]
    pattern: re.Pattern[str]
    longest: int
    firsts: frozenset[str]  # every character a delimiter may start with, in either case

    @classmethod
    def of(cls, tags: Iterable[Tag]) -> Matcher:
        return _matcher(tuple(tags))

    @classmethod
    def build(cls, tags: tuple[Tag, ...]) -> Matcher:
        by_folded = {fold(t.text): t for t in tags}
        prefixes = frozenset(k[:i] for k in by_folded for i in range(1, len(k)))
        # no delimiters (a pre-filled block of a class with no closes): a pattern that
        # never matches, so that block runs to the end of the stream (R-ORPHAN-2)
        alternation = "|".join(re.escape(k) for k in sorted(by_folded, key=len, reverse=True))
        firsts = frozenset(c for k in by_folded for c in (k[0], k[0].upper()))
        return cls(by_folded, prefixes, re.compile(alternation or "(?!)", re.IGNORECASE | re.ASCII),
                   max(map(len, by_folded), default=0), firsts)

    def find(self, text: str, start: int, end: int) -> re.Match[str] | None:
        """The leftmost whole delimiter in text[start:end]."""
        return self.pattern.search(text, start, end)

    def tag(self, text: str) -> Tag | None:
        return self.tags.get(fold(text))

    def is_partial(self, text: str) -> bool:
        """Whether `text` is a proper prefix of a delimiter (it may still become one)."""
        return fold(text) in self.prefixes

    def longest_partial(self, text: str, end: int) -> int | None:
        """Where the longest partial delimiter ending at `end` starts, if one does."""
        for start in range(max(0, end - self.longest + 1), end):
            if text[start] in self.firsts and self.is_partial(text[start:end]):
                return start
        return None


@lru_cache(maxsize=256)
def _matcher(tags: tuple[Tag, ...]) -> Matcher:
    return Matcher.build(tags)
