"""What SPEC removes from a stream's content, and where.

`gateway check` needs the reasoning a stream carries inline, to know what a
leak of it looks like. The batch model of SPEC (`scrubcheck.specmodel`, no
scrubber under test) gives the visible output, so the removed text is exactly
the input minus that output; the removed ranges are found by aligning the two
(the output is the input with pieces taken out). Tags are then split off,
leaving the reasoning itself.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from functools import cache

from scrubcheck.model import Context
from scrubcheck.specmodel import read_stream
from scrubcheck.vocabulary import FEATURES, build_vocabulary, default_tags, feature_tags, fold

#: Past this size the quadratic-worst alignment gives way to a linear greedy one.
_ALIGN_LIMIT = 50_000


@dataclass(frozen=True)
class Piece:
    """A removed range of the input: `text == input[start:end]`."""

    start: int
    end: int
    text: str


@dataclass(frozen=True)
class SpecRun:
    text: str
    output: str
    cuts: tuple[int, ...]  # output positions where something was removed (for R-WS-1)
    pieces: tuple[Piece, ...]


def spec_run(deltas: list[str] | tuple[str, ...], context: Context) -> SpecRun:
    """What SPEC shows of the recorded content (R-CHUNK-1: the deltas' split does not
    matter), and what it took out."""
    text = "".join(deltas)
    reading = read_stream(text, context)
    return SpecRun(text, reading.visible, reading.cuts, tuple(_removed(text, reading.visible)))


def _removed(text: str, output: str) -> list[Piece]:
    if text == output:
        return []
    if len(text) <= _ALIGN_LIMIT:
        matcher = difflib.SequenceMatcher(None, text, output, autojunk=False)
        kept = [(a, a + size) for a, _, size in matcher.get_matching_blocks() if size]
    else:
        kept = _greedy(text, output)
    pieces, at = [], 0
    for start, end in kept + [(len(text), len(text))]:
        if start > at:
            pieces.append(Piece(at, start, text[at:start]))
        at = max(at, end)
    return pieces


def _greedy(text: str, output: str) -> list[tuple[int, int]]:
    """Match the output left to right by its longest prefix found next in the text."""
    kept, i, j = [], 0, 0
    while j < len(output):
        size = 1
        pos = text.find(output[j], i)
        if pos < 0:
            break
        while j + size < len(output) and text.startswith(output[j:j + size + 1], pos):
            size += 1
        kept.append((pos, pos + size))
        i, j = pos + size, j + size
    return kept


@cache
def _tag_pattern(features: frozenset[str]) -> re.Pattern[str]:
    texts = sorted((t.text for t in build_vocabulary(tuple(features)).tags), key=len,
                   reverse=True)
    return re.compile("|".join(re.escape(t) for t in texts), re.IGNORECASE | re.ASCII)


def reasoning_parts(pieces: tuple[Piece, ...], features: tuple[str, ...]) -> list[str]:
    """The reasoning inside removed pieces: tags split off, whitespace-only parts dropped."""
    pattern = _tag_pattern(frozenset(features))
    parts = []
    for piece in pieces:
        for part in pattern.split(piece.text):
            part = part.strip()
            if part.strip("`"):
                parts.append(part)
    return parts


def detect_features(text: str) -> tuple[str, ...]:
    """The features whose own delimiters occur in `text` (ASCII case-insensitively). A
    feature's pair that is also the default family's (`<think>` of kimi-k2 and others)
    says nothing: the default family reads it already, and counting it would enable
    every such feature for any `<think>` stream."""
    folded = fold(text)
    family = {fold(t.text) for t in default_tags()}
    return tuple(name for name, feature in FEATURES.items()
                 if any(fold(t.text) in folded for t in feature_tags(feature)
                        if fold(t.text) not in family))
