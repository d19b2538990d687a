"""Explaining a whole run: every failing scenario shrunk in an isolated worker.

A scrubber that failed a scenario may well hang, crash or eat memory on a smaller
stream made from it, so the shrinking runs where the run itself ran: in the pool of
forked workers that survives what it runs (`runner.pool`), one task per failing
scenario, each bounded in wall-clock time. A task that is lost (the worker hung or
died) leaves its scenario unexplained, with the reason; it is counted and shown, never
dropped.

What it costs is bounded twice: `seconds` per scenario (the shrinker keeps the smallest
stream it has when time runs out, and says so) and `budget` for the whole run (the
scenarios not reached are counted as not explained, with that reason).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from scrubcheck.adapters import load_adapter
from scrubcheck.claims import place
from scrubcheck.explain.causes import RootCause, group
from scrubcheck.explain.failure import Explained, by_message, explain_scenario
from scrubcheck.explain.store import Store, entry_key
from scrubcheck.explain.transport import same_after_transport
from scrubcheck.model import Scenario
from scrubcheck.results import Outcome, RunResult
from scrubcheck.runner import RunSettings
from scrubcheck.runner.pool import Lost, Task, WorkerPool

#: outcomes whose scenarios have bugs to name
FAILING = (Outcome.FAIL, Outcome.ERROR, Outcome.TIMEOUT)


@dataclass
class Explanation:
    """A run's failures as root causes, with what could not be explained and why."""

    causes: list[RootCause]
    failing: int  # failing scenarios (FAIL, ERROR, TIMEOUT)
    unexplained: dict[str, str] = field(default_factory=dict)  # scenario id -> why
    seconds: float = 0.0
    tries: int = 0  # candidate streams run in all
    reused: int = 0  # scenarios whose explanation came from the cache

    @property
    def explained(self) -> int:
        return len({s for c in self.causes for s in c.scenarios})

    @property
    def bugs(self) -> int:
        return len(self.causes)

    def to_dict(self) -> dict[str, Any]:
        return {
            "bugs": self.bugs,
            "failing_scenarios": self.failing,
            "explained_scenarios": self.explained,
            "unexplained": dict(sorted(self.unexplained.items())),
            "seconds": round(self.seconds, 2),
            "tries": self.tries,
            "reused": self.reused,
            "root_causes": [cause.to_dict() for cause in self.causes],
        }


def judged_scenarios(run: RunResult, scenarios: dict[str, Scenario]) -> dict[str, Scenario]:
    """The run's failing scenarios as the run judged them (placed in its class)."""
    judged_class = run.settings.get("conformance_class") or "generic"
    found = {}
    for result in run.results:
        scenario = scenarios.get(result.scenario_id)
        if result.outcome in FAILING and scenario is not None:
            placed = place(scenario, judged_class).scenario
            if placed is not None:
                found[result.scenario_id] = placed
    return found


def settings_of(run: RunResult) -> RunSettings:
    data = run.settings
    return RunSettings(seed=int(data.get("seed", 0)),
                       corpus_paths=tuple(data.get("corpus_paths") or ()),
                       conformance_class=data.get("conformance_class"))


