"""Putting arbitrary text into Markdown without it turning into markup.

Scenario text is full of things Markdown and HTML interpret (`<think>`, pipes,
backticks); a report that swallowed a tag would be lying about the scrubber.
"""

from __future__ import annotations

import re

from .text import xml_safe

_BACKTICK_RUN = re.compile(r"`+")


def code_span(text: str) -> str:
    """`text` as an inline code span, whatever backticks it contains."""
    text = xml_safe(text).replace("\n", " ")
    longest = max((len(m) for m in _BACKTICK_RUN.findall(text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or not text.strip() else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def fenced(text: str, info: str = "text") -> str:
    """`text` as a fenced code block whose fence no line of it can close."""
    text = xml_safe(text)
    longest = max((len(m) for m in _BACKTICK_RUN.findall(text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{info}\n{text}\n{fence}"


def cell(text: object) -> str:
    """A table cell: one line, pipes escaped (GitHub needs it even in code spans)."""
    return xml_safe(str(text)).replace("\r", " ").replace("\n", " ").replace("|", "\\|")


def _escape_plain(segment: str) -> str:
    return segment.replace("\\", "\\\\").replace("<", "\\<").replace("&", "&amp;")


def prose(text: str) -> str:
    """Author-written Markdown (descriptions) with raw HTML neutralised.

    Code spans are kept verbatim (they are already literal); elsewhere `<` and
    `&` are escaped so a tag in a description is shown, not swallowed.
    """
    out = []
    for line in xml_safe(text).splitlines():
        out.append(_escape_line(line))
    return "\n".join(out)


def _escape_line(line: str) -> str:
    runs = list(_BACKTICK_RUN.finditer(line))
    pieces = []
    position = 0
    index = 0
    while index < len(runs):
        opener = runs[index]
        closer_index = next(
            (k for k in range(index + 1, len(runs))
             if len(runs[k].group()) == len(opener.group())),
            None,
        )
        if closer_index is None:
            index += 1
            continue
        closer = runs[closer_index]
        pieces.append(_escape_plain(line[position:opener.start()]))
        pieces.append(line[opener.start():closer.end()])
        position = closer.end()
        index = closer_index + 1
    pieces.append(_escape_plain(line[position:]))
    return "".join(pieces)
