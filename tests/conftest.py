"""What many test files share: the shipped corpus, loaded once, and the hand-built run
the report writers are tested on (report_sample.py).

pytest puts this folder on sys.path (it has no __init__.py), so the helper modules
beside this file (bounded.py, report_sample.py) import by their names.
"""

from __future__ import annotations

import pytest
import report_sample

from scrubcheck.corpus import Corpus, load_corpus
from scrubcheck.results import RunResult


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
