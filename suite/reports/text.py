"""Making scenario text safe and unambiguous to show, in every report format.

Scrubber bugs are very often whitespace bugs (a dropped line feed, two words
glued together), and corpus text deliberately contains NUL, lone surrogates and
other characters that break terminals, XML and UTF-8 files. Every writer goes
through these helpers so that what a reader sees is exact and never crashes a
writer.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

# One rendering of invisible characters for the whole project: the checks use it
# in failure details, so expected/got in the reports use the same marks
# (WHITESPACE_MARKS; others as escapes).
from ..checks.render import WHITESPACE_MARKS
from ..checks.render import visible as visible_whitespace

__all__ = ["WHITESPACE_LEGEND", "delta_list", "display_width", "escape_char", "output_excerpt",
           "plural", "shorten", "terminal_safe", "visible_whitespace", "xml_safe"]

_WHITESPACE_NAMES = {" ": "space", "\n": "line feed", "\t": "tab", "\r": "carriage return"}
WHITESPACE_LEGEND = (
    "Whitespace is visible: "
    + ", ".join(f"{_WHITESPACE_NAMES[c]} {m}" for c, m in WHITESPACE_MARKS.items())
    + "; other invisible characters, and those marks where the text itself has them, are "
    "escapes (\\x00, \\u2028, lone surrogates as \\udc80)."
)


def escape_char(char: str) -> str:
    """`\\uXXXX` (or `\\U00XXXXXX`) for one character."""
    code = ord(char)
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def _xml_char_ok(code: int) -> bool:
    return (
        code in (0x9, 0xA, 0xD)
        or 0x20 <= code <= 0xD7FF
        or 0xE000 <= code <= 0xFFFD
        or 0x10000 <= code <= 0x10FFFF
    )


def xml_safe(text: str) -> str:
    """Replace characters illegal in XML 1.0 (NUL, most C0 controls, lone
    surrogates, U+FFFE/U+FFFF) by `\\uXXXX`; everything else is kept as is.

    Also safe for HTML and for writing as UTF-8, which both reject the same
    characters in practice.
    """
    if all(_xml_char_ok(ord(c)) for c in text):
        return text
    return "".join(c if _xml_char_ok(ord(c)) else escape_char(c) for c in text)


def display_width(text: str) -> int:
    """Terminal columns taken by `text`: wide East Asian characters count two,
    combining marks none. Used to put a caret under a character."""
    width = 0
    for char in text:
        if unicodedata.combining(char):
            continue
        width += 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1
    return width


def plural(n: int, word: str) -> str:
    """`1 check`, `2 checks`."""
    return f"{n} {word}" + ("" if n == 1 else "s")


def shorten(text: str, limit: int) -> str:
    """`text` cut to at most `limit` characters, with an ellipsis when cut."""
    if len(text) <= limit:
        return text
    return text[: max(limit - 1, 0)] + "…"


def delta_list(deltas: Sequence[str], limit: int = 2000) -> str:
    """The deltas as a Python expression (exact, copy-pasteable), cut at
    `limit` characters with a note saying how much was left out.

    One-character deltas (the `char` chunking) are written `list('text')`,
    which reads far better than a list of single letters and is the same value.
    """
    if len(deltas) > 1 and all(len(d) == 1 for d in deltas):
        joined = xml_safe(repr("".join(deltas)))
        if len(joined) <= limit:
            return f"list({joined})"
    shown: list[str] = []
    length = 2
    for index, delta in enumerate(deltas):
        item = xml_safe(repr(delta))
        if length + len(item) > limit and shown:
            rest = len(deltas) - index
            chars = sum(len(d) for d in deltas[index:])
            shown.append(f"... {rest} more deltas, {chars} characters")
            break
        shown.append(item)
        length += len(item) + 2
    return "[" + ", ".join(shown) + "]"


def _control(char: str) -> bool:
    code = ord(char)
    return (code < 0x20 and char not in "\n\t") or 0x7F <= code <= 0x9F \
        or 0xD800 <= code <= 0xDFFF


def terminal_safe(text: str) -> str:
    """`text` safe to print on a terminal or into a log: control characters (escape
    sequences, carriage returns, NUL, lone surrogates) as escapes; line feeds and tabs
    kept. For what a scrubber printed, which must not clear a screen or fake a line."""
    if not any(_control(c) for c in text):
        return text
    return "".join(
        (f"\\x{ord(c):02x}" if ord(c) < 0x100 else escape_char(c)) if _control(c) else c
        for c in text)


def output_excerpt(captured: str, head: int = 2, tail: int = 5, width: int = 200) -> list[str]:
    """A captured output (runner.capture) in a few terminal-safe lines: its summary
    line, the first `head` and the last `tail` lines, each cut to `width`."""
    lines = terminal_safe(captured).splitlines()
    summary, body = (lines[0], lines[1:]) if lines else ("", [])
    if len(body) > head + tail + 1:
        body = [*body[:head], f"… {len(body) - head - tail} more captured lines …",
                *body[-tail:]]
    return [shorten(line, width) for line in [summary, *body]]
