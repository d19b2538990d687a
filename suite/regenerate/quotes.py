"""The docs pages' generated parts: the tables and counts they quote from the committed reports.

The pages a reader opens before any report (docs/compliance.md, docs/gateways.md) quote
the matrix's headline table, each gateway audit's numbers and the corpus size. Those
quotes are written here, from the committed JSON, and nowhere else: `scrubcheck
regenerate` writes them and the currency tests (tests/test_committed_reports.py)
compare the pages with what this module makes of the reports. Prose around them (what
a gateway does to reasoning, in words) is a person's reading and stays as written;
only the numbers move.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from scrubcheck.matrix.markdown import render_markdown
from scrubcheck.matrix.stored import load_stored_matrix

#: the pages that quote the reports, relative to the checkout
COMPLIANCE_PAGE = "docs/compliance.md"
GATEWAYS_PAGE = "docs/gateways.md"
#: their headings above the quoted tables
HEADLINE_HEADING = "## Real scrubbers compared"
GATEWAY_HEADING = "## Real gateways audited"
#: the matrix page's heading of the table docs/compliance.md quotes
MATRIX_HEADLINE = "## Headline"
#: the first cell of the quoted gateway table's columns that are numbers (3rd onward)
FIRST_NUMBER_COLUMN = 3


class QuoteError(ValueError):
    """A page lacks a part it should quote into (a heading or table was edited away)."""


def table_span(text: str, heading: str) -> tuple[int, int]:
    """The line range [start, end) of the first Markdown table after `heading`."""
    lines = text.splitlines()
    try:
        at = next(i for i, line in enumerate(lines) if line.startswith(heading))
    except StopIteration:
        raise QuoteError(f"no heading {heading!r}") from None
    first = next((i for i in range(at, len(lines)) if lines[i].startswith("| ")), None)
    if first is None:
        raise QuoteError(f"no table under {heading!r}")
    end = next((i for i in range(first, len(lines)) if not lines[i].startswith("|")),
               len(lines))
    return first, end


def table(text: str, heading: str) -> list[str]:
    """The lines of the first Markdown table after `heading`, its header row first."""
    first, end = table_span(text, heading)
    return text.splitlines()[first:end]


def _replace_table(text: str, heading: str, rows: list[str]) -> str:
    first, end = table_span(text, heading)
    lines = text.splitlines()
    return "\n".join([*lines[:first], *rows, *lines[end:]]) + ("\n" if text.endswith("\n")
                                                               else "")


def headline_rows(matrix_json: Path) -> list[str]:
    """The matrix page's headline table, as `scrubcheck matrix` renders it."""
    return table(render_markdown(load_stored_matrix(matrix_json)), MATRIX_HEADLINE)


def gateway_numbers(data: dict[str, Any]) -> list[str]:
    """The number cells the gateway table gives for one audit, from its JSON: per
    client the scenario streams it shows right (inline / native), the scrubbing client's
    LEAK and LOSS, the raw client's LEAK, ERROR, what the gateway did (non-zero actions),
    and the per-request p50 / p99 seconds with the slow count."""
    headline, counts, timing = data["headline"], data["counts"], data["timing"]

    def right(client: str) -> str:
        by_shape = headline[client]["by_shape"]
        text = str(headline[client]["right"])
        if len(by_shape) > 1:
            text += " (" + " / ".join(str(by_shape[s]["right"])
                                      for s in ("inline", "native")) + ")"
        return text

    actions = ", ".join(f"{name} {n}" for name, n in data["actions"].items() if n)
    return [right("scrubbed"), right("raw"), str(counts["scrubbed"]["LEAK"]),
            str(counts["scrubbed"]["LOSS"]), str(counts["raw"]["LEAK"]),
            str(counts["scrubbed"]["ERROR"]), actions,
            f"{timing['p50_s']:.3f} / {timing['p99_s']:.3f} ({timing['slow']} slow)"]


def audit_name(data: dict[str, Any]) -> str:
    """`litellm-proxy:plain` of an audit labelled `litellm-proxy:plain (LiteLLM proxy …)`."""
    return str(data["label"]).split(" ")[0]


def quoted_gateway_rows(text: str) -> dict[str, list[str]]:
    """The gateway page's table: each row's number cells, by gateway:config."""
    rows = table(text, GATEWAY_HEADING)[2:]
    return {row.split("|")[1].strip().split(" ")[0]:
            [c.strip() for c in row.split("|")[FIRST_NUMBER_COLUMN:-1]] for row in rows}


def streams_sentence(audits: list[dict[str, Any]]) -> str:
    """`2,231 scenarios × 2 shapes = 4,462`: the size of the audits the table counts."""
    sizes = {(len({r["id"] for r in a["results"]}), len(a["results"])) for a in audits}
    if len(sizes) != 1:
        raise QuoteError(f"the committed audits judged different corpora: {sorted(sizes)}")
    ((scenarios, streams),) = sizes
    return f"{scenarios:,} scenarios × 2 shapes = {streams:,}"


_STREAMS = re.compile(r"[\d,]+ scenarios × 2 shapes = [\d,]+")
_CORPUS = re.compile(r"on the SPEC [\d.]+ corpus of [\d,]+ scenarios")


def compliance_updated(text: str, matrix_json: Path) -> str:
    """docs/compliance.md's text with its quotes of the committed matrix made current."""
    text = _replace_table(text, HEADLINE_HEADING, headline_rows(matrix_json))
    stored = json.loads(matrix_json.read_text(encoding="utf-8"))
    scenarios = len(next(r for r in stored["rows"] if r["name"] == "reference")["verdicts"])
    spec = stored["settings"].get("spec_version", "")
    return _CORPUS.sub(f"on the SPEC {spec} corpus of {scenarios:,} scenarios", text, count=1)


def gateways_updated(text: str, audit_paths: list[Path]) -> str:
    """docs/gateways.md's text with its quotes of the committed audits made current."""
    audits = [json.loads(p.read_text(encoding="utf-8")) for p in audit_paths]
    first, end = table_span(text, GATEWAY_HEADING)
    lines = text.splitlines()
    numbers = {audit_name(a): gateway_numbers(a) for a in audits}
    for i in range(first + 2, end):
        cells = lines[i].split("|")
        name = cells[1].strip().split(" ")[0]
        if name not in numbers:
            raise QuoteError(f"the gateway table has a row {name!r} with no committed "
                             "audit under reports/gateways/")
        lines[i] = "|".join([*cells[:FIRST_NUMBER_COLUMN],
                             *(f" {c} " for c in numbers.pop(name)), cells[-1]])
    if numbers:
        raise QuoteError(f"no gateway row for the audits of {', '.join(numbers)}: add a row "
                         f"(its first two cells in words) under {GATEWAY_HEADING!r}")
    text = "\n".join(lines) + ("\n" if text.endswith("\n") else "")
    if audits:
        text = _STREAMS.sub(streams_sentence(audits), text, count=1)
    return text
