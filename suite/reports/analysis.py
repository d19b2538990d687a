"""What every report says, computed once: tables, ordering and reproductions.

The writers differ only in presentation; keeping the numbers here means the
Markdown, HTML and JUnit reports and the pytest plugin can never disagree.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass

from ..evidence import Evidence, Severity
from ..results import Outcome, RunResult, ScenarioResult, Verdict
from ..spec import RULES
from .text import plural

OUTCOME_ORDER: tuple[Outcome, ...] = (
    Outcome.PASS,
    Outcome.FAIL,
    Outcome.ERROR,
    Outcome.TIMEOUT,
    Outcome.UNSUPPORTED,
    Outcome.SKIPPED,
)


def scenario_severity(result: ScenarioResult) -> Severity:
    """The severity of the worst failure of a failing scenario (NONE when none)."""
    return min((f.severity for f in result.failures), default=Severity.NONE)


def outcome_counts(results: list[ScenarioResult], *, beyond: bool = True) -> dict[str, int]:
    """Every outcome, zero included, in the canonical order; BEYOND CLAIM last, and only
    when some result is outside the class judged (SPEC section 12) and `beyond` (the
    area and rule tables, whose columns are fixed, list those scenarios apart)."""
    counts = Counter(r.outcome.value for r in results)
    shown = {o.value: counts.get(o.value, 0) for o in OUTCOME_ORDER}
    outside = counts.get(Outcome.BEYOND_CLAIM.value, 0)
    return {**shown, Outcome.BEYOND_CLAIM.value: outside} if outside and beyond else shown


@dataclass(frozen=True)
class Totals:
    scenarios: int
    chunkings: int
    checks: int
    capped: int  # chunking variants not run: long input, or a declared restriction
    scrubber_checks: int


def totals(run: RunResult) -> Totals:
    everything = checked(run)
    return Totals(
        scenarios=len(run.results),
        chunkings=sum(r.chunkings_run for r in everything),
        checks=sum(r.checks_run for r in everything),
        capped=sum(capped_total(r) for r in everything),
        scrubber_checks=len(run.scrubber_checks),
    )


def run_level(run: RunResult) -> str:
    """The level the run was judged at ('must' unless the settings say otherwise)."""
    return str(run.settings.get("level") or "must").lower()


def verdict(run: RunResult) -> Verdict:
    """PASS, FAIL, CORPUS ERROR or INTERRUPTED at the level the run was judged at."""
    return run.verdict(run_level(run))


@dataclass(frozen=True)
class CountRow:
    """Outcome counts for one area or rule."""

    key: str
    counts: dict[str, int]

    @property
    def total(self) -> int:
        return sum(self.counts.values())


def area_rows(run: RunResult) -> list[CountRow]:
    """One row per area, in the order areas first appear in the run."""
    by_area: dict[str, list[ScenarioResult]] = defaultdict(list)
    for result in run.results:
        by_area[result.area].append(result)
    return [CountRow(area, outcome_counts(rs, beyond=False)) for area, rs in by_area.items()]


@dataclass(frozen=True)
class RuleRow:
    rule: str
    level: str
    title: str
    counts: dict[str, int]

    @property
    def total(self) -> int:
        return sum(self.counts.values())


def rule_rows(run: RunResult) -> list[RuleRow]:
    """One row per SPEC rule (rules no scenario names included, with zeros),
    counting the scenarios and scrubber checks that name the rule; unknown rule
    ids come last."""
    by_rule: dict[str, list[ScenarioResult]] = defaultdict(list)
    for result in checked(run):
        for rule in dict.fromkeys(result.rules):
            by_rule[rule].append(result)
    rows = [
        RuleRow(rule.id, rule.level, rule.title,
                outcome_counts(by_rule.get(rule.id, []), beyond=False))
        for rule in RULES.values()
    ]
    rows += [
        RuleRow(rule_id, "?", "(not in SPEC)", outcome_counts(results, beyond=False))
        for rule_id, results in by_rule.items()
        if rule_id not in RULES
    ]
    return rows


@dataclass(frozen=True)
class ViolationRow:
    """Failures of one check against one rule, across the whole run."""

    rule: str
    check: str
    level: str
    leak: bool
    scenarios: int  # scenarios with at least one such failure
    chunkings: int  # failing chunkings recorded, summed over those scenarios

    @property
    def severity(self) -> Severity:
        return Severity.of_failure(self.leak, self.level)


def violation_rows(run: RunResult) -> list[ViolationRow]:
    """Failures grouped by violated rule and check, leaks first, then MUST, then
    SHOULD, then the most widespread."""
    scenarios: dict[tuple[str, str, str], set[str]] = defaultdict(set)
    chunkings: Counter = Counter()
    leaks: dict[tuple[str, str, str], bool] = {}
    for result in checked(run):
        for failure in result.failures:
            key = (failure.rule, failure.check, failure.level)
            scenarios[key].add(result.scenario_id)
            chunkings[key] += 1 + failure.similar
            leaks[key] = failure.leak
    rows = [
        ViolationRow(rule, check, level, leaks[(rule, check, level)],
                     len(ids), chunkings[(rule, check, level)])
        for (rule, check, level), ids in scenarios.items()
    ]
    return sorted(rows, key=lambda r: (r.severity, -r.scenarios, -r.chunkings, r.rule, r.check))


def failing_scenarios(run: RunResult) -> list[ScenarioResult]:
    """FAIL results ordered leaks first, then MUST, then SHOULD; run order otherwise."""
    failing = [r for r in checked(run) if r.outcome is Outcome.FAIL]
    return sorted(failing, key=scenario_severity)


def broken_scenarios(run: RunResult) -> list[ScenarioResult]:
    """ERROR and TIMEOUT results: the harness could not judge these."""
    return [r for r in checked(run) if r.outcome in (Outcome.ERROR, Outcome.TIMEOUT)]


MAX_LISTED_IDS = 30


def id_list(ids: list[str], limit: int = MAX_LISTED_IDS) -> tuple[list[str], int]:
    """The first `limit` ids and how many more there are (report.json has them all)."""
    return ids[:limit], max(len(ids) - limit, 0)


def short_reason(run: RunResult, reason: str | None) -> str:
    """A reason without the scrubber's name in front: the report header names it."""
    if not reason:
        return "(no reason given)"
    for prefix in (run.scrubber, run.scrubber.partition(":")[2]):
        if prefix and reason.startswith(prefix + ": "):
            return reason[len(prefix) + 2:]
    return reason


