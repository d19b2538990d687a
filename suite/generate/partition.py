"""Splitting a text into deltas: the ways a real stream can arrive (SPEC R-CHUNK-1).

Partitions are chosen, not sampled, so that a shrinker can reduce them: mode 0
is one delta, then free cut points (repeats make empty deltas), one character
per delta, and cuts inside the stream's tags (where hold-back bugs live).
"""

from __future__ import annotations

from scrubcheck.corpus.streams import cut
from scrubcheck.generate.chooser import Chooser, more

MODES = ("whole", "cuts", "chars", "in-tags")


def choose_partition(
    ch: Chooser, text: str, tag_ranges: list[tuple[int, int]] | None = None, max_cuts: int = 12
) -> tuple[str, ...]:
    """Deltas whose concatenation is `text`."""
    mode = MODES[ch.below(len(MODES))]
    if mode == "chars":
        return tuple(text) or ("",)
    points: list[int] = []
    if mode == "in-tags" and tag_ranges:
        for start, end in tag_ranges:
            if ch.below(2):
                points.append(start + 1 + ch.below(end - start - 1))
    elif mode != "whole":
        while more(ch, len(points), max_cuts, 4):
            points.append(ch.below(len(text) + 1))
    return cut(text, points)
