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
from datetime import UTC, datetime

from scrubcheck import __version__
from scrubcheck.adapters import Adapter, load_adapter
from scrubcheck.checks import measure_linearity
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
                                 settings.corpus_paths)
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
    results: list[ScenarioResult | None] = [None] * len(scenarios)
    checks: list[ScenarioResult] = []

    def make_handler():
        worker_adapter = load_adapter(adapter_spec)

        def handle(task: Task, report: Progress) -> ScenarioResult:
            if task.scenario is None:
                report(LINEAR_ID)
                return run_linear_check(worker_adapter, budget_s=task.timeout_s,
                                        options=options)
            return run_scenario(worker_adapter, task.scenario, settings, only=only,
                                progress=report)

        return handle

    shown = RunProgress(len(scenarios), settings.timeout_s) if progress else None

    def on_result(task: Task, result: ScenarioResult | str) -> None:
        scenario = task.scenario or _LINEAR
        if isinstance(result, str):  # a harness traceback from the worker
            failed = blank_result(scenario, Outcome.ERROR,
                                  "harness error: " + result.strip().splitlines()[-1])
            failed.notes.append(result)
            result = failed
        store(task, result)

    def on_lost(task: Task, lost: Lost) -> None:
        store(task, _lost_result(task.scenario or _LINEAR, lost, adapter_spec, settings))

    def store(task: Task, result: ScenarioResult) -> None:
        if task.scenario is None:
            checks.append(result)
        else:
            results[task.index] = result
        if shown is not None:
            shown.done(result, linear=task.scenario is None)

    tick = shown.tick if shown is not None else None
    timeout = settings.timeout_s
    interrupted = False
    try:
        with WorkerPool(min(settings.workers, max(1, len(scenarios))), make_handler,
                        memory_limit=settings.memory_limit, options=options) as pool:
            if settings.runs_linear_check:
                if shown is not None:
                    shown.linear_started()
                pool.run([Task(-1, None, timeout)], on_result, on_lost, on_tick=tick)
            if shown is not None:
                shown.scenarios_started()
            pool.run([Task(i, s, timeout) for i, s in enumerate(scenarios)], on_result,
                     on_lost, on_tick=tick)
    except KeyboardInterrupt:  # Ctrl-C: the pool has killed its workers; keep what finished
        interrupted = True
    finally:
        if shown is not None:
            shown.close(interrupted)
        _close(adapter)
    if interrupted:
        not_run = "not run: the run was interrupted (Ctrl-C)"
        results = [r or blank_result(s, Outcome.SKIPPED, not_run)
                   for r, s in zip(results, scenarios, strict=True)]
        if settings.runs_linear_check and not checks:
            checks.append(blank_result(_LINEAR, Outcome.SKIPPED, not_run))

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
        results=[r for r in results if r is not None],
        corpus_errors=list(corpus_errors or []),
        scrubber_checks=checks,
        interrupted=interrupted,
    )


def _close(adapter: Adapter) -> None:
    """Stop what the parent's adapter holds (a peer process idle for the whole run) and
    start its next run afresh: load_adapter caches one adapter per spec, so a second run
    of the same peer in this process would otherwise inherit its circuit breaker's counts."""
    close = getattr(adapter, "close", None)
    if callable(close):
        close()
