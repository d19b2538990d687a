"""Regressions and fixes between two runs: what `scrubcheck diff` reports for CI.

Inputs are report.json files (one scrubber) or matrix.json files (one
comparison per implementation present in both). A regression is a scenario
judged in both runs whose verdict got worse (PASS < SHOULD < FAIL/ERROR <
LEAK); new leaks come first. A fix is the reverse. Scenarios judged in only
one of the runs (new, removed, or newly unsupported) are listed apart and
never make the diff fail.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from scrubcheck.matrix.verdicts import BADNESS, LEAK, verdict
from scrubcheck.results import RunResult


@dataclass(frozen=True)
class Change:
    scenario_id: str
    old: str
    new: str


@dataclass
class Diff:
    name: str
    regressions: list[Change] = field(default_factory=list)
    fixes: list[Change] = field(default_factory=list)
    other: list[Change] = field(default_factory=list)  # added, removed, or not judged in one

    def __bool__(self) -> bool:
        return bool(self.regressions or self.fixes or self.other)


def verdicts_of(data: dict) -> dict[str, dict[str, str]]:
    """{implementation: {scenario id: verdict}} from a report.json or matrix.json dict."""
    if "rows" in data:
        return {row["name"]: dict(row.get("verdicts") or {}) for row in data["rows"]}
    run = RunResult.from_dict(data)
    return {run.scrubber: {r.scenario_id: verdict(r) for r in run.results}}


def load_verdicts(path: Path) -> dict[str, dict[str, str]]:
    return verdicts_of(json.loads(Path(path).read_text(encoding="utf-8")))


def diff_verdicts(name: str, old: dict[str, str], new: dict[str, str]) -> Diff:
    diff = Diff(name)
    for scenario_id in dict.fromkeys([*old, *new]):
        before, after = old.get(scenario_id, "absent"), new.get(scenario_id, "absent")
        if before == after:
            continue
        change = Change(scenario_id, before, after)
        if before in BADNESS and after in BADNESS:
            (diff.regressions if BADNESS[after] > BADNESS[before] else diff.fixes).append(change)
        else:
            diff.other.append(change)
    diff.regressions.sort(key=lambda c: (c.new != LEAK, -BADNESS[c.new], c.scenario_id))
    diff.fixes.sort(key=lambda c: (c.old != LEAK, c.scenario_id))
    return diff


def diff_runs(old: dict[str, dict[str, str]], new: dict[str, dict[str, str]]) -> list[Diff]:
    """One Diff per implementation in both; a single pair of reports is compared whatever
    their scrubber names (a renamed spec is still the same scrubber's CI)."""
    if len(old) == 1 and len(new) == 1:
        (old_name, old_v), (new_name, new_v) = next(iter(old.items())), next(iter(new.items()))
        name = new_name if old_name == new_name else f"{old_name} -> {new_name}"
        return [diff_verdicts(name, old_v, new_v)]
    return [diff_verdicts(name, old[name], new[name]) for name in new if name in old]


def render_diff(diffs: list[Diff], only_in: list[str] | None = None) -> str:
    lines = []
    for diff in diffs:
        lines.append(f"{diff.name}: {len(diff.regressions)} regression(s), "
                     f"{len(diff.fixes)} fix(es), {len(diff.other)} other change(s)")
        for title, changes in (("REGRESSION", diff.regressions), ("fixed", diff.fixes),
                               ("changed", diff.other)):
            for c in changes:
                mark = " (new leak)" if title == "REGRESSION" and c.new == LEAK else ""
                lines.append(f"  {title:10} {c.scenario_id}: {c.old} -> {c.new}{mark}")
    for name in only_in or ():
        lines.append(f"{name}: in one run only, not compared")
    return "\n".join(lines) + "\n"
