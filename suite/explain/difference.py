"""The first SPEC decision an output did not follow, read off one stream.

An output differs from what SPEC makes of its stream in one of a few ways: it shows a
delimiter, it shows reasoning, it drops answer text (or literal text in code), or it
holds text that is not in the input at all. `first_effect` lines the output up with
the model's visible text (difflib), takes the first place where they part, and traces
the extra or missing characters back to the input pieces they came from
(`pieces.read_pieces`). That effect, and the piece it concerns, is what a root cause is
built from: which check saw the difference does not enter into it.

A difference of white space alone at a removal point is what R-WS-1 allows: it is
passed over while another difference follows, and reported only when it is all there is.
"""

from __future__ import annotations

import difflib
import os
from dataclasses import dataclass
from enum import StrEnum

from scrubcheck.explain.pieces import Label, Part, Pieces


class Did(StrEnum):
    """What the implementation did instead of what SPEC decides, worst first."""

    SHOWS_DELIMITER = "shows a delimiter"
    SHOWS_REASONING = "shows reasoning"
    CHANGES_TEXT = "changes answer text"  # replaced by text that is not in the stream
    ADDS_TEXT = "adds text to the answer"  # a repeat of answer text, or text from nowhere
    DROPS_ANSWER = "drops answer text"
    DROPS_LITERAL = "drops delimiter text that SPEC keeps literal"
    DROPS_SPACE = "drops or adds white space"
    HOLDS_BACK = "holds decided text back"
    MISHANDLES_DELTA = "goes wrong on a delta of one kind"
    MISSES_DELIMITER = "does not recognise a delimiter"  # shown, or what follows hidden
    CHANGES_ON_SECOND_PASS = "changes its own output on a second pass"
    DIFFERS_AFTER_REUSE = "gives another output when reused after a stream"
    RETURNS_WRONG_TYPE = "returns something other than str"
    RAISES = "raises"
    HANGS = "does not finish in time"
    ERRORS = "cannot be judged"
    NOTHING = "nothing"

    def same(self, other: Did) -> bool:
        """Whether two wrong decisions are one for shrinking and probing: showing a
        delimiter and showing reasoning are both showing what SPEC hides; dropping,
        repeating or adding answer text all change the answer."""
        return self is other or (self.kind == other.kind and self.kind in ("leak", "loss"))

    @property
    def kind(self) -> str:
        """leak, loss or other: the order root causes are listed in."""
        if self in (Did.SHOWS_DELIMITER, Did.SHOWS_REASONING, Did.MISSES_DELIMITER):
            return "leak"
        if self in (Did.DROPS_ANSWER, Did.DROPS_LITERAL, Did.DROPS_SPACE, Did.ADDS_TEXT,
                    Did.CHANGES_TEXT):
            return "loss"
        return "other"


@dataclass(frozen=True)
class Effect:
    """The first wrong decision: what was done, to which piece, where in the input."""

    did: Did
    at: int = -1  # input offset of the first character concerned (-1: none)
    label: Label | None = None  # the piece's label there
    situation: str = ""  # for reasoning: which block holds it



NONE = Effect(Did.NOTHING)
#: how much of a long difference is lined up (the first place they part is within it)
WINDOW = 2000
_SPACE = frozenset(" \t\r\n\f\v")


