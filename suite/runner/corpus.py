"""run_corpus: a whole run of one scrubber over many scenarios, in worker processes.

The parent loads the adapter once (so a bad spec fails fast with exit 2), then
forks workers that load it again from the same spec. The once-per-run
linear-time check (R-ROBUST-2) runs first, alone, so that no other worker
competes with its timing. Results are returned in corpus order whatever the
completion order; every timeout, crash, cap and unsupported scenario is counted.
"""

from __future__ import annotations

import shlex
import sys
import time
import traceback
from datetime import UTC, datetime

from scrubcheck import __version__
from scrubcheck.adapters import Adapter, load_adapter
from scrubcheck.checks import measure_linearity
from scrubcheck.model import Scenario
from scrubcheck.results import Failure, Outcome, RunResult, ScenarioResult
from scrubcheck.runner.pool import Lost, Progress, Task, WorkerPool
from scrubcheck.runner.replay import replay_command
from scrubcheck.runner.scenario import blank_result, run_scenario
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


def run_linear_check(adapter: Adapter) -> ScenarioResult:
    """R-ROBUST-2 for one scrubber, as a result row of its own."""
    started = time.perf_counter()
    result = blank_result(_LINEAR, Outcome.PASS)
    try:
        measurement = measure_linearity(adapter)
    except Exception as exc:
        result.outcome = Outcome.ERROR
        result.reason = "the scrubber raised during the timing run: " + "".join(
            traceback.format_exception_only(type(exc), exc)).strip()
    else:
        result.metrics = measurement.metrics
        result.checks_run = 1
        if measurement.finding is not None:
            f = measurement.finding
            result.failures.append(Failure(
                f.check, f.rule, f.level, "fixed-1/fixed-16", [], f.detail,
                replay=shlex.join(["scrubcheck", "show", LINEAR_ID, "--scrubber", adapter.spec]),
            ))
            result.outcome = Outcome.FAIL
    result.duration_s = round(time.perf_counter() - started, 4)
    return result


def _lost_result(
    scenario: Scenario, lost: Lost, spec: str, settings: RunSettings
) -> ScenarioResult:
    """TIMEOUT or ERROR for a task whose worker was killed or died, naming the stream."""
    outcome = Outcome.TIMEOUT if lost.kind == "timeout" else Outcome.ERROR
    reason = lost.detail
    if lost.label and scenario.id != LINEAR_ID:
        command = replay_command(scenario.id, spec, lost.label, settings.seed,
                                 settings.corpus_paths)
        reason += f" while running {lost.label}; replay: {command}"
    elif lost.label:
        reason += f" while running {lost.label}"
    return blank_result(scenario, outcome, reason)


def run_corpus(
    adapter_spec: str,
    scenarios: list[Scenario],
    settings: RunSettings | None = None,
    progress: bool = False,
    corpus_errors: list[str] | None = None,
    only: str | None = None,
) -> RunResult:
    """Run every scenario (and the linear-time check) against `adapter_spec`.

    `only` runs one chunking per scenario (as `scrubcheck show --chunking`), for a
    question about that chunking alone (the self-test's control runs).
    Raises AdapterError when the spec cannot be loaded.
    """
    settings = settings or RunSettings()
    adapter = load_adapter(adapter_spec)
    started_at = datetime.now(UTC).isoformat(timespec="seconds")
    clock = time.monotonic()
    results: list[ScenarioResult | None] = [None] * len(scenarios)
    checks: list[ScenarioResult] = []

    def make_handler():
        worker_adapter = load_adapter(adapter_spec)

        def handle(task: Task, report: Progress) -> ScenarioResult:
            if task.scenario is None:
                report(LINEAR_ID)
                return run_linear_check(worker_adapter)
            return run_scenario(worker_adapter, task.scenario, settings, only=only,
                                progress=report)

        return handle

    bar = _progress_bar(len(scenarios), progress)

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
            return
        results[task.index] = result
        if bar is not None:
            bar.update(1)
            if result.outcome is not Outcome.PASS:
                bar.set_postfix_str(f"{result.outcome.value.lower()}: {result.scenario_id}"[:40])

    timeout = settings.timeout_s
    with WorkerPool(min(settings.workers, max(1, len(scenarios))), make_handler) as pool:
        if settings.linear_check:
            if bar is not None:
                bar.set_description("linear-time check")
            pool.run([Task(-1, None, settings.linear_timeout_s)], on_result, on_lost)
            if bar is not None:
                bar.set_description("scenarios")
        pool.run([Task(i, s, timeout) for i, s in enumerate(scenarios)], on_result, on_lost)
    if bar is not None:
        bar.close()

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
    )


def _progress_bar(total: int, enabled: bool):
    """A tqdm bar on stderr, only for a terminal (None otherwise)."""
    if not enabled or not sys.stderr.isatty():
        return None
    from tqdm import tqdm

    tqdm.monitor_interval = 0  # no monitor thread: workers are forked
    return tqdm(total=total, unit="scenario", file=sys.stderr, dynamic_ncols=True,
                desc="scenarios")
