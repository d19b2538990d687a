"""run_scenario: every check of one scenario against one scrubber, in-process.

Per chunking of the matrix: returns are str (R-ROBUST-1), no reasoning at any
step (R-LEAK-1), no tag outside code (R-TAG-1), the expected output (R-FID-1 /
R-WS-1). Across chunkings: one output (R-CHUNK-1). Then idempotence (R-IDEM-1),
every truncation (R-TRUNC-1), reuse after flush (R-REUSE-1) and hold-back
(R-STREAM-1/2, SHOULD).

A check that fails under many chunkings is reported once, at the chunking with
the fewest deltas (the easiest replay), with the number of others in
`Failure.similar`. Nothing passes by absence: a scenario on which no check ran
is an ERROR.
"""

from __future__ import annotations

import time
import traceback
from collections.abc import Callable

from scrubcheck.adapters import Adapter
from scrubcheck.checks import (
    POISONS,
    Finding,
    LeakDetector,
    Trace,
    check_exception,
    check_expected,
    check_idempotence,
    check_invariance,
    check_leak,
    check_reuse,
    check_tags,
    check_types,
    held_at_flush,
    measure_holdback,
    run_reuse,
    run_stream,
    run_truncation,
    truncate_deltas,
)
from scrubcheck.chunking import Chunking, chunking_by_name, chunking_plan, cut_points, seeded_rng
from scrubcheck.model import Scenario
from scrubcheck.results import Failure, Outcome, ScenarioResult
from scrubcheck.runner.oracle import reference_view
from scrubcheck.runner.replay import replay_command
from scrubcheck.runner.settings import RunSettings
from scrubcheck.vocabulary import build_vocabulary

#: Called with a label (a replayable chunking name) before each stream is run,
#: so that a hang can be reported at the stream that hung.
Progress = Callable[[str], None]

CHECK_ORDER = ("exception", "type", "leak", "truncation", "tag", "expected", "invariance",
               "idempotence", "reuse", "holdback")
