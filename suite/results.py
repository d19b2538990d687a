"""Results of a run: what the checks found, in a form every report writer reads.

The JSON report is `RunResult.to_dict()`; `RunResult.from_dict()` reads it back
(for `scrubcheck diff` and report regeneration), so the two must stay inverse.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict, dataclass, field, fields
from enum import StrEnum

from scrubcheck.evidence import Evidence, Severity


class Verdict(StrEnum):
    """Every verdict word scrubcheck prints or stores, spelled once.

    A scenario's `Outcome` is one of the first seven; the matrix adds LEAK and
    SHOULD (`matrix.verdicts`), `gateway check` LOSS (`gateway.verdicts`), and a
    whole run ends PASS, FAIL, CORPUS ERROR or INTERRUPTED (`RunResult.verdict`), and
    a gateway audit that never reached its gateway NOTHING RAN (`gateway.audit`).
    The words are the ones committed reports and report.json carry.
    """

    PASS = "PASS"
    FAIL = "FAIL"
    ERROR = "ERROR"
    TIMEOUT = "TIMEOUT"
    UNSUPPORTED = "UNSUPPORTED"
    SKIPPED = "SKIPPED"
    #: outside the conformance class the run judges (SPEC section 12): never a pass
    BEYOND_CLAIM = "BEYOND CLAIM"
    LEAK = "LEAK"  # reasoning reached the user
    SHOULD = "SHOULD"  # only SHOULD rules failed
    LOSS = "LOSS"  # answer text is missing (gateway check)
    CORPUS_ERROR = "CORPUS ERROR"  # a run whose corpus did not load cleanly
    INTERRUPTED = "INTERRUPTED"  # a run stopped early (Ctrl-C)
    NOTHING_RAN = "NOTHING RAN"  # a gateway audit that could not reach its gateway


def exit_verdict(code: int, *, nothing_judged: Verdict) -> Verdict:
    """The word for a whole run's exit code, shared by `run` and `gateway audit`: 0 PASS,
    1 FAIL, 130 INTERRUPTED, and 2 `nothing_judged`, which each command names for itself
    (a corpus that did not load, a gateway that was never reached)."""
    return {0: Verdict.PASS, 1: Verdict.FAIL, 2: nothing_judged,
            130: Verdict.INTERRUPTED}[code]


class Outcome(StrEnum):
    """What became of one scenario (the words are `Verdict`'s)."""

    PASS = Verdict.PASS.value
    FAIL = Verdict.FAIL.value
    ERROR = Verdict.ERROR.value
    TIMEOUT = Verdict.TIMEOUT.value
    UNSUPPORTED = Verdict.UNSUPPORTED.value
    SKIPPED = Verdict.SKIPPED.value
    BEYOND_CLAIM = Verdict.BEYOND_CLAIM.value


#: One violated check under one chunking, with everything needed to replay it: the
#: evidence record every tool shares (the name report writers and report.json know).
Failure = Evidence


@dataclass
class Holdback:
    """Streaming behaviour measured on the one-character chunking (R-STREAM-1)."""

    mode: str  # "stream" or "batch"
    max_held: int = 0  # most answer characters fed but not yet emitted at any step
    #: most characters behind the output SPEC makes due at any step (specmodel/decided.py;
    #: the name is report format 1's, from when the reference scrubber was the yardstick)
    max_lag_vs_reference: int = 0


@dataclass
class ScenarioResult:
    scenario_id: str
    area: str
    rules: list[str]
    file: str
    line: int
    description: str
    outcome: Outcome
    failures: list[Failure] = field(default_factory=list)
    reason: str | None = None  # ERROR / TIMEOUT / UNSUPPORTED / SKIPPED explanation
    chunkings_run: int = 0
    checks_run: int = 0
    holdback: Holdback | None = None
    duration_s: float = 0.0
    capped: dict[str, int] = field(default_factory=dict)  # family -> variants not run (long input)
    notes: list[str] = field(default_factory=list)  # how checks were adapted (never silent)
    metrics: dict[str, float] = field(default_factory=dict)  # measurements, e.g. time ratios
    # What an in-process scrubber wrote to stdout/stderr during this scenario, its head and
    # tail with the dropped middle counted (runner.capture); None when it wrote nothing.
    captured_output: str | None = None

    @property
    def worst_level(self) -> str | None:
        """MUST if any MUST check failed, else SHOULD if any failed, else None."""
        levels = {f.level for f in self.failures}
        if "MUST" in levels:
            return "MUST"
        return "SHOULD" if levels else None

    @property
    def severity(self) -> Severity:
        """Where this result goes in a list of problems (`Severity`): a leak whatever the
        outcome, then a FAIL by its worst level, an ERROR, a TIMEOUT; NONE otherwise."""
        if any(f.leak for f in self.failures):
            return Severity.LEAK
        if self.outcome is Outcome.FAIL:
            return Severity.MUST if self.worst_level == "MUST" else Severity.SHOULD
        return {Outcome.ERROR: Severity.ERROR, Outcome.TIMEOUT: Severity.TIMEOUT}.get(
            self.outcome, Severity.NONE)

    def fails_at(self, level: str) -> bool:
        """Whether this result breaks the run at `level` ('must' or 'should')."""
        if self.outcome in (Outcome.ERROR, Outcome.TIMEOUT):
            return True
        if self.outcome is not Outcome.FAIL:
            return False
        return level.lower() == "should" or self.worst_level == "MUST"


@dataclass
class RunResult:
    scrubber: str
    scrubber_kind: str
    supported_features: list[str]
    accepted_context: list[str]
    spec_version: str
    scrubcheck_version: str
    started_at: str
    duration_s: float
    settings: dict
    results: list[ScenarioResult] = field(default_factory=list)
    corpus_errors: list[str] = field(default_factory=list)
    scrubber_checks: list[ScenarioResult] = field(default_factory=list)  # once per run (R-ROBUST-2)
    interrupted: bool = False  # stopped early (Ctrl-C): scenarios not run are SKIPPED results
    #: the failures as the bugs behind them (`scrubcheck.explain`: its `to_dict`), when the
    #: run was explained; written to report.json only then
    explanation: dict | None = None

    def counts(self) -> Counter:
        return Counter(r.outcome.value for r in self.results)

    def exit_code(self, level: str = "must") -> int:
        """0 pass, 1 failures, 2 corpus errors, 130 interrupted (128 + SIGINT)."""
        if self.interrupted:
            return 130
        if self.corpus_errors:
            return 2
        checked = [*self.results, *self.scrubber_checks]
        return 1 if any(r.fails_at(level) for r in checked) else 0

    def verdict(self, level: str = "must") -> Verdict:
        """The run's word for its exit code: what the console's last line, the reports'
        headline and a CI log all say."""
        return exit_verdict(self.exit_code(level), nothing_judged=Verdict.CORPUS_ERROR)

    def to_dict(self) -> dict:
        data = asdict(self)
        for result, kept in zip([*data["results"], *data["scrubber_checks"]],
                                [*self.results, *self.scrubber_checks], strict=True):
            result["outcome"] = result["outcome"].value if isinstance(
                result["outcome"], Outcome) else result["outcome"]
            result["failures"] = [f.report_dict() for f in kept.failures]
        data["counts"] = dict(self.counts())
        if data["explanation"] is None:  # a run not explained: its report as before
            del data["explanation"]
        return data

    @classmethod
    def from_dict(cls, data: dict) -> RunResult:
        known = {f.name for f in fields(cls)}
        data = {k: v for k, v in data.items() if k in known}
        results = [result_from_dict(raw) for raw in data.pop("results", [])]
        checks = [result_from_dict(raw) for raw in data.pop("scrubber_checks", [])]
        return cls(results=results, scrubber_checks=checks, **data)


def result_from_dict(raw: dict) -> ScenarioResult:
    """One result from its report.json form (what `RunResult.to_dict` writes)."""
    raw = dict(raw)
    raw["outcome"] = Outcome(raw["outcome"])
    raw["failures"] = [Evidence(**f) for f in raw.get("failures", [])]
    if raw.get("holdback") is not None:
        raw["holdback"] = Holdback(**raw["holdback"])
    return ScenarioResult(**raw)
