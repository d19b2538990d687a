"""run_scenario: every check of one scenario against one scrubber, in-process.

Per chunking of the matrix: returns are str (R-ROBUST-1), no reasoning at any
step (R-LEAK-1), and each output check of the registry on the output
(`checks.registry.OUTPUT_CHECKS`: no tag outside code, R-TAG-1; the expected
output, R-FID-1 / R-WS-1). Across chunkings: one output (R-CHUNK-1). Then idempotence (R-IDEM-1),
every truncation (R-TRUNC-1), reuse after flush (R-REUSE-1) and hold-back
(R-STREAM-1/2, SHOULD). Last, every registry check with stream runs of its own
(`checks.registry.stream_checks`): its planned runs are made here, once each,
their robustness judged like any stream's, and the check handed their traces,
so that a new check of that kind needs no change here, in `show` or in the plugin.

Findings are gathered by `collect.FailureCollector` (one failure per check and
rule). Nothing passes by absence: a scenario on which no check ran is an ERROR.
"""

from __future__ import annotations

import time
import traceback
from collections.abc import Callable

from scrubcheck.adapters import Adapter
from scrubcheck.adapters.drive import (
    Trace,
    run_rescrub,
    run_reused,
    run_stream,
    run_truncated,
    truncate_deltas,
)
from scrubcheck.adapters.labels import RunKind
from scrubcheck.checks import (
    POISONS,
    Check,
    LeakDetector,
    StreamOutput,
    check_exception,
    check_idempotence,
    check_invariance,
    check_reuse,
    check_truncation,
    check_types,
    held_at_flush,
    leak_finding,
    measure_holdback,
)
from scrubcheck.checks.reasoning_windows import Leak
from scrubcheck.checks.registry import (
    CheckEntry,
    PlannedRun,
    Subject,
    needed_kinds,
    output_checks,
    stream_checks,
)
from scrubcheck.chunking import (
    Chunking,
    chunking_by_name,
    chunking_names,
    cut_points,
    seeded_rng,
    tag_spans,
)
from scrubcheck.evidence import Evidence
from scrubcheck.model import Scenario
from scrubcheck.peers.breaker import PeerGivenUp
from scrubcheck.results import Outcome, ScenarioResult
from scrubcheck.runner.ahead import ahead
from scrubcheck.runner.collect import FailureCollector
from scrubcheck.runner.joined import JoinedTextRuns
from scrubcheck.runner.oracle import oracle_view
from scrubcheck.runner.replay import replay_command
from scrubcheck.runner.settings import RunSettings
from scrubcheck.vocabulary import Vocabulary

#: Called with a label (a replayable chunking name) before each stream is run,
#: so that a hang can be reported at the stream that hung.
Progress = Callable[[str], None]

def run_scenario(
    adapter: Adapter,
    scenario: Scenario,
    settings: RunSettings | None = None,
    *,
    only: str | None = None,
    progress: Progress | None = None,
) -> ScenarioResult:
    """Run all checks (or, with `only`, those of one chunking, `trunc@C` or `reuse:P`)."""
    settings = settings or RunSettings()
    started = time.perf_counter()
    result = blank_result(scenario, Outcome.PASS)
    reason = adapter.unsupported_reason(scenario.context, scenario.text)
    if reason:
        result.outcome = Outcome.UNSUPPORTED
        result.reason = f"{adapter.name}: {reason}"
    else:
        run = _ScenarioRun(adapter, scenario, settings, progress)
        try:
            run.fill(result, only)
        except _StreamStop as stop:
            run.stopped(result, stop)
        except Exception as exc:
            result.outcome = Outcome.ERROR
            result.reason = "harness error (not the scrubber's fault): " + "".join(
                traceback.format_exception_only(type(exc), exc)).strip()
            result.notes.append(traceback.format_exc())
    result.duration_s = round(time.perf_counter() - started, 4)
    return result


class _StreamStop(Exception):
    """A stream failed in a way the rest of the scenario would only repeat until the
    timeout: the scrubber raised MemoryError (each stream allocating up to the limit
    again), or a peer's circuit breaker stopped asking it (every further stream would
    fail at once, or restart a broken peer). `reason` says which, for the report."""

    def __init__(self, name: str, reason: str) -> None:
        super().__init__(name)
        self.name = name
        self.reason = reason


