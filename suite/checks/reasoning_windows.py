"""R-LEAK-1 / R-TRUNC-1: find reasoning in an output by 8-character windows.

Any window of length min(8, len(r)) of a reasoning string r that shows up in
the output is a proven leak: the corpus guarantees that no such window is part
of any expected output (SPEC section 11). A leak is reported at the first feed
after which it was visible, with the longest stretch of reasoning it shares.

For truncated streams only what the stream carried before the cut counts: each
window becomes "live" at the text position where it was complete.
"""

from __future__ import annotations

from dataclasses import dataclass

WINDOW = 8


@dataclass(frozen=True)
class Leak:
    reasoning: str  # the reasoning string that leaked
    start: int  # span in the output of the longest shared stretch
    end: int
    text: str
    visible_at: int  # output length at which the first window was complete


class LeakDetector:
    """Windows of the scenario's reasoning strings, each with the input position at
    which it had been fully fed (so a truncated stream is judged on what it carried)."""

    def __init__(self, reasoning: tuple[str, ...] | list[str], text: str | None = None) -> None:
        self._live_at: dict[str, int] = {}  # window -> first input end position where seen
        self._source: dict[str, str] = {}
        self._widths: set[int] = set()
        for r in reasoning:
            if not r:
                continue
            width = min(WINDOW, len(r))
            self._widths.add(width)
            starts = _occurrences(text, r) if text is not None else []
            for offset in range(len(r) - width + 1):
                window = r[offset : offset + width]
                # Not found in the text: always live (a leak of it is a leak anyway).
                live = min((s + offset + width for s in starts), default=0)
                if window not in self._live_at or live < self._live_at[window]:
                    self._live_at[window] = live
                    self._source[window] = r

    def __bool__(self) -> bool:
        return bool(self._live_at)

    def first_leak(self, output: str, seen: int | None = None) -> Leak | None:
        """The leak whose window ends earliest in `output`, counting only windows fully
        contained in the first `seen` characters of the input (all when None)."""
        for end in range(1, len(output) + 1):
            for width in self._widths:
                if end < width:
                    continue
                window = output[end - width : end]
                live = self._live_at.get(window)
                if live is not None and (seen is None or live <= seen):
                    return self._extend(output, end - width, end, self._source[window])
        return None

    def _extend(self, output: str, start: int, end: int, reasoning: str) -> Leak:
        offset = reasoning.find(output[start:end])
        left, right = start, end
        r_left, r_right = offset, offset + (end - start)
        while left > 0 and r_left > 0 and output[left - 1] == reasoning[r_left - 1]:
            left, r_left = left - 1, r_left - 1
        while (
            right < len(output)
            and r_right < len(reasoning)
            and output[right] == reasoning[r_right]
        ):
            right, r_right = right + 1, r_right + 1
        return Leak(reasoning, left, right, output[left:right], end)


def _occurrences(text: str, needle: str) -> list[int]:
    found = []
    index = text.find(needle)
    while index != -1:
        found.append(index)
        index = text.find(needle, index + 1)
    return found
