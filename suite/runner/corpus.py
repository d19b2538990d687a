"""run_corpus: a whole run of one scrubber over many scenarios, in worker processes.

The parent loads the adapter once (so a bad spec fails fast with exit 2; only
after a child process survived loading it, see `preflight`), then forks workers
that load it again from the same spec. The once-per-run
linear-time check (R-ROBUST-2) runs first, alone, so that no other worker
competes with its timing. Results are returned in corpus order whatever the
completion order; every timeout, crash, cap and unsupported scenario is counted.
"""

from __future__ import annotations

import shlex
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime

from scrubcheck import __version__
from scrubcheck.adapters import Adapter, load_adapter
from scrubcheck.checks import measure_linearity
from scrubcheck.claims import Placement, claimed_class, place
from scrubcheck.model import Scenario
from scrubcheck.option_names import COMMAND_LINE, OptionNames
from scrubcheck.results import Outcome, RunResult, ScenarioResult
from scrubcheck.runner.judge import blank_result, run_scenario
from scrubcheck.runner.pool import Lost, Progress, Task, WorkerPool
from scrubcheck.runner.preflight import load_scrubber
from scrubcheck.runner.progress import RunProgress
from scrubcheck.runner.replay import replay_command
from scrubcheck.runner.settings import RunSettings
from scrubcheck.spec import SPEC_VERSION

LINEAR_ID = "linear-time"
_LINEAR = Scenario(
    id=LINEAR_ID,
    area="scrubber",
    rules=("R-ROBUST-2",),
    description="Time is linear in the stream length: n and 8n characters in 1- and 16-character "
    "deltas, measured once per run (a ratio, not a wall-clock limit).",
    deltas=(),
    reasoning=(),
    file="<harness>",
)


def run_linear_check(
    adapter: Adapter, *, budget_s: float | None = None, options: OptionNames = COMMAND_LINE
) -> ScenarioResult:
    """R-ROBUST-2 for one scrubber, as a result row of its own.

    `budget_s`: the wall-clock seconds the check may take (the run's --timeout). The
    measurement plans to end a little before it, so that it reports for itself rather
    than being killed; when no verdict fits, the check is a TIMEOUT saying so (and
    which of the caller's `options` to change).
    """
    started = time.perf_counter()
    result = blank_result(_LINEAR, Outcome.PASS)
    margin = 0.0 if budget_s is None else min(1.0, 0.1 * budget_s)
    try:
        measurement = measure_linearity(adapter, budget_s=budget_s, reserve_s=margin,
                                        options=options)
    except Exception as exc:
        result.outcome = Outcome.ERROR
        result.reason = "the scrubber raised during the timing run: " + "".join(
            traceback.format_exception_only(type(exc), exc)).strip()
    else:
        result.metrics = measurement.metrics
        result.checks_run = 1
        if measurement.finding is not None:
            result.failures.append(measurement.finding.amended(
                chunking="fixed-1/fixed-16", replay=_linear_replay(adapter.spec)))
            result.outcome = Outcome.FAIL
        elif measurement.unmeasured is not None:
            result.checks_run = 0
            result.outcome = Outcome.TIMEOUT
            result.reason = f"R-ROBUST-2 {measurement.unmeasured}"
    result.duration_s = round(time.perf_counter() - started, 4)
    return result


def _linear_replay(spec: str) -> str:
    return shlex.join(["scrubcheck", "show", LINEAR_ID, "--scrubber", spec])


