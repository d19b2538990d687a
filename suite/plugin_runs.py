"""Isolated runs for the pytest plugin: scenario results computed ahead, in windows.

The plugin must judge a scrubber exactly as `scrubcheck run` does, with the same
isolation: a scrubber that hangs, segfaults or calls `os._exit` costs only its own
test, and pytest goes on to print its summary. So every result comes from
`run_corpus`, the very function behind `run` (forked workers, per-scenario
timeout, a crash or timeout turned into an ERROR or TIMEOUT naming the stream and
the replay command), and whatever isolation the runner gains reaches the plugin
without a second copy of it here.

Why windows. pytest runs one test at a time, and `run_corpus` takes a list of
scenarios and returns when all are judged. When a test asks for a result that is
not stored yet, the scenario and the next few selected ones (`window` of them,
from the items pytest will actually run, so `-k` and deselection are respected)
go to the workers together and every result is stored; the tests that follow
find theirs waiting. A window of a few scenarios per worker keeps all workers
busy, lets pytest print progress every window (not once at the very end, as one
batch of the whole selection would), and bounds what `-x` or Ctrl-C wastes to one
window. Under pytest-xdist each process sees only the items sent to it, so the
window is 1 there (parallelism then comes from xdist itself).

The linear-time check (R-ROBUST-2) always runs in a batch of its own, as in `run`,
so no other worker competes with its timing. The reuse check (R-REUSE-1) is part
of every scenario's run, not scrubber-wide, so it needs no test of its own.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace

from scrubcheck.model import Scenario
from scrubcheck.option_names import COMMAND_LINE, OptionNames
from scrubcheck.results import RunResult, ScenarioResult
from scrubcheck.runner import LINEAR_ID, RunSettings, run_corpus

#: Scenarios sent to the workers together, per worker.
WINDOW_PER_JOB = 4


@dataclass
class IsolatedRuns:
    """Results of one scrubber, keyed by scenario id, filled a window at a time."""

    spec: str
    settings: RunSettings
    window: int
    results: dict[str, ScenarioResult] = field(default_factory=dict)
    linear: ScenarioResult | None = None
    options: OptionNames = COMMAND_LINE  # how the plugin spells the options messages advise
    #: the settings the runs were judged under (the conformance class resolved), for
    #: explaining their failures afterwards
    judged: dict = field(default_factory=dict)

    @classmethod
    def for_jobs(cls, spec: str, settings: RunSettings, *, ahead: bool,
                 options: OptionNames = COMMAND_LINE) -> IsolatedRuns:
        """`ahead`: whether later tests of the session may be judged in the same window."""
        return cls(spec, settings, settings.workers * WINDOW_PER_JOB if ahead else 1,
                   options=options)

    def scenario_result(self, scenario: Scenario, upcoming: Iterable[Scenario]) -> ScenarioResult:
        """The result of `scenario`; when not stored yet, judge it together with the
        next scenarios of `upcoming` (in order) that have no result either."""
        if scenario.id not in self.results:
            batch = [scenario]
            for later in upcoming:
                if len(batch) >= self.window:
                    break
                if later.id not in self.results:
                    batch.append(later)
            self._run(batch)
        return self.results[scenario.id]

    def _run(self, batch: Sequence[Scenario]) -> None:
        run = self._corpus_run(list(batch), linear=False)
        for scenario, result in zip(batch, run.results, strict=True):  # one each, in order
            self.results[scenario.id] = result

    def linear_result(self) -> ScenarioResult:
        """R-ROBUST-2, measured once, alone, under the same timeout as every scenario."""
        if self.linear is None:
            run = self._corpus_run([], linear=True)
            (self.linear,) = [r for r in run.scrubber_checks if r.scenario_id == LINEAR_ID]
        return self.linear

    def _corpus_run(self, scenarios: list[Scenario], *, linear: bool) -> RunResult:
        """`run_corpus` on these scenarios, or on the linear-time check alone.

        The runner answers Ctrl-C by killing its workers and returning what finished;
        the KeyboardInterrupt is raised again here, so that pytest ends the session
        (with its summary) rather than going on to the next window.
        """
        run = run_corpus(self.spec, scenarios, replace(self.settings, linear_check=linear),
                         options=self.options)
        if run.interrupted:
            raise KeyboardInterrupt
        self.judged = run.settings
        return run

    def as_run(self) -> RunResult:
        """The results judged so far as one run (what `explain` reads)."""
        return RunResult(scrubber=self.spec, scrubber_kind="", supported_features=[],
                         accepted_context=[], spec_version="", scrubcheck_version="",
                         started_at="", duration_s=0.0, settings=dict(self.judged),
                         results=list(self.results.values()))
