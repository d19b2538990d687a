"""Distinct failure classes: one bug repeated across a generated family is one class,
with its shortest example; the count reaches the headline, matrix.json and a re-render."""

from __future__ import annotations

import json

from scrubcheck.cli import main
from scrubcheck.matrix import Matrix, Row, write_matrix
from scrubcheck.matrix.classes import failure_classes
from scrubcheck.matrix.markdown import HEADLINE, render_markdown
from scrubcheck.results import Failure, Outcome, RunResult, ScenarioResult

GENERATED = "corpora/generated.yaml"


def _failure(rule: str, chars: int, sid: str, check: str = "leak") -> Failure:
    return Failure(check, rule, "MUST", "split@1", ["x" * chars], "detail",
                   replay=f"scrubcheck show {sid} --scrubber demo --chunking split@1 --seed 0")


def _result(sid: str, outcome: Outcome, *failures: Failure, area: str = "generated",
            file: str = GENERATED, line: int = 27) -> ScenarioResult:
    return ScenarioResult(sid, area, ["R-LEAK-1"], file, line, "", outcome,
                          failures=list(failures))


def _run() -> RunResult:
    family = [_result(f"gen-split-think-open-{i}", Outcome.FAIL,
                      _failure("R-LEAK-1", 100 + i, f"gen-split-think-open-{i}"))
              for i in range(1, 301)]
    family[137] = _result("gen-split-think-open-138", Outcome.FAIL,
                          _failure("R-LEAK-1", 12, "gen-split-think-open-138"))
    results = [
        *family,
        # the same recipe, another bug: another class
        _result("gen-split-think-close-1", Outcome.FAIL,
                _failure("R-FID-1", 30, "gen-split-think-close-1", "expected")),
        # another recipe (another line), the same rule: another class
        _result("gen-case-a", Outcome.FAIL, _failure("R-LEAK-1", 5, "gen-case-a"), line=46),
        _result("gen-case-b", Outcome.FAIL, _failure("R-LEAK-1", 9, "gen-case-b"), line=46),
        # hand-written scenarios of one area failing the same rules: one class
        _result("blocks-one", Outcome.FAIL, _failure("R-LEAK-1", 40, "blocks-one"),
                area="blocks", file="corpora/blocks.yaml", line=5),
        _result("blocks-two", Outcome.FAIL, _failure("R-LEAK-1", 20, "blocks-two"),
                area="blocks", file="corpora/blocks.yaml", line=20),
        # a lost task (no failure recorded) and passes: a class of its own, and nothing
        _result("blocks-hang", Outcome.TIMEOUT, area="blocks", file="corpora/blocks.yaml",
                line=40),
        _result("blocks-fine", Outcome.PASS, area="blocks", file="corpora/blocks.yaml",
                line=60),
        _result("gen-split-think-open-999", Outcome.UNSUPPORTED),
    ]
    return RunResult("demo", "stream", [], [], "1.2.0", "0.1.0", "now", 1.0, {"seed": 0},
                     results=results)


def test_one_bug_across_a_family_is_one_class_with_its_shortest_example():
    classes = failure_classes(_run())
    assert len(classes) == 5
    biggest = classes[0]
    assert (biggest.verdict, biggest.rules, biggest.area, biggest.family, biggest.scenarios) \
        == ("LEAK", "R-LEAK-1", "generated", "gen-split-think", 300)
    assert (biggest.example, biggest.size) == ("gen-split-think-open-138", 12)
    assert biggest.command.startswith("scrubcheck show gen-split-think-open-138 ")
    by_key = {(c.verdict, c.rules, c.area, c.family): c for c in classes}
    assert by_key[("FAIL", "R-FID-1", "generated", "gen-split-think")].scenarios == 1
    assert by_key[("LEAK", "R-LEAK-1", "generated", "gen-case")].example == "gen-case-a"
    written = by_key[("LEAK", "R-LEAK-1", "blocks", "")]
    assert (written.scenarios, written.example) == (2, "blocks-two")
    lost = by_key[("ERROR", "", "blocks", "")]
    assert (lost.scenarios, lost.size) == (1, 0)


#: the headline cell of the failure classes (after the name's, which split() keeps whole)
CLASSES = HEADLINE.index("distinct failure classes")


def _matrix() -> Matrix:
    rows = [Row("demo", "Demo", "streaming scrubber", "demo==1", "1", "demo", "ran",
                run=_run())]
    matrix = Matrix(rows, "full", "full", "now", 1.0, {"seed": 0})
    matrix.index_scenarios()
    return matrix


def test_the_headline_and_matrix_json_count_classes_and_a_rerender_keeps_them(tmp_path,
                                                                             capsys):
    matrix = _matrix()
    page = render_markdown(matrix)
    assert "| distinct failure classes |" in page
    headline = next(line for line in page.splitlines() if line.startswith("| **demo**"))
    assert headline.split(" | ")[CLASSES] == "5"  # 301 leaks, 5 classes
    assert "## Distinct failure classes" in page and "`gen-split-think`" in page
    write_matrix(matrix, tmp_path / "first")
    stored = json.loads((tmp_path / "first" / "matrix.json").read_text(encoding="utf-8"))
    kept = stored["rows"][0]["failure_classes"]
    assert len(kept) == 5 and kept[0]["example"] == "gen-split-think-open-138"
    assert main(["matrix", "--render-from", str(tmp_path / "first" / "matrix.json"),
                 "--out", str(tmp_path / "again")]) == 0
    capsys.readouterr()
    again = (tmp_path / "again" / "matrix.md").read_text(encoding="utf-8")
    assert next(line for line in again.splitlines()
                if line.startswith("| **demo**")).split(" | ")[CLASSES] == "5"
    html = (tmp_path / "again" / "matrix.html").read_text(encoding="utf-8")
    assert "Distinct failure classes" in html and "gen-split-think-open-138" in html


def test_a_stored_matrix_without_classes_says_so(tmp_path, capsys):
    write_matrix(_matrix(), tmp_path / "first")
    path = tmp_path / "first" / "matrix.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    del data["rows"][0]["failure_classes"]  # a matrix.json made before classes were counted
    path.write_text(json.dumps(data), encoding="utf-8")
    assert main(["matrix", "--render-from", str(path), "--out", str(tmp_path / "again")]) == 0
    capsys.readouterr()
    page = (tmp_path / "again" / "matrix.md").read_text(encoding="utf-8")
    assert next(line for line in page.splitlines()
                if line.startswith("| **demo**")).split(" | ")[CLASSES] == "n/a"
    assert "Not kept in the stored matrix" in page