def _hopeless(name: str, summary: str) -> _StreamStop | None:
    """The stop a stream error calls for, or None when the next stream may fare better."""
    if summary.startswith("MemoryError"):
        return _StreamStop(name, f"the scrubber ran out of memory (MemoryError) under {name}; "
                                 "the rest of the scenario was not run")
    _, _, message = summary.partition(": ")
    for text in (summary, message):
        if text.startswith(PeerGivenUp.PREFIX):
            return _StreamStop(name, text.removeprefix(PeerGivenUp.PREFIX)
                               + f" (under {name}; the rest of the scenario was not run)")
    return None


def stream_deltas(
    scenario: Scenario, name: str, seed: int, vocabulary: Vocabulary | None = None
) -> tuple[str, ...]:
    """The deltas a stream label names: a chunking, `trunc@C` (the recorded deltas cut
    at C) or `reuse:P` (the recorded deltas, after the poison stream). ValueError if
    the name is not one."""
    recorded = tuple(scenario.deltas)
    if name.startswith("trunc@"):
        return truncate_deltas(recorded, int(name.removeprefix("trunc@")))
    if name.startswith("reuse:"):
        return recorded
    vocabulary = vocabulary or scenario.context.vocabulary()
    return chunking_by_name(scenario, vocabulary, name, seed).deltas


def planned_run(scenario: Scenario, name: str) -> PlannedRun | None:
    """The run named `name` that a registry check plans for itself on `scenario`
    (`checks.registry.CheckEntry.runs`), or None: what `show --chunking` replays."""
    subject = Subject(scenario, scenario.context.vocabulary(), None)
    for _, runs in stream_checks(subject):
        for run in runs:
            if str(run.label) == name:
                return run
    return None


def blank_result(scenario: Scenario, outcome: Outcome, reason: str | None = None) -> ScenarioResult:
    return ScenarioResult(
        scenario_id=scenario.id,
        area=scenario.area,
        rules=list(scenario.rules),
        file=scenario.file,
        line=scenario.line,
        description=scenario.description,
        outcome=outcome,
        reason=reason,
    )


