"""The corpus JSON Schema, and the corpus's words for its errors (scrubcheck.schema_words)."""

from __future__ import annotations

import json
from functools import cache
from importlib import resources

from jsonschema import Draft202012Validator

from scrubcheck.schema_words import Problem, Wording, path_words, problems_of

EXPECTATION_KEYS: tuple[str, ...] = ("visible", "acceptable", "invariants_only")


@cache
def corpus_schema() -> dict:
    """The shipped draft 2020-12 schema of one corpus file."""
    text = resources.files("scrubcheck.corpus").joinpath("scenario.schema.json").read_text("utf-8")
    return json.loads(text)


@cache
def _item_validator() -> Draft202012Validator:
    schema = corpus_schema()
    item_schema = {"$defs": schema["$defs"], "$ref": "#/$defs/item"}
    return Draft202012Validator(item_schema)


def validate_item(item: object) -> list[Problem]:
    """Every schema violation of one list item (scenario or family entry), in words."""
    return problems_of(_item_validator(), item, wording=WORDING)


def _pattern_message(path: tuple[object, ...], value: object) -> str:
    if path and path[0] == "rules":
        return f"rule {value!r} is not a SPEC rule id (R-AREA-N, e.g. R-BLOCK-1)"
    field = path_words(path)
    return (f"{field} {value!r} is not a slug "
            "(lowercase letters and digits in words joined by single hyphens)")


def _expectation_message(item: object) -> str:
    present = [k for k in EXPECTATION_KEYS if isinstance(item, dict) and k in item]
    if not present:
        return "no expectation key: give exactly one of visible, acceptable, invariants_only"
    return f"several expectation keys ({', '.join(present)}): give exactly one"


#: how corpus errors name their parts
WORDING = Wording("a scenario", _pattern_message, _expectation_message)
