"""A stream read piece by piece: what SPEC says each input character is.

The SPEC model (`scrubcheck.specmodel`) answers what a stream shows; to say which
decision an implementation got wrong, the root-cause work also needs to know what each
character of the input *is*: answer text, a delimiter (with its role, format and
letter case), reasoning inside some block, or delimiter text that SPEC keeps literal
(a tag in code). This module labels every input character from the model's reading,
so that an output can be traced back to the pieces it came from (`difference`).

The labels come from the model's own notes: its visible pieces (input ranges), the
tags it removed (with splices, R-TAG-1) and, inside each removed range, the delimiters
of the active vocabulary found there. What is removed and is not a delimiter is
reasoning (or a hidden message: whatever a block holds).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum
from functools import cache, lru_cache

from scrubcheck.formats import registered_formats
from scrubcheck.model import Context
from scrubcheck.specmodel import Reading, read_stream
from scrubcheck.vocabulary import FEATURES, Tag, TagKind, Vocabulary, feature_tags, fold


class Part(StrEnum):
    """What one input character is, in SPEC's reading."""

    ANSWER = "answer"  # shown
    LITERAL = "literal"  # shown, and part of text spelled like a delimiter (code, R-CODE-*)
    DELIMITER = "delimiter"  # removed: a delimiter of the active vocabulary
    REASONING = "reasoning"  # removed: what a block holds


@dataclass(frozen=True)
class Label:
    part: Part
    tag: Tag | None = None  # for a delimiter or literal: which one
    start: int = 0  # for a delimiter or literal: where its text starts in the input
    raw: str = ""  # its text as it stood (a spliced delimiter: joined)


@dataclass(frozen=True)
class Pieces:
    """The model's reading of one stream with a label for each input character."""

    text: str
    context: Context
    reading: Reading
    labels: tuple[Label, ...]
    #: for each visible character, the input offset it came from
    origin: tuple[int, ...]

    @property
    def visible(self) -> str:
        return self.reading.visible

    def delimiter_span(self, offset: int) -> tuple[int, int]:
        """The input range of the delimiter whose character stands at `offset`
        (contiguous characters of the same delimiter)."""
        label = self.labels[offset]
        start = offset
        while start > 0 and self.labels[start - 1].start == label.start \
                and self.labels[start - 1].part == label.part:
            start -= 1
        end = offset + 1
        while end < len(self.labels) and self.labels[end].start == label.start \
                and self.labels[end].part == label.part:
            end += 1
        return start, end


@cache
def family_of_text() -> dict[str, str]:
    """Each feature delimiter's folded text -> the format it belongs to (the first)."""
    found: dict[str, str] = {}
    for name, feature in FEATURES.items():
        for tag in feature_tags(feature):
            found.setdefault(fold(tag.text), name)
    return found


def family(tag: Tag) -> str:
    """The format a delimiter belongs to: `default` for the default family's tags."""
    if any(":" not in name for name in tag.names):
        return "default"
    if any(name.startswith("custom:") for name in tag.names):
        return "custom"
    own = min(tag.names).split(":")[0]  # a format's tags are named after it (`think:1`)
    if own in registered_formats() and not tag.header:
        return own
    return family_of_text().get(fold(tag.text), own)


def role(tag: Tag) -> str:
    """A delimiter's role in words: open, close, marker, tool section, header."""
    if tag.ends:
        return "tool-section open"
    if tag.header:
        return f"header {tag.kind.value}"
    return tag.kind.value


def case_of(raw: str, tag: Tag) -> str:
    """`as spelled` when the text is the vocabulary's spelling, else upper or mixed."""
    if raw == tag.text:
        return "as spelled"
    return "upper case" if raw == raw.upper() else "mixed case"


#: each vocabulary's pattern, by the vocabulary's identity (vocabularies are built once
#: per context and kept, `vocabulary._build`; the entry keeps its vocabulary alive)
_FINDERS: dict[int, tuple[Vocabulary, re.Pattern[str] | None]] = {}


def _finder(vocabulary: Vocabulary) -> re.Pattern[str] | None:
    """One pattern for every delimiter of the vocabulary, longest first, matched with
    ASCII case folding only (SPEC R-VOCAB-1)."""
    known = _FINDERS.get(id(vocabulary))
    if known is None or known[0] is not vocabulary:
        texts = sorted(vocabulary.by_folded, key=len, reverse=True)
        pattern = (re.compile("|".join(map(re.escape, texts)), re.IGNORECASE | re.ASCII)
                   if texts else None)
        known = _FINDERS[id(vocabulary)] = (vocabulary, pattern)
    return known[1]


def _scan(text: str, start: int, end: int, vocabulary: Vocabulary,
          labels: list[Label | None], part: Part) -> None:
    """Label every delimiter found in text[start:end] as `part` (longest match first)."""
    finder = _finder(vocabulary)
    if finder is None:
        return
    for match in finder.finditer(text, start, end):
        tag = vocabulary.lookup(match.group())
        i, j = match.span()
        if tag is not None and all(labels[k] is None for k in range(i, j)):
            for k in range(i, j):
                labels[k] = Label(part, tag, i, match.group())


@lru_cache(maxsize=512)
def read_pieces(text: str, context: Context) -> Pieces:
    """The model's reading of `text` under `context`, each input character labelled."""
    reading = read_stream(text, context)
    vocabulary = context.vocabulary()
    labels: list[Label | None] = [None] * len(text)
    origin: list[int] = []
    shown = [False] * len(text)
    for offset, length, _ in reading.pieces:
        for k in range(offset, offset + length):
            shown[k] = True
            origin.append(k)
    for removed in reading.tags:  # removed tags, spliced ones joined across a removed piece
        tag = vocabulary.lookup(removed.raw)
        i, k = removed.offset, 0
        while tag is not None and k < len(removed.raw) and i < len(text):
            if not shown[i] and labels[i] is None and fold(text[i]) == fold(removed.raw[k]):
                labels[i] = Label(Part.DELIMITER, tag, removed.offset, removed.raw)
                k += 1
            i += 1
    # inside a removed range, the delimiters that shape it: a close ending it, and a
    # harmony header's tokens (any other delimiter text there is content: no nesting,
    # R-BLOCK-2); then the literal delimiter text of shown ranges
    for part, wanted in ((Part.DELIMITER, False), (Part.LITERAL, True)):
        i = 0
        while i < len(text):
            if shown[i] != wanted:
                i += 1
                continue
            j = i
            while j < len(text) and shown[j] == wanted:
                j += 1
            found: list[Label | None] = [None] * len(text)
            _scan(text, i, j, vocabulary, found, part)
            for k in range(i, j):
                label = found[k]
                if label is None or labels[k] is not None or label.tag is None:
                    continue
                end = label.start + len(label.raw)
                if part is Part.LITERAL or label.tag.header or (
                        label.tag.kind is TagKind.CLOSE and end == j):
                    labels[k] = label
            i = j
    final = tuple(label if label is not None else
                  Label(Part.ANSWER if shown[k] else Part.REASONING)
                  for k, label in enumerate(labels))
    if "".join(text[k] for k in origin) != reading.visible:  # a piece the model rewrote
        origin = _align(text, reading.visible)
    return Pieces(text, context, reading, final, tuple(origin))


def _align(text: str, visible: str) -> list[int]:
    """Visible characters matched to the input in order (a fallback for a reading whose
    pieces do not spell its visible text)."""
    origin, i = [], 0
    for char in visible:
        while i < len(text) and text[i] != char:
            i += 1
        origin.append(min(i, max(len(text) - 1, 0)))
        i += 1
    return origin