_SHOWN_SIMILAR = 5


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
    reason = adapter.unsupported_reason(scenario.context)
    if reason:
        result.outcome = Outcome.UNSUPPORTED
        result.reason = f"{adapter.name}: {reason}"
    else:
        try:
            _ScenarioRun(adapter, scenario, settings, progress).fill(result, only)
        except Exception as exc:
            result.outcome = Outcome.ERROR
            result.reason = "harness error (not the scrubber's fault): " + "".join(
                traceback.format_exception_only(type(exc), exc)).strip()
            result.notes.append(traceback.format_exc())
    result.duration_s = round(time.perf_counter() - started, 4)
    return result


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
    def __init__(
        self, adapter: Adapter, scenario: Scenario, settings: RunSettings, progress: Progress | None
    ) -> None:
        self.adapter = adapter
        self.scenario = scenario
        self.settings = settings
        self.progress = progress or (lambda label: None)
        self.context = scenario.context
        self.vocabulary = build_vocabulary(scenario.context.features)
        self.collected: dict[tuple[str, str], list[tuple[tuple[int, int], Failure]]] = {}
        self.traces: dict[tuple[str, ...], Trace] = {}
        self.checks = 0
        self.chunkings_run = 0
        self.order = 0

    # -- bookkeeping -------------------------------------------------------
    def report(self, name: str, deltas: tuple[str, ...], finding: Finding | None) -> None:
        if finding is None:
            return
        failure = Failure(
            check=finding.check, rule=finding.rule, level=finding.level, chunking=name,
            deltas=list(deltas), detail=finding.detail, expected=finding.expected,
            got=finding.got, step=finding.step,
            replay=replay_command(self.scenario.id, self.adapter.spec, name, self.settings.seed,
                                  self.settings.corpus_paths),
        )
        key = (finding.check, finding.rule)
        self.collected.setdefault(key, []).append(((len(deltas), self.order), failure))
        self.order += 1

    def report_robustness(self, name: str, deltas: tuple[str, ...], trace: Trace) -> None:
        self.report(name, deltas, check_exception(trace))
        self.report(name, deltas, check_types(trace))

    def stream(self, chunking: Chunking) -> Trace:
        if chunking.deltas not in self.traces:
            self.progress(chunking.name)
            self.traces[chunking.deltas] = run_stream(self.adapter, self.context, chunking.deltas)
        return self.traces[chunking.deltas]

    # -- the checks --------------------------------------------------------
    def fill(self, result: ScenarioResult, only: str | None) -> None:
        chunkings, cuts, poisons = self.plan(result, only)
        wants_lag = self.adapter.streams and any(c.name == "char" for c in chunkings)
        reference = reference_view(self.scenario, char_run=wants_lag)
        if reference.problem:
            result.notes.append(reference.problem + "; whitespace compared exactly, no lag data")
        cuts_ws = self.ws_cuts(reference.output, reference.cuts, result)
        detector = LeakDetector(self.scenario.reasoning, self.scenario.text)

        runs = []
        for chunking in chunkings:
            trace = self.stream(chunking)
            runs.append((chunking, trace))
            self.judge(chunking, trace, detector, cuts_ws)
        if len(runs) > 1:
            self.checks += 1
            for chunking, finding in check_invariance(runs):
                self.report(chunking.name, chunking.deltas, finding)
        self.idempotence(runs)
        held = self.truncations(cuts, detector)
        self.reuse(poisons)
        char = next(((c, t) for c, t in runs if c.name == "char"), None)
        if char is not None or held:
            self.checks += 1
            result.holdback, finding = measure_holdback(
                self.adapter.streams, char[1] if char else None, reference.char_ends, held,
                self.vocabulary.max_len,
            )
            if char is not None:
                self.report(char[0].name, char[0].deltas, finding)
        self.conclude(result)

    def plan(
        self, result: ScenarioResult, only: str | None
    ) -> tuple[list[Chunking], list[int], list[str]]:
        scenario, settings = self.scenario, self.settings
        if only is None:
            plan = chunking_plan(scenario, self.vocabulary, settings.seed, settings.random_count,
                                 settings.caps)
            cuts, left_out = cut_points(
                scenario.text, self.vocabulary, seeded_rng(settings.seed, scenario.id, "cuts"),
                settings.caps, ends=True,
            )
            result.capped.update(plan.capped)
            if left_out:
                result.capped["truncation"] = left_out
            for family, count in sorted(result.capped.items()):
                result.notes.append(
                    f"long input ({len(scenario.text)} characters): {count} {family} variants "
                    "not run (cap); replay any of them by name with `scrubcheck show`"
                )
            return plan.chunkings, cuts, list(POISONS)
        recorded = Chunking("recorded", tuple(scenario.deltas))
        if only.startswith("trunc@"):
            cut = int(only.removeprefix("trunc@"))
            if not 0 <= cut <= len(scenario.text):
                raise ValueError(f"{only}: cut outside 0..{len(scenario.text)}")
            return [], [cut], []
        if only.startswith("reuse:"):
            poison = only.removeprefix("reuse:")
            if poison not in POISONS:
                raise ValueError(f"{only}: poison must be one of {', '.join(POISONS)}")
            return [recorded], [], [poison]
        named = chunking_by_name(scenario, self.vocabulary, only, settings.seed)
        whole = Chunking("whole", (scenario.text,))
        return ([whole] if named.name == "whole" else [whole, named]), [], []

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

    def judge(
        self, chunking: Chunking, trace: Trace, detector: LeakDetector, cuts: list[int] | None
    ) -> None:
        name, deltas = chunking.name, chunking.deltas
        self.chunkings_run += 1
        self.checks += 1
        self.report_robustness(name, deltas, trace)
        if detector:
            self.checks += 1  # a leak before an exception is still a leak
            self.report(name, deltas, check_leak(trace, detector))
        if not trace.ok:
            return
        self.checks += 1
        self.report(name, deltas, check_tags(trace.output, self.vocabulary))
        if self.scenario.expected_outputs is not None:
            self.checks += 1
            self.report(name, deltas, check_expected(self.scenario, trace.output, cuts))

    def idempotence(self, runs: list[tuple[Chunking, Trace]]) -> None:
        firsts: dict[str, Chunking] = {}
        for chunking, trace in runs:
            if trace.ok:
                firsts.setdefault(trace.output, chunking)
        for output, chunking in firsts.items():
            self.progress(chunking.name)
            self.checks += 1
            trace, finding = check_idempotence(self.adapter, self.context, output)
            for robust in (check_exception(trace), check_types(trace)):
                if robust is not None:
                    robust.detail = "re-scrubbing the output: " + robust.detail
                self.report(chunking.name, chunking.deltas, robust)
            self.report(chunking.name, chunking.deltas, finding)

    def truncations(self, cuts: list[int], detector: LeakDetector) -> list[int]:
        held = []
        recorded = tuple(self.scenario.deltas)
        for cut in cuts:
            name = f"trunc@{cut}"
            self.progress(name)
            self.checks += 1
            trace, finding = run_truncation(self.adapter, self.context, recorded, cut, detector)
            deltas = truncate_deltas(recorded, cut)
            self.report_robustness(name, deltas, trace)
            self.report(name, deltas, finding)
            amount = held_at_flush(trace)
            if amount is not None:
                held.append(amount)
        return held

    def reuse(self, poisons: list[str]) -> None:
        recorded = Chunking("recorded", tuple(self.scenario.deltas))
        fresh = self.stream(recorded) if poisons else None
        for poison in poisons:
            name = f"reuse:{poison}"
            self.progress(name)
            first, second, error = run_reuse(self.adapter, self.context, recorded.deltas, poison)
            if error is not None or fresh is None or not fresh.ok:
                continue  # the exception is already reported by the fresh run
            self.checks += 1
            for trace in (first, second):
                if trace is not None:
                    self.report_robustness(name, recorded.deltas, trace)
            if second is not None:
                self.report(name, recorded.deltas, check_reuse(second, fresh.output, poison))

    def conclude(self, result: ScenarioResult) -> None:
        failures = []
        for entries in self.collected.values():
            entries.sort(key=lambda entry: entry[0])
            first = entries[0][1]
            others = list(dict.fromkeys(
                f.chunking for _, f in entries[1:] if f.chunking != first.chunking))
            if others:
                first.similar = len(others)
                shown = ", ".join(others[:_SHOWN_SIMILAR])
                more = f", … ({len(others) - _SHOWN_SIMILAR} more)" if len(
                    others) > _SHOWN_SIMILAR else ""
                first.detail += f" [same check also fails under: {shown}{more}]"
            failures.append(first)
        failures.sort(key=lambda f: (f.level != "MUST", CHECK_ORDER.index(f.check)
                                     if f.check in CHECK_ORDER else len(CHECK_ORDER)))
        result.failures = failures
        result.chunkings_run = self.chunkings_run
        result.checks_run = self.checks
        errors = [f for f in failures if f.check == "exception"]
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
