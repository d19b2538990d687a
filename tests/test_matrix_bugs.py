"""The matrix names each row's bugs within its claim: a column, a section per row, a
headline sentence, kept in matrix.json and on the site, the same when re-rendered."""

from __future__ import annotations

import json
from pathlib import Path

from scrubcheck.corpus import load_corpus
from scrubcheck.matrix import run_matrix, write_matrix
from scrubcheck.matrix.bugs import Explaining, bugs_sentence
from scrubcheck.matrix.markdown import HEADLINE, headline_rows
from scrubcheck.matrix.stored import load_stored_matrix
from scrubcheck.runner import RunSettings
from scrubcheck.scrubbers.broken import BROKEN

BUGS = HEADLINE.index("bugs within claim")


def test_each_row_s_failures_are_named_as_its_bugs(tmp_path: Path) -> None:
    scenarios = [s for s in load_corpus(None).scenarios
                 if s.id.startswith(("blocks-", "vocab-case-"))]
    settings = RunSettings(jobs=2, linear_check=False, random_count=1)
    said: list[str] = []
    matrix = run_matrix([], set(), scenarios, settings, tmp_path, quick=True, say=said.append,
                        scrubbers=[("tail", BROKEN["flush_leaks_tail"]),
                                   ("case", BROKEN["case_sensitive"])],
                        explaining=Explaining(jobs=2, cache=False))
    reference, tail, case = matrix.rows
    assert reference.bug_count() == 0
    assert tail.bug_count() == 1 and case.bug_count() == 1, (tail.bugs, case.bugs)
    assert (tail.claim_bugs() or {})["root_causes"][0]["name"] == \
        "the reasoning of an unclosed block is shown"
    assert [row[BUGS] for row in headline_rows(matrix)] == ["0", "1", "1"]
    assert bugs_sentence(matrix) == \
        "2 bugs within their claims over 2 implementations (2 with at least one)"
    assert any("tail: 1 bug within generic explain" in line for line in said)
    md, html, js = write_matrix(matrix, tmp_path)
    page = md.read_text(encoding="utf-8")
    assert "**2 bugs within their claims over 2 implementations" in page
    assert "#### 1. LEAK: the reasoning of an unclosed block is shown" in page
    assert "smallest stream: `\"<think>x\"`" in page
    assert "Bugs: 1 bug explains" in html.read_text(encoding="utf-8")
    data = json.loads(js.read_text(encoding="utf-8"))
    assert data["rows"][1]["claim_bugs"]["bugs"] == 1
    # re-rendered from matrix.json: the same bugs, the same page
    stored = load_stored_matrix(js)
    assert [row.bug_count() for row in stored.rows] == [0, 1, 1]
    write_matrix(stored, tmp_path / "again")
    again = (tmp_path / "again" / "matrix.md").read_text(encoding="utf-8")
    section = page[page.index("## Bugs within each claim"):page.index("## Behaviour")]
    assert section in again


def test_a_matrix_that_was_not_explained_says_so(tmp_path: Path) -> None:
    scenarios = [s for s in load_corpus(None).scenarios if s.id.startswith("vocab-case-")]
    settings = RunSettings(jobs=1, linear_check=False, random_count=1)
    matrix = run_matrix([], set(), scenarios, settings, tmp_path, quick=True, say=lambda _: None,
                        scrubbers=[("case", BROKEN["case_sensitive"])])
    assert [row[BUGS] for row in headline_rows(matrix)] == ["n/a", "n/a"]
    assert bugs_sentence(matrix) == ""
    md, _, _ = write_matrix(matrix, tmp_path)
    assert "Not explained in this run." in md.read_text(encoding="utf-8")
