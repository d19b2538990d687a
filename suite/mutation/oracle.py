"""The oracle: the corpus run, asked whether a mutant of the reference breaks any scenario.

It is the run `scrubcheck run` makes (`run_corpus`: the same chunkings, checks, worker
pool and per-scenario timeouts, judged by `RunResult.exit_code`), with three changes
that make one mutant cost seconds instead of minutes and leave the verdict alone:

- **A copy is mutated, never the checkout.** The mutant is written into a fresh package
  (`scrubcheck_mutant_N`) in a temporary folder and run by that name, so the harness's
  own yardstick (`runner.oracle`, the unmutated reference that supplies the R-WS-1 cut
  positions and the hold-back lag) and other users of the shared source tree never see
  it. This is why cosmic-ray's own `exec`, which rewrites the file in place and runs a
  test command, is not used.
- **It stops at the first failing batch.** Scenarios run in batches that double in
  size (4, 8, 16, ...): a mutant is killed as soon as one scenario fails, and only a
  survivor pays for the whole corpus. Scenarios that killed earlier mutants go first
  (they tend to kill the next one too); the long streams go last. The order changes the
  time, never the verdict: a survivor has passed every scenario.
- **Each batch's timeout follows the reference's own time.** A baseline run of the
  unmutated copy (which must pass: otherwise every mutant would look killed) measures
  each scenario; a batch times out after `timeout_factor` times its slowest scenario
  (at least `min_timeout_s`). A mutant that hangs is killed by that timeout and labelled
  so. The whole judgement runs in a forked process with a deadline of its own, so a
  mutant that hangs while loading cannot stop the session.
"""

from __future__ import annotations

import math
import multiprocessing
import os
import random
import sys
import time
import traceback
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path

from scrubcheck.adapters import AdapterError
from scrubcheck.model import Scenario
from scrubcheck.mutation.mutants import package_copy
from scrubcheck.results import Outcome, RunResult, ScenarioResult
from scrubcheck.runner.corpus import run_corpus
from scrubcheck.runner.settings import RunSettings

#: a scenario longer than this runs in the last batches (the long-stream family)
LONG_TEXT = 20_000
FIRST_BATCH = 4
KILLED, SURVIVED = "killed", "survived"


@dataclass(frozen=True)
class MutantFate:
    """What the corpus run said about one mutant: killed or survived (a fate, not one of
    the run's verdict words, `results.Verdict`)."""

    status: str  # KILLED or SURVIVED
    how: str | None = None  # leak | fail | error | timeout | load (when killed)
    scenario: str | None = None  # the first scenario that failed
    detail: str = ""
    scenarios_run: int = 0
    seconds: float = 0.0

    @property
    def killed(self) -> bool:
        return self.status == KILLED


class OracleError(Exception):
    """The oracle itself could not judge (the unmutated reference fails, a harness bug)."""


