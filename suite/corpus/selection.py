"""Choosing a subset of the corpus by area, rule, feature or id (globs allowed)."""

from __future__ import annotations

from collections.abc import Iterable
from fnmatch import fnmatchcase

from scrubcheck.model import Scenario


def _matches(value: str, patterns: Iterable[str]) -> bool:
    return any(fnmatchcase(value, p) for p in patterns)


def select(
    scenarios: Iterable[Scenario],
    areas: Iterable[str] | None = None,
    rules: Iterable[str] | None = None,
    features: Iterable[str] | None = None,
    ids: Iterable[str] | None = None,
) -> list[Scenario]:
    """Scenarios passing every given filter, in corpus order.

    Within one filter the values are alternatives: `rules=["R-CODE-*"]` keeps a
    scenario that exercises any code rule; `features` keeps scenarios that enable
    any of them. `ids` and `rules` accept fnmatch globs; areas and features are exact.
    """
    area_set = set(areas) if areas is not None else None
    rule_list = list(rules) if rules is not None else None
    feature_set = set(features) if features is not None else None
    id_list = list(ids) if ids is not None else None
    chosen = []
    for s in scenarios:
        if area_set is not None and s.area not in area_set:
            continue
        if rule_list is not None and not any(_matches(r, rule_list) for r in s.rules):
            continue
        if feature_set is not None and not feature_set.intersection(s.context.features):
            continue
        if id_list is not None and not _matches(s.id, id_list):
            continue
        chosen.append(s)
    return chosen
