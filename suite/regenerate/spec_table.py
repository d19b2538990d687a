"""SPEC.md's feature table (R-VOCAB-3), written from the format registry.

The table mirrors the registry, so a new format file would otherwise need a hand-made
row in SPEC.md as well; `scrubcheck regenerate --only spec-table` writes it instead,
and tests/test_spec_matches_code.py reads the table back against the vocabulary.
Everything else in SPEC.md is prose and stays hand-written.
"""

from __future__ import annotations

from collections.abc import Iterable
from urllib.parse import urlparse

from scrubcheck.formats import Format, registered_formats

HEADER = "| feature | open | closes | markers | format source |"
#: the cells of a format whose delimiters section 2a describes (a channel grammar)
SECTION = "section 2a"


class SpecTableError(ValueError):
    """SPEC.md has no feature table where the writer expects one."""


def _code(text: str) -> str:
    return f"`{text.replace('|', chr(92) + '|')}`"


def _source(url: str) -> str:
    """A source as the table links it: the file's name, or the whole address of a page."""
    path = urlparse(url).path.rstrip("/")
    name = path.rsplit("/", 1)[-1] if "." in path.rsplit("/", 1)[-1] or "/pull/" in path \
        else ""
    return f"[{name or url}]({url})"


def row(fmt: Format) -> str:
    """One format's row: its opens and closes by position (`;` between positions, `or`
    between one position's closes), its markers and answer-wrapper tags, its sources."""
    sources = ", ".join(_source(s.url) for s in fmt.sources)
    if fmt.grammar is not None:
        return f"| `{fmt.name}` | {SECTION} | {SECTION} | {SECTION} | {sources} |"
    opens, closes, markers = [], [], []
    for d in fmt.delimiters:
        if d.kind == "marker":
            markers.append(_code(d.text))
        elif d.kind == "answer-wrapper":
            markers += [_code(d.open), *map(_code, d.closes)]
        else:  # a tool section that ends reasoning says so (R-BLOCK-5)
            opens.append(_code(d.open) + (" (R-BLOCK-5)" if d.ends_reasoning else ""))
            closes.append(" or ".join(map(_code, d.closes)))
    cells = [f"`{fmt.name}`", "; ".join(opens), "; ".join(closes), ", ".join(markers), sources]
    return "|" + "|".join(f" {c} " if c else " " for c in cells) + "|"


def table(formats: Iterable[Format]) -> list[str]:
    """The table's lines: the header, its rule, one row per feature in registry order."""
    rows = [row(f) for f in formats if f.generic == "feature"]
    return [HEADER, "|---|---|---|---|---|", *rows]


def updated(spec_text: str) -> str:
    """SPEC.md with its feature table rewritten from the shipped registry."""
    start = spec_text.find(HEADER)
    if start < 0:
        raise SpecTableError(f"SPEC.md has no line {HEADER!r}")
    lines = spec_text[start:].split("\n")
    end = next((i for i, line in enumerate(lines) if not line.startswith("|")), len(lines))
    fresh = "\n".join(table(registered_formats().values()))
    return spec_text[:start] + fresh + "\n" + "\n".join(lines[end:])
