"""The check registry, the evidence record and the verdict words: each defined once, and
everything that lists checks, leak rules or verdicts derives it from there."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from scrubcheck.checks.names import Check, Scope
from scrubcheck.checks.registry import (
    BY_NAME,
    CHECK_PROPERTIES,
    CHECKS,
    INVARIANT_RULES,
    check_order,
)
from scrubcheck.evidence import LEAK_CHECKS, Evidence, shows_reasoning
from scrubcheck.gateway.verdicts import ClientOutcome
from scrubcheck.hunt.selftest import LEAK
from scrubcheck.hunt.target import _RAISERS
from scrubcheck.hunt.violation import HARNESS_PROPERTIES, PROPERTIES, PropertyFailure
from scrubcheck.matrix.verdicts import VERDICTS
from scrubcheck.results import Outcome, Verdict
from scrubcheck.runner.collect import FailureCollector
from scrubcheck.spec import LEAK_RULES, RULES

SPEC = Path(__file__).resolve().parent.parent / "SPEC.md"


def _section_rules(number: str) -> set[str]:
    text = SPEC.read_text(encoding="utf-8")
    body = text.split(f"\n## {number}. ", 1)[1].split("\n## ", 1)[0]
    return set(re.findall(r"\*\*(R-[A-Z]+-\d+) \(", body))


def test_every_check_has_one_entry_in_the_order_of_the_names():
    assert [entry.name for entry in CHECKS] == list(Check)
    assert [entry.order for entry in CHECKS] == list(range(len(CHECKS)))
    assert check_order("not-a-check") == len(CHECKS)


def test_every_entry_judges_rules_of_the_spec_and_has_its_function():
    for entry in CHECKS:
        assert entry.rules and set(entry.rules + entry.also) <= set(RULES), entry.name
        assert callable(entry.run), entry.name
    assert [e.name for e in CHECKS if e.scope is Scope.SCRUBBER] == [Check.LINEAR]


def test_the_invariant_rules_are_spec_section_8():
    assert _section_rules("8") == INVARIANT_RULES


def test_a_leak_is_a_leak_check_or_a_leak_rule():
    assert LEAK_RULES == ("R-LEAK-1", "R-TRUNC-1") and LEAK == LEAK_RULES
    assert shows_reasoning(Check.TRUNCATION, "R-SKIP-2")  # a cut stream showing undecided text
    assert shows_reasoning("no-leak", "R-LEAK-1") and not shows_reasoning(Check.TAG, "R-TAG-1")
    assert Evidence(Check.TRUNCATION, "R-SKIP-2").leak and not Evidence("tag", "R-TAG-1").leak
    # the bottom layer's leak checks are registry checks, spelled as they are
    assert LEAK_CHECKS == {e.name.value for e in CHECKS if e.leak} == {Check.LEAK, Check.TRUNCATION}


def test_every_hunt_property_is_a_check_or_the_harness_s_own_and_raises_from_its_own_frame():
    assert set(PROPERTIES) == set(CHECK_PROPERTIES) | set(HARNESS_PROPERTIES)
    assert {e.prop for e in CHECKS if e.prop} == set(CHECK_PROPERTIES)
    for prop, raiser in _RAISERS.items():
        assert raiser.__name__ == "_" + prop.replace("-", "_")
        with pytest.raises(PropertyFailure) as raised:
            raiser(PropertyFailure(Evidence(prop, "R-ROBUST-1")))
        assert raised.traceback[-1].name == raiser.__name__


def test_the_evidence_record_is_frozen_and_amended_by_copy():
    record = Evidence(Check.TAG, "R-TAG-1", detail="the tag <think>")
    with pytest.raises(dataclasses.FrozenInstanceError):
        record.detail = "changed"  # type: ignore[misc]
    wider = record.amended(prefix="cut: ", suffix=" [more]", chunking="char")
    assert record.detail == "the tag <think>" and record.chunking == ""
    assert wider.detail == "cut: the tag <think> [more]" and wider.chunking == "char"
    assert record.level == "MUST" and record.signature == ("tag", "R-TAG-1")
    assert "other_output" not in record.report_dict()
    assert Evidence("leak", "R-LEAK-1", deltas=["a", "b"]).deltas == ("a", "b")


def test_the_runner_orders_a_scenario_s_failures_by_the_registry():
    collector = FailureCollector(lambda name: f"replay {name}")
    collector.add("char", 3, Evidence(Check.HOLDBACK, "R-STREAM-1"))
    collector.add("char", 3, Evidence(Check.TAG, "R-TAG-1"))
    collector.add("whole", 1, Evidence(Check.EXCEPTION, "R-ROBUST-1"))
    collector.add("char", 3, Evidence(Check.EXCEPTION, "R-ROBUST-1"))
    failures = collector.failures(lambda name: tuple(name))
    assert [f.check for f in failures] == [Check.EXCEPTION, Check.TAG, Check.HOLDBACK]
    first = failures[0]
    assert first.chunking == "whole" and first.similar == 1 and first.replay == "replay whole"
    assert first.detail.endswith("[same check also fails under: char]")


def test_one_verdict_vocabulary():
    assert {o.value for o in Outcome} <= set(Verdict)
    assert set(VERDICTS) <= set(Verdict)
    shared = {ClientOutcome.LEAK, ClientOutcome.LOSS, ClientOutcome.ERROR}
    assert {v.value for v in shared} <= set(Verdict)
    assert BY_NAME[Check.LEAK].leak and Verdict.CORPUS_ERROR == "CORPUS ERROR"
