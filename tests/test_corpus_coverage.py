"""Coverage: every SPEC rule is exercised by enough scenarios, and SPEC.md and spec.py agree."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from scrubcheck.cli import main
from scrubcheck.corpus import load_corpus
from scrubcheck.corpus.coverage import MIN_SCENARIOS, feature_counts, rule_coverage
from scrubcheck.spec import RULES, spec_path

BAD = Path(__file__).parent / "data" / "bad_corpora"
SPEC_HEADING = re.compile(r"^\*\*(R-[A-Z]+-[0-9]+) \((MUST|SHOULD)\)\*\*", re.MULTILINE)


def test_spec_md_and_spec_py_define_the_same_rules_and_levels() -> None:
    path = spec_path()
    assert path is not None, "SPEC.md not found next to the package"
    documented = dict(SPEC_HEADING.findall(path.read_text(encoding="utf-8")))
    assert documented == {rule_id: rule.level for rule_id, rule in RULES.items()}


def test_spec_md_lists_rules_in_spec_py_order() -> None:
    path = spec_path()
    assert path is not None
    assert [m[0] for m in SPEC_HEADING.findall(path.read_text(encoding="utf-8"))] == list(RULES)


def test_every_rule_has_enough_scenarios_in_the_shipped_corpus() -> None:
    """A real requirement on the corpus: a rule with few scenarios is barely tested."""
    thin = [f"{c.rule.id}: {c.count}" for c in rule_coverage(load_corpus().scenarios)
            if c.count < MIN_SCENARIOS]
    assert thin == []


def test_rule_coverage_counts_each_scenario_once_per_rule() -> None:
    corpus = load_corpus([BAD / "mixed" / "good.yaml"])
    table = {c.rule.id: c for c in rule_coverage(corpus.scenarios)}
    assert list(table) == list(RULES)
    assert table["R-BLOCK-1"].count == 1 and table["R-BLOCK-1"].areas == {"good": 1}
    assert table["R-BLOCK-1"].hand_written == 1
    assert table["R-CODE-1"].count == 0 and not table["R-CODE-1"].enough
    assert feature_counts(corpus.scenarios)["bracket"] == 0


def test_coverage_command_writes_markdown_and_flags_thin_rules(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "reports" / "coverage.md"
    assert main(["coverage", str(BAD / "mixed" / "good.yaml"), "--out", str(out)]) == 1
    report = out.read_text(encoding="utf-8")
    assert report.startswith("# Corpus coverage")
    assert re.search(r"\| R-BLOCK-1 +\| MUST +\| an open tag starts a block", report)
    assert f"fewer than {MIN_SCENARIOS} scenarios" in report
    assert "| good " in report and "| bracket " in report
    assert "R-CODE-1 (MUST) has 0 scenarios" in capsys.readouterr().err


def test_coverage_command_passes_when_every_rule_is_covered(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "all.yaml"
    items = [
        f'- {{id: s-{i}, rules: [{", ".join(RULES)}], description: d, deltas: ["x"], '
        f'visible: "x", reasoning: []}}'
        for i in range(MIN_SCENARIOS)
    ]
    path.write_text("\n".join(items) + "\n", encoding="utf-8")
    assert main(["coverage", str(path)]) == 0
    assert "Every rule has at least" in capsys.readouterr().out


def test_coverage_missing_path_is_a_usage_error() -> None:
    assert main(["coverage", "does-not-exist.yaml"]) == 2


def test_coverage_with_corpus_errors_prints_them_and_exits_2(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """The report still counts what loaded, but a corpus error is never a mere note."""
    monkeypatch.chdir(BAD)
    assert main(["coverage", "mixed"]) == 2
    captured = capsys.readouterr()
    assert "1 scenarios (1 hand-written, 0 generated) from 2 files; 1 corpus errors" in captured.out
    assert "mixed/broken.yaml:3: YAML syntax error" in captured.err


def test_coverage_of_an_empty_folder_is_a_usage_error(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["coverage", str(tmp_path)]) == 2
    assert "no corpus files" in capsys.readouterr().err
