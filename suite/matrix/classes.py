"""Distinct failure classes: count bugs, not scenarios.

A generated family holds hundreds of scenarios built from one recipe (every
split position of every tag, every case variant...), so one bug can fail 500 of
them and read as "538 leaks". A failure class groups an implementation's failing
scenarios by

- the verdict and the SPEC rules they fail (a leak of R-LEAK-1 is another bug
  than a lost answer under R-FID-1),
- the corpus area,
- the generating family: the recipe of `corpora/generated.yaml` a generated
  scenario was expanded from (its scenarios share the recipe's file and line and
  are named after its id, `gen-split-...`); a hand-written scenario has none,
  so hand-written failures of one area and rule set form one class too,

and keeps the shortest failing example of each (the smallest failing chunking,
as the hall of bugs measures it) with the command that reproduces it. So a
reader can tell one bug repeated 500 times from 500 bugs; the class count is a
lower bound on distinct bugs, the scenario count an upper one.
"""

from __future__ import annotations

import os
from collections import defaultdict
from collections.abc import Collection
from dataclasses import dataclass

from scrubcheck.matrix.verdicts import ERROR, FAIL, LEAK, SHOULD, verdict
from scrubcheck.reports.analysis import reproductions
from scrubcheck.results import RunResult, ScenarioResult, Verdict

FAILING = (LEAK, FAIL, SHOULD, ERROR)


@dataclass(frozen=True)
class FailureClass:
    verdict: str  # the worst verdict in the class (LEAK first)
    rules: str  # the rules its scenarios fail, e.g. "R-LEAK-1 · R-TAG-1" ("" for a lost task)
    area: str
    family: str  # the generating recipe's id ("gen-split"), "" for hand-written scenarios
    scenarios: int  # failing scenarios in the class
    example: str  # the shortest failing scenario
    size: int  # characters in its smallest failing chunking (0: unknown)
    command: str  # reproduces the example


def failure_classes(run: RunResult, only: Collection[str] | None = None
                    ) -> list[FailureClass]:
    """The run's failure classes, most scenarios first (leaks before others on ties);
    with `only`, of those scenario ids alone (a conformance class's, SPEC section 12).
    Families are found over the whole run either way, so a recipe keeps its name when
    only some of its scenarios are counted."""
    families = _families(run.results)
    groups: dict[tuple[Verdict, str, str, str], list[ScenarioResult]] = defaultdict(list)
    for result in run.results:
        if only is not None and result.scenario_id not in only:
            continue
        judged = verdict(result)
        if judged not in FAILING:
            continue
        rules = " · ".join(sorted({f.rule for f in result.failures}))
        family = families.get((result.file, result.line), "")
        groups[(judged, rules, result.area, family)].append(result)
    classes = []
    for (judged, rules, area, family), members in groups.items():
        size, example, command = min(_example(r) for r in members)
        classes.append(FailureClass(judged, rules, area, family, len(members), example,
                                    size if size < 10**9 - 1 else 0, command))
    order: dict[str, int] = {v: i for i, v in enumerate(FAILING)}
    return sorted(classes, key=lambda c: (-c.scenarios, order[c.verdict], c.area, c.family,
                                          c.rules))


def _families(results: list[ScenarioResult]) -> dict[tuple[str, int], str]:
    """(file, line) -> recipe id, for the recipes that expanded into several scenarios."""
    ids: dict[tuple[str, int], list[str]] = defaultdict(list)
    for result in results:
        ids[(result.file, result.line)].append(result.scenario_id)
    families = {}
    for where, names in ids.items():
        prefix = os.path.commonprefix(names).rstrip("-_") if len(names) > 1 else ""
        if prefix:  # recipe ids are PREFIX-<suffix>: no common prefix, no recipe
            families[where] = prefix
    return families


def _example(result: ScenarioResult) -> tuple[int, str, str]:
    """(size, id, command) of a failing scenario's smallest reproduction; a scenario
    without failures (a lost task) sorts last and is reproduced by its reason."""
    if not result.failures:
        replay = (result.reason or "").partition("; replay: ")[2]
        return 10**9, result.scenario_id, replay
    repro = reproductions(result)[0].failure
    return sum(map(len, repro.deltas)) or 10**9 - 1, result.scenario_id, repro.replay

