"""The self-test: each bundled broken scrubber is caught by the corpus, the hunt and the fuzzer.

Fast versions of benchmarks/detection.py (which measures all of it, with times,
into reports/detection.md): one witness scenario of the corpus per bug, a
seeded hunt that stops at the bug's rule, and fuzz runs for a few of them. The
quadratic re-scan is caught by the linear-time ratio, which takes about 30 s to
measure on a quadratic scrubber: only the benchmark runs it.
"""

from __future__ import annotations

import pytest

from scrubcheck.adapters import load_adapter
from scrubcheck.corpus import load_corpus
from scrubcheck.hunt import FuzzSettings, HuntSettings, fuzz, hunt
from scrubcheck.hunt.fuzzing import atheris_problem
from scrubcheck.hunt.selftest import SELF_TEST
from scrubcheck.runner import RunSettings, run_scenario

BY_NAME = {case.name: case for case in SELF_TEST}

#: broken scrubber -> a shipped scenario that shows its bug (found by the benchmark)
WITNESS = {
    "stateless": "blocks-two-blocks-answer-between",
    "short_holdback": "blocks-nesting-different-names",
    "case_sensitive": "gen-case-think-upper-open",
    "flush_last_line": "blocks-literal-close-in-reasoning-quoted",
    "flush_leaks_tail": "blocks-two-blocks-answer-between",
    "prefill_ignored": "blocks-after-prefill-second-block",
    "any_backtick_guard": "code-unequal-runs-no-guard",
    "splice_blind": "blocks-splice-forms-open",
    "buffers_all": "blocks-two-blocks-answer-between",
    "raises": "unicode-lone-surrogate-in-answer",
    "drops_blank_deltas": "blocks-two-blocks-answer-between",
}


@pytest.fixture(scope="module")
def scenarios():
    return load_corpus().by_id()


def test_the_self_test_covers_the_twelve_field_bugs():
    assert len(SELF_TEST) == 12
    assert sum(case.leak for case in SELF_TEST) == 8
    assert set(WITNESS) == set(BY_NAME) - {"quadratic_rescan"}


@pytest.mark.parametrize("name", sorted(WITNESS))
def test_the_corpus_catches_each_bug_and_the_reference_passes_its_witness(name, scenarios):
    case = BY_NAME[name]
    scenario = scenarios[WITNESS[name]]
    settings = RunSettings(random_count=1, linear_check=False)
    broken = run_scenario(load_adapter(case.spec), scenario, settings)
    assert {f.rule for f in broken.failures} & set(case.rules), broken.failures
    reference = run_scenario(load_adapter("reference"), scenario, settings)
    assert reference.failures == []


@pytest.mark.parametrize("name", sorted(n for n, c in BY_NAME.items()
                                        if n != "quadratic_rescan"))
def test_a_seeded_hunt_catches_each_bug(name):
    case = BY_NAME[name]
    wanted = set(case.rules)
    result = hunt(case.spec, HuntSettings(seconds=30, seed=1, database="memory", linear=False,
                                          shrink=False, stop=lambda f: f.rule in wanted))
    caught = [f for f in result.findings if f.rule in wanted]
    assert caught, [f.rule for f in result.findings]
    assert caught[0].elapsed < 30


@pytest.mark.fuzz
@pytest.mark.skipif(atheris_problem() is not None, reason=f"needs atheris: {atheris_problem()}")
@pytest.mark.parametrize("name", ["splice_blind", "any_backtick_guard"])
def test_a_seeded_fuzz_run_catches_leak_bugs(name, tmp_path):
    case = BY_NAME[name]
    wanted = set(case.rules)
    result = fuzz(case.spec, FuzzSettings(seconds=30, seed=1, work_dir=tmp_path, linear=False,
                                          stop=lambda f: f.rule in wanted))
    assert any(f.rule in wanted for f in result.findings), (result.findings, result.errors)
