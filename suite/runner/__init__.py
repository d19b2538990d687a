"""The runner: every check of the suite, one scenario or a whole corpus.

    from scrubcheck.runner import RunSettings, run_corpus, run_scenario
    run = run_corpus("reference", corpus.scenarios, RunSettings(jobs=2))
"""

from scrubcheck.runner.corpus import LINEAR_ID, run_corpus, run_linear_check
from scrubcheck.runner.judge import run_scenario
from scrubcheck.runner.preflight import load_scrubber
from scrubcheck.runner.replay import replay_command
from scrubcheck.runner.settings import RunSettings

__all__ = [
    "LINEAR_ID",
    "RunSettings",
    "load_scrubber",
    "replay_command",
    "run_corpus",
    "run_linear_check",
    "run_scenario",
]
