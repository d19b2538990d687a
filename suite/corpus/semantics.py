"""Checks a schema cannot express: SPEC rule ids, feature names, reasoning strings."""

from __future__ import annotations

from scrubcheck.corpus.overlap import overlaps
from scrubcheck.model import Scenario
from scrubcheck.schema_words import Problem
from scrubcheck.spec import RULES, SPEC_VERSION
from scrubcheck.vocabulary import FEATURES, DelimiterError


def check_rules(rules: tuple[str, ...]) -> list[Problem]:
    """Rule ids that SPEC does not define."""
    return [
        Problem(("rules", i), f"unknown rule {rule!r} (not in SPEC {SPEC_VERSION})")
        for i, rule in enumerate(rules)
        if rule not in RULES
    ]


def check_scenario(scenario: Scenario) -> list[Problem]:
    """Everything wrong with a schema-valid scenario, located by its key path."""
    problems = check_rules(scenario.rules)
    for i, feature in enumerate(scenario.context.features):
        if feature not in FEATURES:
            known = ", ".join(sorted(FEATURES))
            problems.append(Problem(("context", "features", i),
                                    f"unknown feature {feature!r} (known: {known})"))
    if scenario.context.delimiters and not problems:
        try:  # SPEC R-CUSTOM-1: an unusable configuration is no scenario
            scenario.context.vocabulary()
        except DelimiterError as exc:
            problems.append(Problem(("context", "delimiters"), f"unusable delimiters: {exc}"))
    text = scenario.text
    present = []
    for i, reasoning in enumerate(scenario.reasoning):
        if reasoning in text:
            present.append(i)
        else:
            problems.append(Problem(("reasoning", i),
                                    f"reasoning {_short(reasoning)} does not occur in the "
                                    "joined deltas"))
    reported: set[int] = set()
    for j, output in enumerate(scenario.expected_outputs or ()):
        which = "visible" if scenario.visible is not None else f"acceptable[{j}]"
        hits = overlaps([scenario.reasoning[i] for i in present], output)
        for k, piece in hits.items():
            i = present[k]
            if i not in reported:
                reported.add(i)
                problems.append(Problem(("reasoning", i),
                                        f"reasoning {_short(scenario.reasoning[i])} overlaps "
                                        f"{which} (shares {piece!r}): a leak could not be proven"))
    return problems


def _short(text: str, limit: int = 40) -> str:
    return repr(text if len(text) <= limit else text[: limit - 3] + "...")