def _lost_result(
    scenario: Scenario, lost: Lost, spec: str, settings: RunSettings
) -> ScenarioResult:
    """TIMEOUT or ERROR for a task whose worker was killed or died, naming the stream."""
    outcome = Outcome.TIMEOUT if lost.kind == "timeout" else Outcome.ERROR
    reason = lost.detail
    if lost.label and lost.label != scenario.id:
        reason += f" while running {lost.label}"
    if lost.kind == "timeout":
        reason += "; the worker was killed and replaced"
    if scenario.id == LINEAR_ID:
        reason += f"; replay: {_linear_replay(spec)}"
    elif lost.label:
        command = replay_command(scenario.id, spec, lost.label, settings.seed,
                                 settings.corpus_paths, scenario.context.conformance_class)
        reason += f"; replay: {command}"
    result = blank_result(scenario, outcome, reason)
    result.captured_output = lost.output
    if lost.cpu_s is not None:
        result.metrics["cpu_seconds"] = round(lost.cpu_s, 2)
    return result


def run_corpus(
    adapter_spec: str,
    scenarios: list[Scenario],
    settings: RunSettings | None = None,
    progress: bool = False,
    corpus_errors: list[str] | None = None,
    only: str | None = None,
    options: OptionNames = COMMAND_LINE,
) -> RunResult:
    """Run every scenario (and the linear-time check) against `adapter_spec`.

    `only` runs one chunking per scenario (as `scrubcheck show --chunking`), for a
    question about that chunking alone (the self-test's control runs). `options`:
    how the caller spells the options its messages advise (the pytest plugin's differ).
    Raises AdapterError when the spec cannot be loaded (or loading it hangs or crashes).
    """
    settings = settings or RunSettings()
    adapter = load_scrubber(adapter_spec, timeout_s=settings.timeout_s,
                            memory_limit=settings.memory_limit, options=options)
    started_at = datetime.now(UTC).isoformat(timespec="seconds")
    clock = time.monotonic()
    judged_class = claimed_class(adapter.claims, settings.conformance_class)
    settings = replace(settings, conformance_class=judged_class)
    placements = [place(s, judged_class) for s in scenarios]
    judged = [p.scenario for p in placements if p.scenario is not None]
    shown = RunProgress(len(judged), settings.timeout_s) if progress else None
    collected = _Collector(judged, adapter_spec, settings, shown)
    try:
        _run_pool(collected, _HandlerFactory(adapter_spec, settings, only, options), options)
    except KeyboardInterrupt:  # Ctrl-C: the pool has killed its workers; keep what finished
        collected.interrupt()
    finally:
        if shown is not None:
            shown.close(collected.interrupted)
        _close(adapter)
    return RunResult(
        scrubber=adapter_spec,
        scrubber_kind=adapter.kind,
        supported_features=sorted(adapter.supported_features),
        accepted_context=sorted(adapter.accepted_context),
        spec_version=SPEC_VERSION,
        scrubcheck_version=__version__,
        started_at=started_at,
        duration_s=round(time.monotonic() - clock, 3),
        settings=settings.to_dict(),
        results=_in_corpus_order(scenarios, placements, collected.scenario_results(),
                                 judged_class),
        corpus_errors=list(corpus_errors or []),
        scrubber_checks=collected.checks,
        interrupted=collected.interrupted,
    )


def _in_corpus_order(scenarios: list[Scenario], placements: list[Placement],
                     judged: list[ScenarioResult], conformance_class: str) -> list[ScenarioResult]:
    """The judged results with a BEYOND CLAIM row for every scenario outside the class
    (SPEC section 12: shown and counted, never a pass), in corpus order."""
    results = iter(judged)
    rows = []
    for scenario, placement in zip(scenarios, placements, strict=True):
        if placement.scenario is None:
            rows.append(blank_result(scenario, Outcome.BEYOND_CLAIM,
                                     f"beyond the claim {conformance_class}: {placement.beyond}"))
            continue
        row = next(results, None)
        if row is None:  # an interrupted run keeps only what it judged
            break
        if placement.reread:
            row.notes.append(f"expected output read by the SPEC model in class "
                             f"{conformance_class}, whose vocabulary differs here from the "
                             "generic one; reasoning strings still hidden there are kept")
        rows.append(row)
    return rows


