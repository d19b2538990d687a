"""The matrix counts failure classes within each row's claim (SPEC section 12): the
headline, the class grid and matrix.json's claim_failure_classes leave out the failing
scenarios beyond the claim, the generic class's classes stay beside them, and a page
re-rendered from matrix.json says the same."""

from __future__ import annotations

import json
from pathlib import Path

from scrubcheck.matrix import Matrix, Row, matrix_dict, write_matrix
from scrubcheck.matrix.markdown import HEADLINE, claim_grid, headline_rows
from scrubcheck.matrix.stored import load_stored_matrix
from scrubcheck.matrix.within_claim import counts, placements
from scrubcheck.results import Failure, Outcome, RunResult, ScenarioResult

ROOT = Path(__file__).resolve().parent.parent
#: real corpus scenarios: within the think class, and holding <thought> (beyond it)
WITHIN, BEYOND = "blocks-two-blocks-answer-between", "blocks-empty-mid-answer"


def _failing(sid: str, check: str, rule: str) -> ScenarioResult:
    failure = Failure(check, rule, "MUST", "whole", ["<think>x</think>"], "detail",
                      replay=f"scrubcheck show {sid} --scrubber peer:ai6-stream")
    return ScenarioResult(sid, "blocks", [rule], "corpora/blocks.yaml", 1, "", Outcome.FAIL,
                          failures=[failure])


CLASSES = HEADLINE.index("distinct failure classes")
BUGS = HEADLINE.index("bugs within claim")


def _matrix() -> Matrix:
    run = RunResult("peer:ai6-stream", "splitter", [], [], "1.4.0", "0.1.0", "now", 1.0,
                    {"seed": 0}, results=[_failing(WITHIN, "leak", "R-LEAK-1"),
                                          _failing(BEYOND, "tag", "R-TAG-1")])
    row = Row("ai6-stream", "AI SDK 6", "streaming splitter", "npm ai@6", "6", "peer:ai6-stream",
              "ran", run=run)
    matrix = Matrix([row], "quick", "quick", "now", 1.0, {"seed": 0})
    matrix.index_scenarios()
    return matrix


def test_the_scenarios_are_placed_as_the_test_needs() -> None:
    placed = placements("think", (WITHIN, BEYOND))
    assert placed == {WITHIN: None, BEYOND: "BEYOND CLAIM"}


def test_classes_within_the_claim_leave_out_what_is_beyond_it(tmp_path: Path) -> None:
    matrix = _matrix()
    (row,) = matrix.rows
    assert [c.rules for c in row.failure_classes() or []] == ["R-LEAK-1", "R-TAG-1"]
    assert [c.example for c in row.classes_within("think") or []] == [WITHIN]
    headline = headline_rows(matrix)[0]
    assert headline[3] == "think" and headline[CLASSES] == "1"
    assert headline[BUGS] == "n/a"  # not explained: this row's run is made up
    grid = claim_grid(matrix)
    assert "| **ai6-stream** | **0/1/0 (1 class)** |" in grid, grid
    data = matrix_dict(matrix)["rows"][0]
    assert data["claim"] == "think"
    assert [c["example"] for c in data["claim_failure_classes"]] == [WITHIN]
    assert data["class_failure_counts"]["think"] == 1
    assert {WITHIN, BEYOND} <= set(data["examples"])
    # re-rendered from matrix.json: the same counts, the same page
    write_matrix(matrix, tmp_path / "first")
    stored = load_stored_matrix(tmp_path / "first" / "matrix.json")
    assert matrix_dict(stored)["rows"][0]["claim_failure_classes"] == \
        data["claim_failure_classes"]
    assert headline_rows(stored)[0][CLASSES] == "1"
    assert claim_grid(stored) == grid


def test_the_committed_matrix_counts_classes_within_each_claim() -> None:
    """Every row of reports/matrix.json keeps its classes within its claim, no more
    scenarios than its within-claim failures, and the headline number is their count."""
    data = json.loads((ROOT / "reports" / "matrix.json").read_text(encoding="utf-8"))
    narrower = 0
    for row in data["rows"]:
        if row["status"] != "ran":
            continue
        within = row["claim_failure_classes"]
        assert within is not None, row["name"]
        failing = counts(row["claim"], row["verdicts"])
        assert sum(c["scenarios"] for c in within) == sum(
            failing[v] for v in ("LEAK", "FAIL", "SHOULD", "ERROR")), row["name"]
        assert row["class_failure_counts"][row["claim"]] == len(within)
        narrower += len(within) < len(row["failure_classes"])
    assert narrower >= 5  # rows whose other-format failures no longer count against them