def grouped_reasons(run: RunResult, outcome: Outcome) -> list[tuple[str, list[str]]]:
    """(reason, scenario ids) for every result with `outcome`, commonest reason first."""
    by_reason: dict[str, list[str]] = defaultdict(list)
    for result in run.results:
        if result.outcome is outcome:
            by_reason[short_reason(run, result.reason)].append(
                f"{result.area}::{result.scenario_id}")
    return sorted(by_reason.items(), key=lambda item: (-len(item[1]), item[0]))


@dataclass(frozen=True)
class Reproduction:
    """The smallest recorded failure of one check against one rule in a scenario."""

    failure: Evidence  # the failing chunking with the fewest deltas
    chunkings: tuple[str, ...]  # every failing chunking listed for this check and rule
    similar: int = 0  # further failing chunkings the runner counted but did not list

    @property
    def label(self) -> str:
        return f"{self.failure.check} · {self.failure.rule} ({self.failure.level})"

    @property
    def failing(self) -> int:
        """Failing chunkings for this check and rule: listed plus counted."""
        return len(self.chunkings) + self.similar


def _smallness(failure: Evidence) -> tuple[int, int, int]:
    step = failure.step if failure.step is not None else len(failure.deltas)
    return len(failure.deltas), sum(len(d) for d in failure.deltas), step


def reproductions(result: ScenarioResult) -> list[Reproduction]:
    """One reproduction per (rule, check) the scenario fails, worst first."""
    groups: dict[tuple[str, str], list[Evidence]] = defaultdict(list)
    for failure in result.failures:
        groups[(failure.rule, failure.check)].append(failure)
    repros = [
        Reproduction(min(failures, key=_smallness),
                     tuple(dict.fromkeys(f.chunking for f in failures)),
                     sum(f.similar for f in failures))
        for failures in groups.values()
    ]
    return sorted(repros, key=lambda r: r.failure.severity)


def capped_total(result: ScenarioResult) -> int:
    """Chunking variants the runner did not run for this scenario (long input)."""
    return sum(result.capped.values())


def checked(run: RunResult) -> list[ScenarioResult]:
    """Scenario results and the once-per-run scrubber checks (R-ROBUST-2)."""
    return [*run.results, *run.scrubber_checks]


def severity_label(result: ScenarioResult) -> str:
    """What kind of failure a failing scenario is, worst first, in words."""
    return SEVERITY_LABELS.get(scenario_severity(result), "fails")


SEVERITY_LABELS = {Severity.LEAK: "leaks reasoning", Severity.MUST: "fails a MUST",
                   Severity.SHOULD: "fails a SHOULD"}


def failing_checks(result: ScenarioResult) -> str:
    """`leak R-LEAK-1 · expected R-CODE-2`: the failing checks, worst first."""
    return " · ".join(f"{r.failure.check} {r.failure.rule}" for r in reproductions(result))


def scenario_title(result: ScenarioResult) -> str:
    return f"{result.area}::{result.scenario_id}"


def scenario_headline(result: ScenarioResult) -> str:
    """One line saying what is wrong with a scenario, for lists and messages."""
    if result.outcome is not Outcome.FAIL:
        return f"{result.outcome.value}: {result.reason or 'no reason given'}"
    repros = reproductions(result)
    if not repros:
        return f"FAIL: {result.reason or 'no failure recorded'}"
    worst = repros[0].failure
    kind = "leaks reasoning" if worst.leak else worst.level
    checks = ", ".join(f"{r.failure.check} {r.failure.rule} in {plural(r.failing, 'chunking')}"
                       for r in repros)
    return f"FAIL ({kind}): {checks} (of {result.chunkings_run} run)"
