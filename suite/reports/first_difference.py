"""Expected-versus-got views that point at the first character that matters.

A reader fixing a scrubber needs to know *where* the output went wrong, not to
compare two long strings by eye. Outputs may legitimately differ in whitespace
around removed pieces (SPEC R-WS-1), so the caret goes to the first difference
that is not a mere change inside a whitespace run; an earlier whitespace-only
difference is still named in the note.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..checks.render import first_difference as first_raw_difference
from .text import display_width, visible_whitespace

_WS = " \t\r\n"
CONTEXT_BEFORE = 40
CONTEXT_AFTER = 80


@dataclass(frozen=True)
class Difference:
    expected_at: int  # index into expected of the first difference
    got_at: int  # index into got
    whitespace_only: bool  # the strings differ only inside whitespace runs


def _skip_ws(text: str, index: int) -> int:
    while index < len(text) and text[index] in _WS:
        index += 1
    return index


def first_difference(expected: str, got: str) -> Difference | None:
    """Where `got` first departs from `expected`, or None when they are equal.

    Whitespace runs present in both are skipped whatever their content; a run
    present in one and absent in the other (glued words) is a difference.
    """
    raw = first_raw_difference(expected, got)
    if raw is None:
        return None
    i = j = 0
    while i < len(expected) and j < len(got):
        if expected[i] in _WS and got[j] in _WS:
            i, j = _skip_ws(expected, i), _skip_ws(got, j)
        elif expected[i] == got[j]:
            i, j = i + 1, j + 1
        else:
            return Difference(i, j, False)
    if _skip_ws(expected, i) == len(expected) and _skip_ws(got, j) == len(got):
        return Difference(raw, raw, True)
    return Difference(i, j, False)


def _window(text: str, at: int) -> tuple[str, str]:
    """Visible text before `at` and from `at` on, each cut to its context
    length, an ellipsis marking every cut."""
    start = max(at - CONTEXT_BEFORE, 0)
    end = min(at + CONTEXT_AFTER, len(text))
    before = ("…" if start > 0 else "") + visible_whitespace(text[start:at])
    after = visible_whitespace(text[at:end]) + ("…" if end < len(text) else "")
    return before, after


def excerpt(text: str | None) -> str | None:
    """The start of `text`, made visible and cut like a diff line."""
    return None if text is None else "".join(_window(text, 0))


@dataclass(frozen=True)
class DiffView:
    """Aligned lines for display: labels are applied by the writers."""

    expected: str | None  # visible-whitespace excerpt, None when not applicable
    got: str | None
    caret: str | None  # spaces and ^ under the difference in `got`
    note: str  # e.g. "first difference at character 12 of 40 expected"


def diff_view(expected: str | None, got: str | None) -> DiffView:
    """Excerpts of expected and got around their first difference, aligned so
    that one caret points at it in both lines."""
    if expected is None or got is None:
        return DiffView(excerpt(expected), excerpt(got), None, "")
    diff = first_difference(expected, got)
    if diff is None:
        return DiffView(excerpt(expected), excerpt(got), None, "identical")
    exp_before, exp_after = _window(expected, diff.expected_at)
    got_before, got_after = _window(got, diff.got_at)
    pad_e = display_width(got_before) - display_width(exp_before)
    column = max(display_width(exp_before), display_width(got_before))
    exp_line = " " * max(-pad_e, 0) + exp_before + exp_after
    got_line = " " * max(pad_e, 0) + got_before + got_after
    note = (
        f"first difference at character {diff.expected_at} of expected "
        f"(length {len(expected)}), {diff.got_at} of got (length {len(got)})"
    )
    if diff.whitespace_only:
        note += "; the outputs differ only in whitespace"
    else:
        raw = first_raw_difference(expected, got)
        if raw is not None and raw < min(diff.expected_at, diff.got_at):
            note += f"; whitespace already differs at character {raw}"
    return DiffView(exp_line, got_line, " " * column + "^", note)
