"""How well the corpus covers SPEC: scenarios per rule, per area and per feature.

A rule with few scenarios is a rule whose violations the suite can miss; the
threshold makes that visible and lets CI refuse it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from scrubcheck.model import Scenario
from scrubcheck.spec import RULES, Rule
from scrubcheck.vocabulary import FEATURES

MIN_SCENARIOS = 5


def is_generated(scenario: Scenario) -> bool:
    return "generated" in scenario.labels


@dataclass
class RuleCoverage:
    """The scenarios exercising one rule, counted per area."""

    rule: Rule
    areas: Counter[str] = field(default_factory=Counter)
    hand_written: int = 0

    @property
    def count(self) -> int:
        return sum(self.areas.values())

    @property
    def enough(self) -> bool:
        return self.count >= MIN_SCENARIOS


def rule_coverage(scenarios: Iterable[Scenario]) -> list[RuleCoverage]:
    """One entry per SPEC rule, in SPEC order (rules no scenario names included, at 0)."""
    table = {rule_id: RuleCoverage(rule) for rule_id, rule in RULES.items()}
    for s in scenarios:
        for rule_id in set(s.rules):
            entry = table.get(rule_id)
            if entry is None:
                continue
            entry.areas[s.area] += 1
            if not is_generated(s):
                entry.hand_written += 1
    return list(table.values())


def under_covered(scenarios: Iterable[Scenario]) -> list[RuleCoverage]:
    """Rules with fewer than MIN_SCENARIOS scenarios."""
    return [c for c in rule_coverage(scenarios) if not c.enough]


def area_counts(scenarios: Iterable[Scenario]) -> Counter[str]:
    return Counter(s.area for s in scenarios)


def feature_counts(scenarios: Iterable[Scenario]) -> dict[str, int]:
    """Scenarios enabling each feature (every known feature listed, even at 0)."""
    counts = dict.fromkeys(FEATURES, 0)
    for s in scenarios:
        for feature in s.context.features:
            counts[feature] = counts.get(feature, 0) + 1
    return counts


def context_counts(scenarios: Iterable[Scenario]) -> dict[str, int]:
    """How many scenarios use each non-default context setting."""
    counts: Counter[str] = Counter()
    for s in scenarios:
        ctx = s.context
        if ctx.starts_in_reasoning:
            counts["starts_in_reasoning: true"] += 1
        if ctx.inline_answer:
            counts["inline_answer: true"] += 1
        if ctx.finish_reason != "stop":
            counts[f"finish_reason: {ctx.finish_reason or 'null'}"] += 1
        if ctx.may_skip_reasoning:
            counts["may_skip_reasoning: true"] += 1
        if ctx.delimiters:
            counts["delimiters: (caller's)"] += 1
        if not (ctx.starts_in_reasoning or ctx.inline_answer or ctx.features
                or ctx.finish_reason != "stop" or ctx.may_skip_reasoning or ctx.delimiters):
            counts["default context"] += 1
    return dict(sorted(counts.items()))