@dataclass
class Oracle:
    scenarios: list[Scenario]
    settings: RunSettings  # chunkings, seed, level, jobs; the timeout is set per batch
    min_timeout_s: float = 10.0
    timeout_factor: float = 10.0
    baseline_s: dict[str, float] = field(default_factory=dict)  # scenario id -> seconds
    kills: Counter = field(default_factory=Counter)  # scenario id -> mutants it killed

    # -- order and batches ------------------------------------------------------------
    def order(self) -> list[Scenario]:
        """Killers first, then the rest in a seeded mix of areas, long streams last."""
        base = list(self.scenarios)
        random.Random(f"mutation-order-{self.settings.seed}").shuffle(base)
        rank = {s.id: i for i, s in enumerate(base)}
        return sorted(base, key=lambda s: (-self.kills[s.id], len(s.text) > LONG_TEXT,
                                           rank[s.id]))

    def batches(self) -> list[list[Scenario]]:
        ordered, out, size, i = self.order(), [], FIRST_BATCH, 0
        while i < len(ordered):
            out.append(ordered[i : i + size])
            i += size
            size *= 2
        return out

    def timeout_for(self, batch: list[Scenario]) -> float:
        """Seconds per scenario in this batch: the run's own timeout until the baseline
        has measured the reference, then `timeout_factor` times the batch's slowest."""
        if not self.baseline_s:
            return self.settings.timeout_s
        slowest = max((self.baseline_s.get(s.id, 0.0) for s in batch), default=0.0)
        return max(self.min_timeout_s, self.timeout_factor * slowest)

    def deadline_for(self, batch: list[Scenario]) -> float:
        """Wall seconds the forked judge may spend on a batch before it is killed: every
        scenario timing out, one wave of workers after another, plus loading."""
        waves = math.ceil(len(batch) / self.settings.workers)
        return self.timeout_for(batch) * (waves + 1) + self.min_timeout_s

    # -- judging ----------------------------------------------------------------------
    def baseline(self, package: Path, attr: str, workdir: Path) -> MutantFate:
        """Run the unmutated copy once (every batch, the run's timeout): it must survive.
        Records each scenario's time for the batch timeouts."""
        self.baseline_s.clear()
        verdict = self.judge(package, {}, attr, workdir, name="scrubcheck_mutant_baseline",
                             record_times=True)
        if verdict.killed:
            raise OracleError(f"the unmutated reference fails the oracle ({verdict.how} on "
                              f"{verdict.scenario}: {verdict.detail}); no mutant can be judged")
        return verdict

    def judge(self, package: Path, changed: dict[str, str], attr: str, workdir: Path, *,
              name: str, record_times: bool = False) -> MutantFate:
        """Build the package with `changed` files (name -> code) as module `name` in
        `workdir` and run the corpus against `name:attr` in a forked process."""
        with package_copy(package, changed, workdir / name):
            return self._judge_forked(f"{name}:{attr}", workdir, record_times)

    def _judge_forked(self, spec: str, workdir: Path, record_times: bool) -> MutantFate:
        context = multiprocessing.get_context("fork")
        parent, child = context.Pipe(duplex=False)
        batches = self.batches()
        started = time.monotonic()
        process = context.Process(target=_child_main,
                                  args=(child, spec, str(workdir), batches, self, record_times))
        process.start()
        child.close()
        times: dict[str, float] = {}
        try:
            verdict = self._follow(process, parent, batches, started, times)
        finally:
            if process.is_alive():
                process.kill()
            process.join(timeout=5)
            parent.close()
        self.baseline_s.update(times)
        return verdict

    def _follow(self, process, conn, batches: list[list[Scenario]], started: float,
                times: dict[str, float]) -> MutantFate:
        """Read the judge's messages, enforcing each batch's deadline; scenario times
        (of a baseline run) go into `times`."""
        batch, deadline, run = 0, started + self.deadline_for(batches[0]), 0
        while True:
            if conn.poll(max(0.0, min(1.0, deadline - time.monotonic()))):
                try:
                    kind, payload = conn.recv()
                except EOFError:
                    code = process.exitcode if not process.is_alive() else None
                    raise OracleError(f"the judging process died (exit {code}) in batch "
                                      f"{batch + 1}") from None
                if kind == "batch":
                    batch, run = payload
                    deadline = time.monotonic() + self.deadline_for(batches[batch])
                elif kind == "times":
                    times.update(payload)
                elif kind == "verdict":
                    return replace(payload, seconds=round(time.monotonic() - started, 2))
                elif kind == "error":
                    raise OracleError(f"the harness failed while judging: {payload}")
            elif time.monotonic() >= deadline:
                process.kill()
                ids = [s.id for s in batches[batch]]
                return MutantFate(KILLED, "timeout", ids[0] if len(ids) == 1 else None,
                               f"batch {batch + 1} ({len(ids)} scenarios) did not finish within "
                               f"{self.deadline_for(batches[batch]):.0f} s; the judge was killed",
                               run, round(time.monotonic() - started, 2))

    def note_kill(self, verdict: MutantFate) -> None:
        if verdict.killed and verdict.scenario:
            self.kills[verdict.scenario] += 1


def _child_main(conn, spec: str, workdir: str, batches: list[list[Scenario]], oracle: Oracle,
                record_times: bool) -> None:
    """In the forked judge: run the batches until one fails; send the verdict."""
    try:
        sys.path.insert(0, workdir)
        sys.dont_write_bytecode = True
        conn.send(("verdict", _run_batches(conn, spec, batches, oracle, record_times)))
    except BaseException:
        conn.send(("error", traceback.format_exc()))
    finally:
        conn.close()
        os._exit(0)  # skip the parent's atexit handlers and buffered output in this fork


def _run_batches(conn, spec: str, batches: list[list[Scenario]], oracle: Oracle,
                 record_times: bool) -> MutantFate:
    run = 0
    for number, batch in enumerate(batches):
        conn.send(("batch", (number, run)))
        settings = replace(oracle.settings, timeout_s=oracle.timeout_for(batch),
                           linear_check=False)
        try:
            result = run_corpus(spec, batch, settings)
        except AdapterError as exc:
            return MutantFate(KILLED, "load", None, f"the mutant does not load: {exc}", run)
        run += len(result.results)
        if record_times:
            conn.send(("times", {r.scenario_id: r.duration_s for r in result.results}))
        if result.exit_code(settings.level) != 0:
            return _killed_by(result, settings.level, run)
    return MutantFate(SURVIVED, scenarios_run=run)


def _killed_by(result: RunResult, level: str, run: int) -> MutantFate:
    failing = [r for r in result.results if r.fails_at(level)]
    if not failing:  # exit code 2 (corpus errors) or 130: not a verdict on the mutant
        raise OracleError(f"the run ended with exit {result.exit_code(level)} and no failing "
                          "scenario")
    first = min(failing, key=lambda r: r.severity)
    return MutantFate(KILLED, _how(first), first.scenario_id, _detail(first), run)


def _how(result: ScenarioResult) -> str:
    if result.outcome is Outcome.TIMEOUT:
        return "timeout"
    if result.outcome is Outcome.ERROR:
        return "error"
    return "leak" if any(f.leak for f in result.failures) else "fail"


def _detail(result: ScenarioResult) -> str:
    if result.failures:
        f = min(result.failures, key=lambda f: f.severity)
        return f"{f.rule} {f.check} ({f.chunking}): {' '.join(f.detail.split())}"[:300]
    return " ".join((result.reason or result.outcome.value).split())[:300]
