"""Each bundled broken scrubber carries its own bug: it passes its control, fails its target.

A broken scrubber that fails everything is "caught" by every check and proves
nothing about the check meant for its bug (case_sensitive once left even a
lower-case `<think>` in place). So every one of them names, in
scrubcheck.hunt.selftest, a control scenario it must pass and a target
scenario it must fail with its bug's rule, and these tests run both through the
real runner (worker process, timeout), one scenario at a time.
"""

from __future__ import annotations

from dataclasses import fields

import pytest

from scrubcheck.chunking import chunking_by_name
from scrubcheck.hunt.selftest import ALL_CASES, probe, verdict_text
from scrubcheck.results import Outcome
from scrubcheck.runner import LINEAR_ID
from scrubcheck.scrubbers.broken import BROKEN
from scrubcheck.scrubbers.broken.case_sensitive import _exact
from scrubcheck.scrubbers.reference.tables import MatchTable, tables_for
from scrubcheck.vocabulary import build_vocabulary

BY_NAME = {case.name: case for case in ALL_CASES}
HANG_TIMEOUT_S = 3.0  # the hanging scrubber's target is killed after this


@pytest.fixture(scope="module")
def scenarios(corpus):
    return corpus.by_id()


def test_every_broken_scrubber_has_one_case_with_a_control_and_a_target():
    names = [case.name for case in ALL_CASES]
    assert len(names) == len(set(names)), "a broken scrubber listed twice"
    assert set(names) == set(BROKEN), (
        f"without a control and a target: {sorted(set(BROKEN) - set(names))}; "
        f"not in BROKEN: {sorted(set(names) - set(BROKEN))}")
    for case in ALL_CASES:
        assert case.control.expect == "PASS", case.name
        assert case.target.expect != "PASS", case.name
        # the target's verdict is one that counts as catching the bug
        assert case.target.expect in case.rules, case.name


def test_every_probe_names_a_scenario_and_chunking_that_exist(scenarios):
    for case in ALL_CASES:
        for check in (case.control, case.target):
            if check.scenario == LINEAR_ID:
                assert check.chunking is None
                continue
            assert check.scenario in scenarios, f"{case.name}: no scenario {check.scenario}"
            if check.chunking:
                scenario = scenarios[check.scenario]
                chunking_by_name(scenario, build_vocabulary(scenario.context.features),
                                 check.chunking, 1)


@pytest.mark.parametrize("name", sorted(BY_NAME))
def test_the_broken_scrubber_passes_its_control(name, scenarios):
    case = BY_NAME[name]
    result = probe(BROKEN[case.name], case.control, scenarios)
    assert result.outcome is Outcome.PASS, (
        f"{name} fails its control {case.control.label}: {verdict_text(result)} "
        f"{result.reason or ''} {[f.detail for f in result.failures][:3]}")


@pytest.mark.parametrize("name", sorted(BY_NAME))
def test_the_broken_scrubber_fails_its_target_with_its_rule(name, scenarios):
    case = BY_NAME[name]
    result = probe(BROKEN[case.name], case.target, scenarios, timeout_s=HANG_TIMEOUT_S)
    assert case.target.met_by(result), (
        f"{name} on its target {case.target.label}: {verdict_text(result)}, "
        f"expected {case.target.expect}")


@pytest.mark.parametrize("name", sorted(BY_NAME))
def test_the_reference_passes_the_control_and_the_target(name, scenarios):
    """The scenarios are right: SPEC's own scrubber passes them (its linear-time check is
    tested with the runner)."""
    case = BY_NAME[name]
    for check in (case.control, case.target):
        if check.scenario == LINEAR_ID:
            continue
        result = probe("reference", check, scenarios)
        assert result.outcome is Outcome.PASS, (check.label, verdict_text(result))


def test_each_control_exercises_scrubbing(scenarios):
    """A control that a scrubber doing nothing would pass says nothing about what the
    broken one still does right: passthrough must fail every control but its own."""
    passthrough = BY_NAME["passthrough"]
    for case in ALL_CASES:
        if case is passthrough:
            continue
        result = probe(BROKEN[passthrough.name], case.control, scenarios)
        assert result.outcome is not Outcome.PASS, (case.name, case.control.label)


def test_case_sensitive_table_keeps_every_field_of_the_reference_table():
    """The regression behind this file: a positional copy of MatchTable shifted the
    spelled-out tags into a field added later, so no tag matched at all."""
    reference = tables_for(frozenset()).outside
    exact = _exact(reference)
    for f in fields(MatchTable):
        if f.name not in ("special_chars", "whole"):  # fast paths, off on purpose
            assert getattr(exact, f.name) == getattr(reference, f.name), f.name
    assert "<think>" in exact.spelled and "</think>" in exact.spelled
    assert exact.classify("<think>") is not None
    assert exact.classify("<THINK>") is None

