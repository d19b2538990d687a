"""One source of decisions for every generator: Hypothesis, fuzz bytes or a replay list.

The stream builders ask a `Chooser` for small integers only (`below(n)`: 0 is
always the simplest option). Hypothesis answers with its own draws, so its
shrinker works on the structure; the fuzzer answers from its input bytes; a
recorded list of choices replays (and lets the fuzz shrinker reduce) a finding.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol, TypeVar

T = TypeVar("T")


class Chooser(Protocol):
    def below(self, n: int) -> int:
        """An integer in range(n); n >= 1. Smaller is simpler."""
        ...


class ListChooser:
    """Choices from a list of integers (each taken modulo n); 0 once the list runs out.

    `used` records the value actually returned for each call, so that a decoded
    input can be replayed exactly and shrunk choice by choice.
    """

    def __init__(self, values: Sequence[int]) -> None:
        self._values = values
        self._next = 0
        self.used: list[int] = []

    def below(self, n: int) -> int:
        if n <= 1:
            return 0
        value = self._values[self._next] % n if self._next < len(self._values) else 0
        self._next += 1
        self.used.append(value)
        return value

    @property
    def exhausted(self) -> bool:
        return self._next >= len(self._values)


class BytesChooser(ListChooser):
    """Choices decoded from fuzzer bytes: one byte per choice (two when n > 256)."""

    def __init__(self, data: bytes) -> None:
        super().__init__(data)
        self._data = data

    def below(self, n: int) -> int:
        if n <= 1:
            return 0
        if n > 256 and self._next + 1 < len(self._data):
            raw = self._data[self._next] << 8 | self._data[self._next + 1]
            self._next += 2
            value = raw % n
            self.used.append(value)
            return value
        return super().below(n)


class DrawChooser:
    """Choices drawn from Hypothesis (`draw` of `st.composite` or `st.data().draw`)."""

    def __init__(self, draw: Callable) -> None:
        from hypothesis import strategies as st

        self._draw = draw
        self._st = st

    def below(self, n: int) -> int:
        if n <= 1:
            return 0
        return self._draw(self._st.integers(0, n - 1))


def pick(chooser: Chooser, options: Sequence[T]) -> T:
    """One of `options`; the first is the simplest."""
    return options[chooser.below(len(options))]


def chance(chooser: Chooser, one_in: int) -> bool:
    """True about once in `one_in` draws (False is the simple answer)."""
    return chooser.below(one_in) == one_in - 1


def more(chooser: Chooser, count: int, limit: int, one_in: int = 2) -> bool:
    """Whether a list of `count` items gets another (at most `limit`)."""
    return count < limit and chooser.below(one_in) != 0
