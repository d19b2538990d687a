"""The reports committed under reports/ are what the current code and corpus produce.

They are read as evidence (the README quotes them, `scrubcheck diff` compares against
them), so a report left behind by a change to the corpus, the SPEC or a writer would
mislead. Each test names what is stale and the command that regenerates it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from scrubcheck.cli import main
from scrubcheck.corpus import Corpus
from scrubcheck.corpus.fingerprint import corpus_digest
from scrubcheck.matrix.markdown import render_markdown as render_matrix
from scrubcheck.matrix.stored import load_stored_matrix
from scrubcheck.regenerate.quotes import (
    COMPLIANCE_PAGE,
    GATEWAY_HEADING,
    GATEWAYS_PAGE,
    HEADLINE_HEADING,
    gateway_numbers,
    table,
)
from scrubcheck.reports import read_report, write_reports
from scrubcheck.runner.harness import formats_digest, harness_digest, implementation_digest
from scrubcheck.spec import SPEC_VERSION

ROOT = Path(__file__).resolve().parent.parent
REPORTS = ROOT / "reports"
REFERENCE = REPORTS / "reference"
#: how to make each current again
REGENERATE_REFERENCE = "scrubcheck regenerate --only reference"
REGENERATE = "scrubcheck regenerate --only {}"


def test_coverage_is_what_the_current_corpus_gives(tmp_path: Path) -> None:
    fresh = tmp_path / "coverage.md"
    main(["coverage", "--out", str(fresh)])  # exit 1 would only mean a thin rule
    assert fresh.read_text(encoding="utf-8") == (REPORTS / "coverage.md").read_text(
        encoding="utf-8"), "reports/coverage.md is stale: " + REGENERATE.format("coverage")


def test_the_reference_report_ran_on_the_current_corpus_and_spec(corpus: Corpus) -> None:
    data = json.loads((REFERENCE / "report.json").read_text(encoding="utf-8"))
    settings = data["settings"]
    ran = (data["spec_version"], settings["corpus_digest"], settings["selection"]["scenarios"])
    now = (SPEC_VERSION, corpus_digest(corpus.scenarios), len(corpus.scenarios))
    assert ran == now, (f"reports/reference was run on (SPEC, corpus digest, scenarios) {ran}, "
                        f"the checkout has {now}: {REGENERATE_REFERENCE}")
    assert sum(data["counts"].values()) == len(corpus.scenarios)


def test_the_reference_report_is_this_checkout_s_run_and_passes_everything() -> None:
    """The reference's run over the whole corpus takes minutes, so CI reads its committed
    report instead (the run itself is `pytest -m slow`): it must have been judged by this
    checkout's harness and format registry, be of this checkout's reference, and have
    passed every scenario and the linear-time check."""
    data = json.loads((REFERENCE / "report.json").read_text(encoding="utf-8"))
    settings = data["settings"]
    made = {"harness": settings.get("cache", {}).get("harness"),
            "format registry": settings.get("cache", {}).get("formats"),
            "reference code": settings.get("implementation_digest")}
    now = {"harness": harness_digest(), "format registry": formats_digest(),
           "reference code": implementation_digest("reference")}
    assert made == now, f"reports/reference was judged by {made}, the checkout is {now}: " \
                        + REGENERATE_REFERENCE
    assert set(data["counts"]) == {"PASS"}, data["counts"]
    assert [c["outcome"] for c in data["scrubber_checks"]] == ["PASS"]


def test_the_reference_report_files_are_what_the_writers_make_of_its_json(
        tmp_path: Path) -> None:
    """report.md, junit.xml, report.html and badge.json are written from one run; written
    again from the committed report.json they must come out byte for byte the same."""
    written = write_reports(read_report(REFERENCE / "report.json"), tmp_path)
    stale = [p.name for p in written
             if p.read_bytes() != (REFERENCE / p.name).read_bytes()]
    assert stale == [], f"reports/reference/{stale} differ from the writers' output: " \
                        f"{REGENERATE_REFERENCE}"


GATEWAY_AUDITS = sorted((REPORTS / "gateways").glob("*.json"))


def test_the_gateway_audits_are_there() -> None:
    assert len(GATEWAY_AUDITS) == 4, [p.name for p in GATEWAY_AUDITS]


@pytest.mark.parametrize("path", GATEWAY_AUDITS, ids=[p.stem for p in GATEWAY_AUDITS])
def test_a_gateway_audit_ran_on_the_current_corpus_and_spec(path: Path, corpus: Corpus) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    audited = {r["id"] for r in data["results"]}
    now = {s.id for s in corpus.scenarios}
    assert data["spec_version"] == SPEC_VERSION, f"{path.name}: SPEC {data['spec_version']}"
    assert not data["interrupted"] and not data["not_run"], f"{path.name}: an interrupted audit"
    assert audited == now, (f"{path.name} audited {len(audited)} scenarios, the corpus has "
                            f"{len(now)} ({len(now - audited)} not audited, "
                            f"{len(audited - now)} no longer in the corpus): "
                            + REGENERATE.format("gateways"))


def test_the_gateway_page_table_is_the_committed_audits() -> None:
    """docs/gateways.md's table under 'Real gateways audited' gives, for every committed
    audit, what each client sees, what the gateway did and the timing, as its JSON says,
    and the scenario count above it is the audits' (a regenerated audit without the page
    updated fails)."""
    page = (ROOT / GATEWAYS_PAGE).read_text(encoding="utf-8")
    rows = _table(page, GATEWAY_HEADING)[2:]
    quoted = {row.split("|")[1].strip().split(" ")[0]: [c.strip() for c in row.split("|")[3:-1]]
              for row in rows}
    audits = {path: json.loads(path.read_text(encoding="utf-8")) for path in GATEWAY_AUDITS}
    names = {path: data["label"].split(" ")[0] for path, data in audits.items()}
    assert sorted(quoted) == sorted(names.values())
    totals = set()
    for path, data in audits.items():
        name = names[path]
        assert quoted[name] == gateway_numbers(data), (
            f"{GATEWAYS_PAGE} row of {name} vs {path.name}: " + REGENERATE.format("quotes"))
        totals.add((len({r["id"] for r in data["results"]}), len(data["results"])))
    (scenarios, streams), = totals
    assert f"{scenarios:,} scenarios × 2 shapes = {streams:,}" in page, REGENERATE.format(
        "quotes")


def _table(text: str, heading: str) -> list[str]:
    return table(text, heading)


def test_the_matrix_ran_on_the_current_corpus(corpus: Corpus) -> None:
    """matrix.json keeps no corpus digest or SPEC version, so the scenario ids its
    reference row judged stand for the corpus it ran on."""
    data = json.loads((REPORTS / "matrix.json").read_text(encoding="utf-8"))
    (reference,) = [row for row in data["rows"] if row["name"] == "reference"]
    ran, now = set(reference["verdicts"]), {s.id for s in corpus.scenarios}
    assert ran == now, (f"reports/matrix.json is stale: its reference row judged {len(ran)} "
                        f"scenarios, the corpus has {len(now)} ({len(now - ran)} not in the "
                        f"matrix, {len(ran - now)} no longer in the corpus): "
                        + REGENERATE.format("matrix"))


def test_the_compliance_page_headline_table_is_the_matrix_headline() -> None:
    """docs/compliance.md quotes the headline of reports/matrix.json as `scrubcheck
    matrix` renders it (`scrubcheck matrix --render-from reports/matrix.json` re-renders)."""
    rendered = render_matrix(load_stored_matrix(REPORTS / "matrix.json"))
    page = (ROOT / COMPLIANCE_PAGE).read_text(encoding="utf-8")
    headline = _table(rendered, "## Headline")
    quoted = _table(page, HEADLINE_HEADING)
    assert quoted == headline, f"{COMPLIANCE_PAGE}'s table under {HEADLINE_HEADING!r} is " \
                               "not the headline table of reports/matrix.json"


def test_the_table_reader_finds_the_page_and_matrix_tables() -> None:
    """The two tables compared above exist and have a row per implementation, so the
    comparison cannot pass or fail on an empty read."""
    page = (ROOT / COMPLIANCE_PAGE).read_text(encoding="utf-8")
    quoted = _table(page, HEADLINE_HEADING)
    assert quoted[0].startswith("| implementation |") and len(quoted) > 3
    rendered = _table(render_matrix(load_stored_matrix(REPORTS / "matrix.json")), "## Headline")
    assert re.match(r"\| \*\*reference\*\* \|", rendered[2])