@dataclass
class _HandlerFactory:
    """Builds, in each worker process, the function that runs one task there: the worker
    loads the adapter again from its spec (adapters hold processes and files, which are
    not shared across a fork)."""

    adapter_spec: str
    settings: RunSettings
    only: str | None
    options: OptionNames

    def __call__(self) -> Callable[[Task, Progress], ScenarioResult]:
        worker_adapter = load_adapter(self.adapter_spec)

        def handle(task: Task, report: Progress) -> ScenarioResult:
            if task.scenario is None:
                report(LINEAR_ID)
                return run_linear_check(worker_adapter, budget_s=task.timeout_s,
                                        options=self.options)
            return run_scenario(worker_adapter, task.scenario, self.settings, only=self.only,
                                progress=report)

        return handle


@dataclass
class _Collector:
    """Where the pool's answers land: each scenario's result at its corpus index (so the
    run is in corpus order whatever the completion order), the per-scrubber checks apart,
    and the progress display told of each."""

    scenarios: list[Scenario]
    adapter_spec: str
    settings: RunSettings
    shown: RunProgress | None
    results: list[ScenarioResult | None] = field(init=False)
    checks: list[ScenarioResult] = field(default_factory=list)
    interrupted: bool = False

    def __post_init__(self) -> None:
        self.results = [None] * len(self.scenarios)

    def on_result(self, task: Task, result: ScenarioResult | str) -> None:
        if isinstance(result, str):  # a harness traceback from the worker
            failed = blank_result(task.scenario or _LINEAR, Outcome.ERROR,
                                  "harness error: " + result.strip().splitlines()[-1])
            failed.notes.append(result)
            result = failed
        self._store(task, result)

    def on_lost(self, task: Task, lost: Lost) -> None:
        self._store(task, _lost_result(task.scenario or _LINEAR, lost, self.adapter_spec,
                                       self.settings))

    def _store(self, task: Task, result: ScenarioResult) -> None:
        if task.scenario is None:
            self.checks.append(result)
        else:
            self.results[task.index] = result
        if self.shown is not None:
            self.shown.done(result, linear=task.scenario is None)

    def interrupt(self) -> None:
        """Ctrl-C ended the run: what did not finish is SKIPPED (counted and shown, never
        dropped), and so is the linear check if it never ran."""
        self.interrupted = True
        not_run = "not run: the run was interrupted (Ctrl-C)"
        if self.settings.runs_linear_check and not self.checks:
            self.checks.append(blank_result(_LINEAR, Outcome.SKIPPED, not_run))
        self.results = [r or blank_result(s, Outcome.SKIPPED, not_run)
                        for r, s in zip(self.results, self.scenarios, strict=True)]

    def scenario_results(self) -> list[ScenarioResult]:
        """Every scenario's result, in corpus order."""
        return [r for r in self.results if r is not None]


def _run_pool(collected: _Collector, make_handler: _HandlerFactory,
              options: OptionNames) -> None:
    """The linear-time check first and alone (so nothing competes with its timing), then
    every scenario, on as many workers as the settings allow."""
    settings, shown = collected.settings, collected.shown
    tick = shown.tick if shown is not None else None
    timeout = settings.timeout_s
    workers = min(settings.workers, max(1, len(collected.scenarios)))
    with WorkerPool(workers, make_handler, memory_limit=settings.memory_limit,
                    options=options) as pool:
        if settings.runs_linear_check:
            if shown is not None:
                shown.linear_started()
            pool.run([Task(-1, None, timeout)], collected.on_result, collected.on_lost,
                     on_tick=tick)
        if shown is not None:
            shown.scenarios_started()
        pool.run([Task(i, s, timeout) for i, s in enumerate(collected.scenarios)],
                 collected.on_result, collected.on_lost, on_tick=tick)


def _close(adapter: Adapter) -> None:
    """Stop what the parent's adapter holds (a peer process idle for the whole run) and
    start its next run afresh: load_adapter caches one adapter per spec, so a second run
    of the same peer in this process would otherwise inherit its circuit breaker's counts."""
    close = getattr(adapter, "close", None)
    if callable(close):
        close()
