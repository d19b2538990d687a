"""The whitespace rule of SPEC R-WS-1, as a comparer.

Where the reference removed something (a block, a tag, a marker), the maximal
whitespace run W of the expected output around that place is flexible: another
whitespace run W' may stand there instead, provided (a) nothing is inserted
where W is empty, and (b) W' is not empty unless W touches the start or end of
the output. Everywhere else comparison is exact. The comparer walks both texts
once and reports the first place they part.
"""

from __future__ import annotations

from dataclasses import dataclass

WHITESPACE = " \t\r\n"


@dataclass(frozen=True)
class WsMismatch:
    expected_index: int
    got_index: int
    reason: str


def flexible_runs(expected: str, cuts: list[int] | tuple[int, ...]) -> list[tuple[int, int]]:
    """The maximal whitespace runs around each cut position, merged and sorted."""
    runs: list[tuple[int, int]] = []
    for cut in sorted(set(cuts)):
        if not 0 <= cut <= len(expected):
            continue
        start = end = cut
        while start > 0 and expected[start - 1] in WHITESPACE:
            start -= 1
        while end < len(expected) and expected[end] in WHITESPACE:
            end += 1
        if start == end:
            continue  # (a): an empty run stays empty, so it is compared exactly
        if runs and start <= runs[-1][1]:
            runs[-1] = (runs[-1][0], max(end, runs[-1][1]))
        else:
            runs.append((start, end))
    return runs


def ws_compare(expected: str, got: str, cuts: list[int] | tuple[int, ...]) -> WsMismatch | None:
    """None when `got` equals `expected` up to what R-WS-1 allows at the cut positions."""
    i = j = 0  # positions in expected and got
    for start, end in flexible_runs(expected, cuts):
        mismatch = _exact(expected, got, i, j, start)
        if mismatch:
            return mismatch
        j += start - i
        k = j
        while k < len(got) and got[k] in WHITESPACE:
            k += 1
        may_vanish = start == 0 or end == len(expected)
        if k == j and not may_vanish:
            return WsMismatch(
                start, j, f"the whitespace {expected[start:end]!r} around a removed piece "
                "was dropped (it may change, but not vanish, inside the output)"
            )
        i, j = end, k
    mismatch = _exact(expected, got, i, j, len(expected))
    if mismatch:
        return mismatch
    if j + len(expected) - i < len(got):
        index = j + len(expected) - i
        return WsMismatch(len(expected), index, "extra text at the end of the output")
    return None


def _exact(expected: str, got: str, i: int, j: int, stop: int) -> WsMismatch | None:
    """Compare expected[i:stop] with got at j exactly; report the first difference."""
    for offset in range(stop - i):
        if j + offset >= len(got):
            return WsMismatch(i + offset, j + offset, "the output ends too early")
        if expected[i + offset] != got[j + offset]:
            return WsMismatch(i + offset, j + offset,
                              _kind(expected[i + offset], got[j + offset]))
    return None


def _kind(want: str, have: str) -> str:
    if want in WHITESPACE and have in WHITESPACE:
        return "whitespace differs"
    if have in WHITESPACE:
        return "whitespace inserted"
    if want in WHITESPACE:
        return "whitespace dropped"
    return "text differs"