class _ScenarioRun:
    """One scenario against one adapter. Keeps little per chunking (its output,
    interned), builds chunkings lazily by name and judges each distinct output
    once, so that a 1 MiB scenario stays within memory and time."""

    def __init__(
        self, adapter: Adapter, scenario: Scenario, settings: RunSettings, progress: Progress | None
    ) -> None:
        self.adapter = adapter
        self.scenario = scenario
        self.settings = settings
        self.progress = progress or (lambda label: None)
        self.context = scenario.context
        self.recorded = tuple(scenario.deltas)
        self.vocabulary = scenario.context.vocabulary()
        self.collector = FailureCollector(lambda name: replay_command(
            scenario.id, adapter.spec, name, settings.seed, settings.corpus_paths,
            scenario.context.conformance_class))
        self.outputs: dict[str, str] = {}  # interning: one copy of each distinct output
        # per distinct output: its first leak and each output check's evidence
        self.judged: dict[str, tuple[Leak | None, tuple[Evidence | None, ...]]] = {}
        self.subject = Subject(scenario, self.vocabulary, None)
        self.output_checks: tuple[CheckEntry, ...] = ()
        self.checks = 0
        self.chunkings_run = 0
        # A token-aligned scrubber never sees a tag split across deltas (Adapter.token_aligned).
        self.tag_bounds = (
            frozenset(p for a, b in tag_spans(scenario.text, self.vocabulary)
                      for p in range(a + 1, b))
            if adapter.token_aligned else frozenset()
        )
        self.not_aligned: dict[str, int] = {}
        self.joined = JoinedTextRuns(adapter, scenario.context)
        # checks that plan stream runs of their own, planned once for the scenario
        self.own = stream_checks(self.subject)
        self.own_deltas = {str(run.label): run.deltas for _, runs in self.own for run in runs}

    # -- bookkeeping -------------------------------------------------------
    def splits_a_tag(self, deltas: tuple[str, ...] | list[str]) -> bool:
        """Whether a delta boundary falls inside a tag (only asked of token-aligned ones)."""
        if not self.tag_bounds:
            return False
        position = 0
        for delta in deltas[:-1]:
            position += len(delta)
            if position in self.tag_bounds:
                return True
        return False

    def report(self, name: str, deltas: int, finding: Evidence | None) -> None:
        self.collector.add(name, deltas, finding)

    def report_robustness(self, name: str, trace: Trace) -> None:
        self.report(name, len(trace.deltas), check_exception(trace))
        self.report(name, len(trace.deltas), check_types(trace))
        self.stop_if_hopeless(name, trace)

    @staticmethod
    def stop_if_hopeless(name: str, trace: Trace) -> None:
        if trace.error is not None:
            stop = _hopeless(name, trace.error.summary)
            if stop is not None:
                raise stop

    def stopped(self, result: ScenarioResult, stop: _StreamStop) -> None:
        """End the scenario at the stream that made going on pointless, as an ERROR."""
        result.failures = self.collector.failures(self.deltas_of)
        result.chunkings_run = self.chunkings_run
        result.checks_run = self.checks
        result.outcome = Outcome.ERROR
        result.reason = stop.reason

    def deltas_of(self, name: str) -> tuple[str, ...]:
        if name in self.own_deltas:
            return self.own_deltas[name]
        return stream_deltas(self.scenario, name, self.settings.seed, self.vocabulary)

    def chunking_deltas(self, name: str) -> tuple[str, ...] | None:
        """A chunking's deltas, to run ahead (None: it splits a tag and will not run)."""
        deltas = chunking_by_name(self.scenario, self.vocabulary, name, self.settings.seed).deltas
        return None if self.splits_a_tag(deltas) else tuple(deltas)

    def truncated_deltas(self, cut: int) -> tuple[str, ...] | None:
        """A truncation cut's deltas, to run ahead (None: it will not run)."""
        return None if cut in self.tag_bounds else truncate_deltas(self.recorded, cut)

    def intern(self, output: str) -> str:
        return self.outputs.setdefault(output, output)

    # -- the checks --------------------------------------------------------
    def fill(self, result: ScenarioResult, only: str | None) -> None:
        if only is not None and only in self.own_deltas:
            self.subject = Subject(self.scenario, self.vocabulary, None)
            self.own_checks(only)
            self.conclude(result)
            return
        names, cuts, poisons = self.plan(result, only)
        wants_lag = self.adapter.streams and "char" in names
        reference = oracle_view(self.scenario, char_run=wants_lag)
        if reference.problem:
            result.notes.append(reference.problem + "; no lag data")
        ws_cuts = self.ws_cuts(reference.output, reference.cuts, result)
        self.subject = Subject(self.scenario, self.vocabulary, ws_cuts)
        self.output_checks = output_checks(self.subject)
        detector = LeakDetector(self.scenario.reasoning, self.scenario.text)

        runs: list[StreamOutput] = []
        char_trace: Trace | None = None
        # a batch one runs one text once anyway: nothing to gain from running chunkings ahead
        prefetcher = None if self.joined.reuse else self.adapter
        for name in ahead(prefetcher, self.context, names, self.chunking_deltas):
            chunking = chunking_by_name(self.scenario, self.vocabulary, name, self.settings.seed)
            if self.splits_a_tag(chunking.deltas):
                self.not_aligned["chunking"] = self.not_aligned.get("chunking", 0) + 1
                continue
            self.progress(name)
            trace = self.joined.run(chunking.deltas)  # a batch one: once per distinct text
            self.judge(chunking, trace, detector)
            runs.append(StreamOutput(name, len(chunking.deltas), trace.ok,
                                     self.intern(trace.output)))
            if name == "char":
                char_trace = trace
        if len(runs) > 1:
            self.checks += 1
            for run, finding in check_invariance(runs):
                self.report(run.name, run.deltas, finding)
        kinds = needed_kinds()  # a kind of run no registry check reads is not made
        rescrub = self.adapter.unsupported_reason(self.context.for_rescrub())
        if RunKind.RESCRUB not in kinds:
            pass
        elif rescrub:  # a fixed-mode scrubber cannot take the default context R-IDEM-1 uses
            result.notes.append(f"R-IDEM-1 not checked (re-scrubbing needs the default "
                                f"context): {rescrub}")
        else:
            self.idempotence(runs)
        held = self.truncations(cuts, detector, result) if RunKind.TRUNCATION in kinds else []
        if RunKind.REUSE in kinds:
            self.reuse(poisons, runs)
        if char_trace is not None or held:
            self.checks += 1
            result.holdback, lag = measure_holdback(
                self.adapter.streams, char_trace, reference.char_ends, held,
                self.vocabulary.max_len,
            )
            if char_trace is not None:
                self.report("char", len(char_trace.deltas), lag)
        if only is None:
            self.own_checks(None)
        self.conclude(result)

    def plan(
        self, result: ScenarioResult, only: str | None
    ) -> tuple[list[str], list[int], list[str]]:
        scenario, settings = self.scenario, self.settings
        if only is None:
            names, capped = chunking_names(scenario, self.vocabulary, settings.seed,
                                           settings.random_count, settings.caps)
            cuts, left_out = cut_points(
                scenario.text, self.vocabulary, seeded_rng(settings.seed, scenario.id, "cuts"),
                settings.caps, ends=True, cost=len(scenario.text) + 16 * len(self.recorded),
            )
            result.capped.update(capped)
            if left_out:
                result.capped["truncation"] = left_out
            for family, count in sorted(result.capped.items()):
                result.notes.append(
                    f"long input ({len(scenario.text)} characters): {count} {family} variants "
                    "not run (cap); replay any of them by name with `scrubcheck show`"
                )
            return names, cuts, list(POISONS)
        if only.startswith("trunc@"):
            cut = int(only.removeprefix("trunc@"))
            if not 0 <= cut <= len(scenario.text):
                raise ValueError(f"{only}: cut outside 0..{len(scenario.text)}")
            return [], [cut], []
        if only.startswith("reuse:"):
            poison = only.removeprefix("reuse:")
            if poison not in POISONS:
                raise ValueError(f"{only}: poison must be one of {', '.join(POISONS)}")
            return ["recorded"], [], [poison]
        named = chunking_by_name(scenario, self.vocabulary, only, settings.seed)
        return (["whole"] if named.name == "whole" else ["whole", named.name]), [], []

    def ws_cuts(
        self, ref_output: str | None, ref_cuts: list[int] | None, result: ScenarioResult
    ) -> list[int] | None:
        visible = self.scenario.visible
        if visible is None or ref_output is None:
            return None
        if ref_output == visible:
            return list(ref_cuts or [])
        result.notes.append(
            "the reference scrubber's output differs from `visible`, so its removal points are "
            "not trusted: `visible` is compared exactly (no R-WS-1 allowance)"
        )
        return None

    def judge(self, chunking: Chunking, trace: Trace, detector: LeakDetector) -> None:
        name, count = chunking.name, len(chunking.deltas)
        self.chunkings_run += 1
        self.checks += 1
        self.report_robustness(name, trace)
        if detector:
            self.checks += 1  # a leak before an exception is still a leak
            leak = (self.judge_output(trace.output, detector)[0] if trace.ok
                    else detector.first_leak(trace.output))
            self.report(name, count, leak_finding(trace, leak))
        if not trace.ok:
            return
        _, findings = self.judge_output(trace.output, detector)
        for finding in findings:  # one per output check (checks.registry)
            self.checks += 1
            self.report(name, count, finding)

    def judge_output(
        self, output: str, detector: LeakDetector
    ) -> tuple[Leak | None, tuple[Evidence | None, ...]]:
        """The first leak and each output check's evidence of one finished output,
        computed once."""
        if output not in self.judged:
            self.judged[self.intern(output)] = (
                detector.first_leak(output) if detector else None,
                tuple(entry.judge(self.subject, output) for entry in self.output_checks),
            )
        return self.judged[output]

    def idempotence(self, runs: list[StreamOutput]) -> None:
        firsts: dict[str, StreamOutput] = {}
        for run in runs:
            if run.ok:
                firsts.setdefault(run.output, run)
        for output, run in firsts.items():
            self.progress(run.name)
            self.checks += 1
            trace = run_rescrub(self.adapter, self.context, output)
            finding = check_idempotence(trace, output)
            for robust in (check_exception(trace), check_types(trace)):
                if robust is not None:
                    robust = robust.amended(prefix="re-scrubbing the output: ")
                self.report(run.name, run.deltas, robust)
            self.stop_if_hopeless(run.name, trace)
            self.report(run.name, run.deltas, finding)

    def truncations(
        self, cuts: list[int], detector: LeakDetector, result: ScenarioResult
    ) -> list[int]:
        held = []
        clean = tuple(output for output, (leak, _) in self.judged.items() if leak is None)
        unsupported: dict[str, int] = {}
        truncated, text = self.context.truncated(), self.scenario.text
        for cut in ahead(self.adapter, truncated, cuts, self.truncated_deltas):
            if cut in self.tag_bounds:
                self.not_aligned["truncation"] = self.not_aligned.get("truncation", 0) + 1
                continue
            # Only the cut stream's last character can change what it needs (R-CODE-6), so
            # it stands in for the prefix: no copy of a long text per cut.
            reason = self.adapter.unsupported_reason(truncated, text[max(0, cut - 1) : cut])
            if reason:  # e.g. a cut right after a backtick needs finish_reason (R-CODE-6)
                unsupported[reason] = unsupported.get(reason, 0) + 1
                continue
            name = f"trunc@{cut}"
            self.progress(name)
            self.checks += 1
            trace = run_truncated(self.adapter, self.context, self.recorded, cut)
            finding = check_truncation(trace, self.context, trace.deltas, cut, detector, clean)
            self.report_robustness(name, trace)
            self.report(name, len(trace.deltas), finding)
            amount = held_at_flush(trace)
            if amount is not None:
                held.append(amount)
        for reason, count in unsupported.items():
            result.notes.append(f"{count} truncation cut(s) not checked (UNSUPPORTED): "
                                f"{self.adapter.name}: {reason}")
        return held

    def reuse(self, poisons: list[str], runs: list[StreamOutput]) -> None:
        fresh = next((r for r in runs if r.name == "recorded"), None)
        if fresh is None or not fresh.ok:
            return  # without a clean fresh run there is nothing to compare with
        for poison in poisons:
            name = f"reuse:{poison}"
            self.progress(name)
            first, second, error = run_reused(self.adapter, self.context, (POISONS[poison][0],),
                                              self.recorded)
            if error is not None:
                continue  # open() raising is reported by the fresh runs already
            self.checks += 1
            for trace in (first, second):
                if trace is not None:
                    self.report_robustness(name, trace)
            if second is not None:
                self.report(name, len(self.recorded),
                            check_reuse(second, fresh.output, poison))

    def own_checks(self, only: str | None) -> None:
        """Each check with stream runs of its own: make its runs (once each, or only
        the run `only`), judge their robustness, hand it the traces that ran cleanly."""
        made: dict[str, Trace] = {}
        for entry, planned in self.own:
            runs = [run for run in planned if only is None or str(run.label) == only]
            traces = {run.label: self.own_run(run, made) for run in runs}
            clean = {label: trace for label, trace in traces.items() if trace.ok}
            if not clean:
                continue
            assert entry.on_runs is not None
            for label, finding in entry.on_runs(self.subject, clean):
                self.checks += 1
                self.report(str(label), len(traces[label].deltas), finding)

    def own_run(self, run: PlannedRun, made: dict[str, Trace]) -> Trace:
        name = str(run.label)
        if name not in made:
            self.progress(name)
            made[name] = trace = run_stream(self.adapter, run.context, run.deltas)
            self.checks += 1
            self.report_robustness(name, trace)
        return made[name]

    def conclude(self, result: ScenarioResult) -> None:
        for family, count in sorted(self.not_aligned.items()):
            result.capped[f"{family} splitting a tag"] = count
            result.notes.append(f"token-aligned scrubber: {count} {family} variant(s) that split "
                                "a tag across deltas not run (the scrubber declares it needs "
                                "whole tags)")
        failures = self.collector.failures(self.deltas_of)
        result.failures = failures
        result.chunkings_run = self.chunkings_run
        result.checks_run = self.checks
        errors = [f for f in failures if f.check == Check.EXCEPTION]
        if errors:
            result.outcome = Outcome.ERROR
            result.reason = f"the scrubber raised under {errors[0].chunking}: {errors[0].detail}"
        elif failures:
            result.outcome = Outcome.FAIL
        elif self.checks == 0:
            result.outcome = Outcome.ERROR
            result.reason = "harness: no check ran for this scenario, so it cannot pass"
        else:
            result.outcome = Outcome.PASS
