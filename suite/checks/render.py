"""Show text so that whitespace and invisible characters can be seen and counted.

A failure that reads `expected "a b", got "a b"` is useless; whitespace is
where scrubbers most often differ (R-WS-1), so every character is made visible:
space `·`, line feed `¶`, tab `→`, carriage return `←`, other controls and
format characters as escapes (`\\u2028`, `\\x00`), lone surrogates as `\\udc80`.

The marks are Latin-1 and WGL4 characters, which every common font has (the
Control Pictures `␠` and `␍` render as empty boxes with the fonts of a stock
Debian browser). A mark character that occurs in the text itself is written
as an escape, so a mark always means whitespace.
"""

from __future__ import annotations

import unicodedata

WHITESPACE_MARKS = {" ": "·", "\n": "¶", "\t": "→", "\r": "←"}
_MARKED = frozenset(WHITESPACE_MARKS.values())


def visible(text: str) -> str:
    """`text` with every whitespace and invisible character shown as a glyph or escape."""
    out = []
    for char in text:
        mark = WHITESPACE_MARKS.get(char)
        if mark is not None:
            out.append(mark)
        elif char in _MARKED or _invisible(char):
            code = ord(char)
            out.append(f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")
        else:
            out.append(char)
    return "".join(out)


def _invisible(char: str) -> bool:
    if "\ud800" <= char <= "\udfff":
        return True
    return unicodedata.category(char) in ("Cc", "Cf", "Zl", "Zp", "Zs", "Co", "Cn")


def quoted(text: str, limit: int = 160) -> str:
    """A visible, length-limited, quoted rendering for one-line messages."""
    shown = visible(text)
    if len(shown) > limit:
        shown = shown[: limit - 1] + "…"
    return f'"{shown}"'


def first_difference(a: str, b: str) -> int | None:
    """Index of the first character where `a` and `b` differ (None if equal)."""
    if a == b:
        return None
    for i, (x, y) in enumerate(zip(a, b, strict=False)):
        if x != y:
            return i
    return min(len(a), len(b))


def around(text: str, index: int, radius: int = 24) -> str:
    """The visible excerpt of `text` around `index`, with … where it was cut."""
    start = max(0, index - radius)
    end = min(len(text), index + radius)
    head = "…" if start > 0 else ""
    tail = "…" if end < len(text) else ""
    return f'{head}"{visible(text[start:end])}"{tail}'


def describe_difference(expected: str, got: str) -> str:
    """One line: where two outputs part, with both sides shown around that index."""
    index = first_difference(expected, got)
    if index is None:
        return "identical"
    return (
        f"first difference at index {index}: expected {around(expected, index)}, "
        f"got {around(got, index)}"
    )
