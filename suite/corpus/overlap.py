"""The 8-character window rule (SPEC section 11).

A reasoning string that shares no 8-character window with the expected output
makes any window of it found in a scrubber's output a proven leak. The same
functions let families check their generated text before shipping it.
"""

from __future__ import annotations

from collections.abc import Sequence

WINDOW = 8


def windows(text: str, size: int = WINDOW) -> set[str]:
    """Every substring of `text` of length `size` (empty when `text` is shorter)."""
    return {text[i : i + size] for i in range(len(text) - size + 1)}


def overlaps(reasonings: Sequence[str], output: str, size: int = WINDOW) -> dict[int, str]:
    """For each reasoning string that overlaps `output`: its index -> a shared piece.

    A string shorter than `size` overlaps when it is a substring of the output.
    All windows of all reasoning strings go into one table and the output is
    scanned once, so a 1 MiB stream with a hundred blocks stays linear.
    """
    found: dict[int, str] = {}
    owners: dict[str, list[int]] = {}
    for index, reasoning in enumerate(reasonings):
        if len(reasoning) < size:
            if reasoning in output:
                found[index] = reasoning
            continue
        for window in windows(reasoning, size):
            owners.setdefault(window, []).append(index)
    if not owners:
        return found
    for i in range(len(output) - size + 1):
        piece = output[i : i + size]
        for index in owners.get(piece, ()):
            found.setdefault(index, piece)
    return dict(sorted(found.items()))


def shared_window(reasoning: str, output: str, size: int = WINDOW) -> str | None:
    """A piece of `reasoning` that `output` also contains (per the window rule), or None."""
    return overlaps([reasoning], output, size).get(0)
