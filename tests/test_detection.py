"""The self-test: each bundled broken scrubber is caught by the hunt and the fuzzer.

Fast versions of benchmarks/detection.py (which measures all of it, with times,
into reports/detection.md): a seeded hunt that stops at the bug's rule, and
fuzz runs for a few of them. That each bug is the one its scrubber carries (a
control scenario it passes, a target scenario it fails) is tested in
test_selftest_controls.py, with the corpus runner. The quadratic re-scan is
caught by the linear-time ratio, which hunt takes about 30 s to measure on a
quadratic scrubber: only the benchmark runs that.
"""

from __future__ import annotations

import pytest

from scrubcheck.hunt import FuzzSettings, HuntSettings, fuzz, hunt
from scrubcheck.hunt.fuzzing import atheris_problem
from scrubcheck.hunt.selftest import SELF_TEST
from scrubcheck.scrubbers.broken import BROKEN

BY_NAME = {case.name: case for case in SELF_TEST}


def test_the_self_test_covers_the_twelve_field_bugs():
    assert len(SELF_TEST) == 12
    assert sum(case.leak for case in SELF_TEST) == 8


@pytest.mark.parametrize("name", sorted(n for n, c in BY_NAME.items()
                                        if n != "quadratic_rescan"))
def test_a_seeded_hunt_catches_each_bug(name):
    case = BY_NAME[name]
    wanted = set(case.rules)
    result = hunt(BROKEN[name], HuntSettings(seconds=30, seed=1, database="memory", linear=False,
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
    result = fuzz(BROKEN[name], FuzzSettings(seconds=30, seed=1, work_dir=tmp_path, linear=False,
                                             stop=lambda f: f.rule in wanted))
    assert any(f.rule in wanted for f in result.findings), (result.findings, result.errors)
