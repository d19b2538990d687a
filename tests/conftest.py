"""What many test files share: the shipped corpus, loaded once, and the hand-built run
the report writers are tested on (report_sample.py).

pytest puts this folder on sys.path (it has no __init__.py), so the helper modules
beside this file (bounded.py, report_sample.py) import by their names.
"""

from __future__ import annotations

import signal

import pytest
import report_sample
from hypothesis import settings

from scrubcheck.corpus import Corpus, load_corpus
from scrubcheck.results import RunResult

# A shell starts a background job (`pytest &`, `nohup ... &` in a script) with Ctrl-C
# ignored, and an ignored signal stays ignored across exec: every child the Ctrl-C tests
# start would then ignore SIGINT too, and Python would not turn it into
# KeyboardInterrupt. Those tests are about scrubcheck's answer to Ctrl-C, not about how
# the suite was launched, so the session catches SIGINT as Python does by default
# (a caught signal is reset to the default in an exec'd child).
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


# The suite's property tests draw the same examples on every run (a seed taken from each
# test), so CI judges the code, not the luck of one draw: a run that fails fails again.
# Searching for new counterexamples is `scrubcheck hunt` and `scrubcheck fuzz`, or this
# suite with `--hypothesis-profile explore` (a new draw each run).
settings.register_profile("suite", derandomize=True)
settings.register_profile("explore", derandomize=False)
settings.load_profile("suite")


@pytest.fixture(scope="session")
def corpus() -> Corpus:
    """The shipped corpus, loaded once for the whole session (a few seconds each time
    otherwise). Scenarios are frozen; a test that wants another list builds its own."""
    loaded = load_corpus()
    assert loaded.scenarios, "the shipped corpus is empty"
    assert not loaded.errors, [str(e) for e in loaded.errors[:5]]
    return loaded


@pytest.fixture
def sample_run() -> RunResult:
    """A fresh copy of the sample run: every outcome, several areas, hostile text."""
    return report_sample.sample_run()
