"""Shrinking fuzz findings: the fuzzer finds big inputs; a scenario should be minimal.

Structured inputs shrink as their list of builder choices (delete runs of
choices, lower each one towards 0, the builder's simplest option); soup shrinks
as its deltas (drop, merge, cut characters). A step is kept only when the same
failure (property and rule) still shows. Hypothesis does this for `hunt`; the
fuzzer's findings come in as bytes, so they get this small greedy shrinker.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from scrubcheck.deadline import Deadline

Predicate = Callable[[object], bool]


def shrink_choices(values: list[int], fails: Callable[[list[int]], bool],
                   seconds: float = 10.0) -> list[int]:
    """The smallest choice list found for which `fails` still holds."""
    budget = Deadline(seconds)
    best = list(values)
    progress = True
    while progress and not budget.passed():
        progress = False
        size = max(1, len(best) // 2)
        while size >= 1 and not budget.passed():
            i = 0
            while i + size <= len(best) and not budget.passed():
                candidate = best[:i] + best[i + size:]
                if fails(candidate):
                    best, progress = candidate, True
                else:
                    i += size
            size //= 2
        for i in range(len(best)):
            if budget.passed():
                break
            value = best[i]
            for smaller in dict.fromkeys((0, value // 2, value - 1)):
                if 0 <= smaller < value:
                    candidate = best[:i] + [smaller] + best[i + 1:]
                    if fails(candidate):
                        best, progress = candidate, True
                        break
    return best


def shrink_deltas(deltas: tuple[str, ...], fails: Callable[[tuple[str, ...]], bool],
                  seconds: float = 10.0) -> tuple[str, ...]:
    """The smallest partition found (fewer deltas, fewer characters) that still fails."""
    budget = Deadline(seconds)
    best = tuple(deltas)
    progress = True
    while progress and not budget.passed():
        progress = False
        for candidate in _delta_steps(best):
            if budget.passed():
                break
            if fails(candidate):
                best, progress = candidate, True
                break
    return best


def _delta_steps(deltas: tuple[str, ...]) -> Iterator[tuple[str, ...]]:
    for i in range(len(deltas)):  # drop a delta
        yield deltas[:i] + deltas[i + 1:]
    for i in range(len(deltas) - 1):  # merge two neighbours
        yield deltas[:i] + (deltas[i] + deltas[i + 1],) + deltas[i + 2:]
    for i, delta in enumerate(deltas):  # cut characters, big pieces first
        size = len(delta)
        while size >= 1:
            for start in range(0, len(delta) - size + 1, size):
                yield deltas[:i] + (delta[:start] + delta[start + size:],) + deltas[i + 1:]
            size //= 2
