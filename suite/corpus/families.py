"""Generated scenario families: the registry, and expansion of a generated.yaml entry.

An entry `{family, id, rules, description, params}` becomes one scenario per
generated case, with id `PREFIX-<suffix>`, the entry's rules, and the entry's
file and line, so an error in a generated scenario points at its recipe.
"""

from __future__ import annotations

from collections.abc import Mapping

from jsonschema import Draft202012Validator

from scrubcheck.corpus import (
    family_case,
    family_containers,
    family_harmony,
    family_long,
    family_shapes,
    family_skip,
    family_split,
    family_unclosed,
)
from scrubcheck.corpus.family_base import Family
from scrubcheck.corpus.fields import mapping, text, texts
from scrubcheck.corpus.schema import WORDING
from scrubcheck.corpus.semantics import check_rules
from scrubcheck.model import Scenario
from scrubcheck.schema_words import Problem, problems_of

FAMILIES: dict[str, Family] = {
    f.name: f
    for f in (
        family_split.FAMILY,
        family_case.ASCII_FAMILY,
        family_case.NON_ASCII_FAMILY,
        family_shapes.SHAPES_FAMILY,
        family_shapes.CROSS_FAMILY,
        family_shapes.PREFILL_FAMILY,
        family_shapes.TOOL_ENDS_FAMILY,
        family_containers.FAMILY,
        family_unclosed.FAMILY,
        family_skip.FAMILY,
        family_harmony.FAMILY,
        family_long.FAMILY,
    )
}


def expand(entry: Mapping[str, object], area: str, file: str,
           line: int) -> tuple[list[Scenario], list[Problem]]:
    """The scenarios of a schema-valid family entry, or the problems that prevent them."""
    name = str(entry["family"])
    family = FAMILIES.get(name)
    if family is None:
        known = ", ".join(sorted(FAMILIES))
        return [], [Problem(("family",), f"unknown family {name!r} (known: {known})")]
    params = mapping(entry, "params") or {}
    validator = Draft202012Validator(dict(family.params_schema))
    problems = check_rules(texts(entry, "rules"))
    problems += problems_of(validator, params, prefix=("params",), wording=WORDING)
    if problems:
        return [], problems
    prefix = str(entry["id"])
    labels = texts(entry, "labels")
    scenarios = []
    for g in family.build(params):
        scenarios.append(Scenario(
            id=f"{prefix}-{g.suffix}",
            area=area,
            rules=texts(entry, "rules"),
            description=f"{entry['description']} Case: {g.detail}.",
            deltas=g.deltas,
            reasoning=g.reasoning,
            context=g.context,
            visible=g.visible,
            acceptable=g.acceptable,
            source=text(entry, "source"),
            labels=tuple(dict.fromkeys((*labels, "generated", f"family:{name}", *g.labels))),
            file=file,
            line=line,
        ))
    return scenarios, []