def first_effect(pieces: Pieces, output: str) -> Effect:
    """The first place `output` parts from the model's visible text, as an Effect."""
    visible = pieces.visible
    if output == visible:
        return NONE
    shown = _shown_at_divergence(pieces, output)
    if shown is not None:
        return shown
    found: list[Effect] = []
    # difflib is quadratic: line up only what lies between the common ends, and of a long
    # middle only its start (the first difference is all that is asked)
    head = len(os.path.commonprefix([visible, output]))
    tail = len(os.path.commonprefix([visible[head:][::-1], output[head:][::-1]]))
    middle_v, middle_o = visible[head:len(visible) - tail], output[head:len(output) - tail]
    middle_v, middle_o = middle_v[:WINDOW], middle_o[:WINDOW]
    matcher = difflib.SequenceMatcher(None, middle_v, middle_o, autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            continue
        effect = _effect_of(pieces, op, head + i1, head + i2, middle_o[j1:j2])
        if effect.did not in (Did.DROPS_SPACE, Did.ADDS_TEXT):
            return effect
        found.append(effect)
    # text added is most often a piece lined up against a copy of itself: it is the
    # decision only when nothing else differs; white space alone comes last (R-WS-1)
    added = [e for e in found if e.did is Did.ADDS_TEXT]
    if added:
        return added[0]
    # white space alone: shown from a removed piece, it is that piece shown
    for op, i1, _, j1, j2 in matcher.get_opcodes():
        if op in ("insert", "replace") and middle_o[j1:j2]:
            shown = _shown_from(pieces, head + i1, middle_o[j1:j2], strip=False)
            if shown is not None:
                return shown
    return found[0] if found else Effect(Did.DROPS_SPACE)


def _effect_of(pieces: Pieces, op: str, i1: int, i2: int, extra: str) -> Effect:
    visible = pieces.visible
    missing = visible[i1:i2]
    if extra and not (set(extra) <= _SPACE and set(missing) <= _SPACE):
        for at, text in _placements(visible, i1, extra) if op == "insert" else [(i1, extra)]:
            shown = _shown_from(pieces, at, text)
            if shown is not None:
                return shown
    # answer text replaced by text found nowhere in the stream: changed, not dropped
    if missing and extra.strip() and not set(missing) <= _SPACE \
            and extra.strip() not in pieces.text:
        return Effect(Did.CHANGES_TEXT, pieces.origin[i1], pieces.labels[pieces.origin[i1]])
    # text missing comes before text added: an added repeat is most often the same
    # text, lined up elsewhere
    if missing and not set(missing) <= _SPACE:
        starts = [pieces.origin[i] for i in range(i1, i2) if visible[i] not in _SPACE]
        label = pieces.labels[starts[0]]
        # literal text dropped only when that is what goes first: a drop that starts in
        # the answer and takes code with it drops answer text
        did = Did.DROPS_LITERAL if label.part is Part.LITERAL else Did.DROPS_ANSWER
        return Effect(did, starts[0], label)
    if extra and not set(extra) <= _SPACE:
        repeated = extra.strip() in pieces.visible
        return Effect(Did.ADDS_TEXT, situation="a repeat of answer text" if repeated
                      else "text that is not in the stream")
    at = pieces.origin[i1] if i1 < len(pieces.origin) else len(pieces.text)
    return Effect(Did.DROPS_SPACE, at)


def _placements(visible: str, at: int, extra: str) -> list[tuple[int, str]]:
    """An inserted text and every other place the same insertion could stand: slid left
    while the visible character before it equals its last (an alignment may place
    `rD` after `D` where `Dr` before it was meant)."""
    found = [(at, extra)]
    while at > 0 and extra and visible[at - 1] == extra[-1]:
        at, extra = at - 1, visible[at - 1] + extra[:-1]
        found.append((at, extra))
    return found


def _shown_at_divergence(pieces: Pieces, output: str) -> Effect | None:
    """Where output and visible text first part, the output going on with what SPEC
    removed at that very place: that removed piece was shown (read before any alignment,
    which may pair the shown text with a later copy of it)."""
    visible = pieces.visible
    p = len(os.path.commonprefix([visible, output]))
    start, end = _gap(pieces, p)
    if start >= end or p >= len(output):
        return None
    removed = [k for k in range(start, end)
               if pieces.labels[k].part not in (Part.ANSWER, Part.LITERAL)]
    if not removed:
        return None
    # the output must go on with the whole first removed piece (a delimiter, or the run of
    # reasoning), or with all that is left of it: one character alike proves nothing
    first = pieces.labels[removed[0]]
    piece = [k for k in removed if pieces.labels[k].part is first.part
             and (first.tag is None or pieces.labels[k].start == first.start)]
    run = "".join(pieces.text[k] for k in piece[:len(output) - p])
    # a delimiter must show whole; reasoning may show in part (the output may end in it)
    whole = len(run) == len(piece) or (first.part is Part.REASONING
                                       and p + len(run) == len(output))
    if run and output[p:p + len(run)] == run and whole:
        if first.part is Part.DELIMITER:
            # the same text standing in the block as its content is likelier what showed
            inner = _substring(pieces.text, start, end, run, pieces)
            if inner and pieces.labels[inner[0]].part is Part.REASONING:
                return Effect(Did.SHOWS_REASONING, inner[0], pieces.labels[inner[0]],
                              situation(pieces, inner[0]))
        label = pieces.labels[removed[0]]
        if label.part is Part.DELIMITER:
            return Effect(Did.SHOWS_DELIMITER, removed[0], label)
        return Effect(Did.SHOWS_REASONING, removed[0], label, situation(pieces, removed[0]))
    return None


def _gap(pieces: Pieces, i: int) -> tuple[int, int]:
    """The input range removed where visible position `i` stands (between the visible
    characters i-1 and i)."""
    start = pieces.origin[i - 1] + 1 if i > 0 else 0
    end = pieces.origin[i] if i < len(pieces.origin) else len(pieces.text)
    return start, end


def _shown_from(pieces: Pieces, i: int, extra: str, strip: bool = True) -> Effect | None:
    """The removed input the extra characters came from, if they came from the input:
    first the gap at that position, then anywhere removed."""
    text = pieces.text
    ranges = [_gap(pieces, i), (0, len(text))]
    wanted = extra.strip() if strip else extra
    for start, end in ranges:
        hits = _substring(text, start, end, wanted, pieces) or _subsequence(
            text, start, end, wanted, pieces)
        if hits:
            first = hits[0]
            label = pieces.labels[first]
            if label.part is Part.DELIMITER:
                return Effect(Did.SHOWS_DELIMITER, first, label)
            if label.part is Part.REASONING:
                return Effect(Did.SHOWS_REASONING, first, label, situation(pieces, first))
    return None


def _substring(text: str, start: int, end: int, wanted: str, pieces: Pieces) -> list[int]:
    """The removed characters of the likeliest whole occurrence of `wanted` in
    [start, end) that starts on a removed character ([] when there is none): one of
    reasoning alone first, then one that starts where a delimiter starts, then any."""
    labels = pieces.labels
    best: tuple[int, list[int]] | None = None
    at = text.find(wanted, start, end) if wanted else -1
    while at != -1:
        removed = [k for k in range(at, at + len(wanted))
                   if labels[k].part not in (Part.ANSWER, Part.LITERAL)]
        if removed and removed[0] == at:
            first = labels[at]
            if all(labels[k].part is Part.REASONING for k in removed):
                rank = 0
            elif first.part is Part.DELIMITER and first.start == at:
                rank = 1
            else:
                rank = 2
            if best is None or rank < best[0]:
                best = (rank, removed)
        at = text.find(wanted, at + 1, end)
    return best[1] if best else []


def _subsequence(text: str, start: int, end: int, wanted: str, pieces: Pieces) -> list[int]:
    """Removed input offsets in [start, end) spelling `wanted` in order, greedily from
    the best start (reasoning first, then a delimiter's first character); [] when none
    does. Only removed characters count."""
    labels = pieces.labels
    removed = [k for k in range(start, end) if labels[k].part not in (Part.ANSWER, Part.LITERAL)]
    if not wanted or len(removed) > WINDOW:
        return []
    best: tuple[int, list[int]] | None = None
    for index, first in enumerate(removed):
        if text[first] != wanted[0]:
            continue
        hits, position = [first], index + 1
        for char in wanted[1:]:
            while position < len(removed) and text[removed[position]] != char:
                position += 1
            if position >= len(removed):
                break
            hits.append(removed[position])
            position += 1
        if len(hits) < len(wanted):
            continue
        label = labels[first]
        rank = 0 if label.part is Part.REASONING else 1 if label.start == first else 2
        if best is None or rank < best[0]:
            best = (rank, hits)
        if rank == 0:
            break
    return best[1] if best else []


def situation(pieces: Pieces, offset: int) -> str:
    """Which block holds the removed character at `offset`, in words."""
    labels = pieces.labels
    before = next((labels[k] for k in range(offset - 1, -1, -1)
                   if labels[k].part is Part.DELIMITER), None)
    after = next((labels[k] for k in range(offset + 1, len(labels))
                  if labels[k].part is Part.DELIMITER), None)
    if before is None:
        return "a pre-filled block" if pieces.context.starts_in_reasoning else "a hidden section"
    tag = before.tag
    assert tag is not None
    if tag.header:
        return "a harmony header or hidden message"
    if tag.kind.value == "marker":
        return "the section after a marker"
    if after is None:
        return "an unclosed block"
    return "a closed block"
