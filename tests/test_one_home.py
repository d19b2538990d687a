"""One home each: one `Verdict` class and one severity order in the whole code base.

Other judgements (a gateway check's per-scrubber judgement, a mutant's fate, a gateway
client's outcome) have names that say what they are; a second `class Verdict` or a
second `Severity`-like order would let two listings of the same problems disagree.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from scrubcheck.evidence import Evidence, Severity
from scrubcheck.results import Outcome, ScenarioResult

ROOT = Path(__file__).resolve().parent.parent
SOURCES = ("suite", "scrubbers", "benchmarks", "docs")


def _classes(name: str) -> list[str]:
    """Every `class <name>` in the project's Python sources, as path:line."""
    found = []
    for folder in SOURCES:
        for path in sorted((ROOT / folder).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
            found += [f"{path.relative_to(ROOT)}:{node.lineno}" for node in ast.walk(tree)
                      if isinstance(node, ast.ClassDef) and node.name == name]
    return found


@pytest.mark.parametrize("name, home", [("Verdict", "suite/results.py"),
                                        ("Severity", "suite/evidence.py")])
def test_one_class_of_each_name(name: str, home: str) -> None:
    found = _classes(name)
    assert len(found) == 1 and found[0].startswith(home + ":"), found


def test_no_module_spells_a_severity_order_of_its_own() -> None:
    """The orders this test replaced, by the names they had: none may come back."""
    gone = ("def _problem_order", "def _severity(", "def severity(failure",
            "def is_leak(check", "def is_leak(failure", "LEAK_RULES = frozenset")
    offenders = [f"{path.relative_to(ROOT)}: {word}"
                 for path in sorted((ROOT / "suite").rglob("*.py"))
                 for word in gone if word in path.read_text(encoding="utf-8")]
    assert not offenders, offenders


def _result(outcome: Outcome, *failures: Evidence) -> ScenarioResult:
    return ScenarioResult("s", "area", [], "f.yaml", 1, "", outcome, list(failures))


def test_the_order_puts_leaks_first_and_should_after_what_could_not_be_judged() -> None:
    leak = _result(Outcome.ERROR, Evidence("leak", "R-LEAK-1"))  # a leak before a raise
    must = _result(Outcome.FAIL, Evidence("tag", "R-TAG-1"))
    error, timeout = _result(Outcome.ERROR), _result(Outcome.TIMEOUT)
    should = _result(Outcome.FAIL, Evidence("holdback", "R-STREAM-1"))
    ordered = sorted([_result(Outcome.PASS), should, timeout, error, must, leak],
                     key=lambda r: r.severity)
    assert [r.severity for r in ordered] == list(Severity)
    assert ordered[0] is leak and ordered[-2] is should
