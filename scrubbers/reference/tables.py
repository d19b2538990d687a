"""Matching tables for one vocabulary, built once and shared by every scrubber instance.

The scanner asks three questions at every interesting character: is this text a
whole tag, is it the beginning of one, and where is the next character worth
looking at. These tables answer each in O(1) or one regex search.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from scrubcheck.vocabulary import (
    GENERIC,
    HARMONY_HEADER,
    HARMONY_MESSAGE,
    CustomDelimiter,
    Tag,
    build_vocabulary,
    fold,
)


@dataclass(frozen=True)
class MatchTable:
    """Whole tags and their proper prefixes (ASCII-folded) for one set of tags."""

    tags: dict[str, Tag]
    prefixes: frozenset[str]
    start_chars: frozenset[str]
    special: re.Pattern[str]  # next start char, backtick or line feed
    max_len: int
    #: the characters `special` looks for, for a quick `in` test of a whole delta
    special_chars: tuple[str, ...] = ()
    #: a whole tag at a position, shortest first (None when a tag holds a backtick or
    #: line feed, which the character-by-character path must then see)
    whole: re.Pattern[str] | None = None

    def classify(self, text: str) -> Tag | bool | None:
        """The Tag if `text` is one, True if it is a proper prefix of one, else None."""
        folded = text.lower() if text.isascii() else fold(text)  # the same ASCII-only folding
        tag = self.tags.get(folded)
        if tag is not None:
            return tag
        return True if folded in self.prefixes else None

    def tag_at(self, text: str, i: int) -> tuple[int, Tag] | None:
        """The shortest whole tag starting at `text[i]`, as (end, Tag), or None.

        The same tag a character-by-character scan from an empty stack would
        complete first: every prefix of a tag is a prefix, so that scan never
        stops before the shortest whole tag, and stops at it.
        """
        match = self.whole.match(text, i) if self.whole is not None else None
        if match is None:
            return None
        raw = match.group()
        return match.end(), self.tags[raw.lower() if raw.isascii() else fold(raw)]


def _table(tags: list[Tag]) -> MatchTable:
    by_folded = {fold(t.text): t for t in tags}
    prefixes = frozenset(k[:i] for k in by_folded for i in range(1, len(k)))
    # R-VOCAB-2 / R-CUSTOM-1: names compare ASCII case-insensitively, so a tag may start
    # with either case of an ASCII letter, whichever case its text is written in
    firsts = {k[0] for k in by_folded}
    starts = frozenset(firsts | {c.upper() for c in firsts if c.isascii()})
    special_chars = (*sorted(starts), "`", "\n")
    special = re.compile("[" + re.escape("".join(special_chars)) + "]")
    whole = None
    if by_folded and not any("`" in k or "\n" in k for k in by_folded):
        # re.ASCII | re.IGNORECASE folds A-Z and nothing else, as `fold` does
        ordered = sorted(by_folded, key=lambda k: (len(k), k))
        whole = re.compile("|".join(map(re.escape, ordered)), re.ASCII | re.IGNORECASE)
    # a class without closes (a format of markers only) still has a pre-filled block's
    # table: one that never matches, so that block runs to the end (R-ORPHAN-2)
    return MatchTable(by_folded, prefixes, starts, special, max(map(len, by_folded), default=0),
                      special_chars, whole)


@dataclass(frozen=True)
class Tables:
    """Everything one stream needs: the outside table, the close table of every open
    tag's names (a block ends at a close sharing a name, SPEC R-BLOCK-2, R-CUSTOM-2),
    and the closes that end a pre-filled block (SPEC R-ORPHAN-2)."""

    outside: MatchTable
    closes_by_name: dict[frozenset[str], MatchTable]
    any_close: MatchTable
    max_tag_len: int

    @property
    def harmony_header(self) -> MatchTable | None:
        """The close table of a harmony header (SPEC R-HARMONY-1), when enabled."""
        return self.closes_by_name.get(frozenset({HARMONY_HEADER}))

    @property
    def harmony_message(self) -> MatchTable | None:
        """The close table of a hidden harmony message (SPEC R-HARMONY-2), when enabled."""
        return self.closes_by_name.get(frozenset({HARMONY_MESSAGE}))


@lru_cache(maxsize=64)
def tables_for(features: frozenset[str], delimiters: tuple[CustomDelimiter, ...] = (),
               conformance_class: str = GENERIC) -> Tables:
    """The tables of one vocabulary (SPEC section 2), in the generic class or a format's
    (section 12): the registry's data, read through scrubcheck.vocabulary."""
    vocabulary = build_vocabulary(features, delimiters, conformance_class)
    tags = vocabulary.tags
    by_name: dict[frozenset[str], MatchTable] = {}
    for tag in tags:
        if tag.kind == "open" and tag.names not in by_name:
            by_name[tag.names] = _table(vocabulary.closes_of(tag))
    ends = [t for t in tags if t.kind == "close" and HARMONY_MESSAGE in t.names]
    if ends:
        by_name[frozenset({HARMONY_MESSAGE})] = _table(ends)
    return Tables(_table(tags), by_name, _table(vocabulary.block_closes()), vocabulary.max_len)