def explain_run(run: RunResult, scenarios: dict[str, Scenario], *, jobs: int = 1,
                seconds: float = 5.0, budget: float = 600.0, timeout: float = 30.0,
                on_done: Callable[[int, int], None] | None = None,
                cache: bool = True) -> Explanation:
    """Every failing scenario of `run` explained against the scrubber that ran it
    (`run.scrubber`), in `jobs` workers; with `cache`, what an earlier explanation of
    the same scenario, failures, implementation and harness found is reused (`store`).
    `timeout`: wall-clock seconds a worker may spend on one scenario before it is killed
    (a scrubber that hangs on a smaller stream); `seconds` of them go to shrinking."""
    started = time.monotonic()
    judged = judged_scenarios(run, scenarios)
    failing = [r for r in run.results if r.outcome in FAILING]
    unexplained = {r.scenario_id: "its scenario is not in the corpus given"
                   for r in failing if r.scenario_id not in judged}
    by_id = {r.scenario_id: r for r in failing if r.scenario_id in judged}
    settings = settings_of(run)
    explained: list[Explained] = []
    store = Store(run.scrubber, settings.seed, settings.conformance_class, seconds) if cache \
        else None
    keys = {sid: entry_key(judged[sid], by_id[sid], settings.conformance_class)
            for sid in by_id}
    reused = 0
    for sid in list(by_id):  # errors and hangs: grouped by their message, here and now
        grouped = by_message(judged[sid], by_id[sid])
        if grouped is not None:
            explained.extend(grouped)
            del by_id[sid]
    for sid in list(by_id):
        found = store.get(keys[sid]) if store is not None else None
        if found is not None:
            explained.extend(found)
            reused += 1
            del by_id[sid]
    tasks = [Task(i, judged[sid], timeout) for i, sid in enumerate(by_id)]
    deadline = started + budget

    def make_handler() -> Callable[[Task, Callable[[str], None]], list[Explained]]:
        adapter = load_adapter(run.scrubber)

        def handle(task: Task, note: Callable[[str], None]) -> list[Explained]:
            assert task.scenario is not None
            if time.monotonic() > deadline:
                raise _OverBudget(task.scenario.id)
            note(task.scenario.id)
            return explain_scenario(adapter, task.scenario, by_id[task.scenario.id],
                                    settings, seconds)

        return handle

    done = [0]

    def on_result(task: Task, payload: list[Explained] | str) -> None:
        assert task.scenario is not None
        done[0] += 1
        if isinstance(payload, str):
            over = "_OverBudget" in payload
            unexplained[task.scenario.id] = (
                f"the explanation's budget of {budget:g} s was spent before it" if over
                else "the harness failed while shrinking it: " + payload.strip().splitlines()[-1])
        elif not payload:
            unexplained[task.scenario.id] = "none of its failures is of a check that shrinks"
        else:
            explained.extend(payload)
            if store is not None:
                store.put(keys[task.scenario.id], payload)
        if on_done is not None:
            on_done(done[0], len(tasks))

    def on_lost(task: Task, lost: Lost) -> None:
        assert task.scenario is not None
        done[0] += 1
        unexplained[task.scenario.id] = (f"the scrubber {lost.kind} while its streams were "
                                         f"shrunk ({lost.detail})")

    if tasks:
        with WorkerPool(min(jobs, len(tasks)), make_handler) as pool:
            pool.run(tasks, on_result, on_lost)
    if store is not None:
        store.save()
    if run.scrubber.startswith("peer:"):
        explained = _not_the_transport(explained, unexplained)
    causes, left = group(explained)
    for item in left:
        if item.scenario_id not in {s for c in causes for s in c.scenarios}:
            unexplained[item.scenario_id] = (
                f"its {item.check} failure did not shrink within {seconds:g} s (stopped at "
                f"{item.size:,} characters)")
    return Explanation(causes, len(failing), unexplained, time.monotonic() - started,
                       sum(e.tries for e in explained), reused)


#: why a peer's failure that only the JSON transport makes is not called its bug
TRANSPORT = ("its smallest stream's output differs from the expected one only as JSON "
             "changes text (two halves of a surrogate pair side by side arrive as the one "
             "character they encode): the protocol's doing, not the implementation's")


def _not_the_transport(explained: list[Explained], unexplained: dict[str, str]
                       ) -> list[Explained]:
    """`explained` without the failures a peer's JSON protocol makes (`transport`): a
    loss of answer text that JSON takes away (a leak, a held-back or a reused-session
    failure may keep its output equal and is the implementation's); a scenario with no
    other failure is listed as not explained, saying why."""
    kept = [e for e in explained if not (e.signature.did.kind == "loss"
                                         and same_after_transport(e.expected, e.got))]
    left = {e.scenario_id for e in kept}
    for item in explained:
        if item.scenario_id not in left:
            unexplained.setdefault(item.scenario_id, TRANSPORT)
    return kept


class _OverBudget(Exception):
    """The run's explanation budget was spent before this scenario was reached."""

