"""The corpus JSON Schema, and jsonschema errors put into words a corpus author can act on."""

from __future__ import annotations

import difflib
import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources

from jsonschema import Draft202012Validator, ValidationError

EXPECTATION_KEYS: tuple[str, ...] = ("visible", "acceptable", "invariants_only")

_TYPE_WORDS = {
    "object": "a mapping",
    "array": "a list",
    "string": "a string",
    "boolean": "true or false",
    "integer": "an integer",
    "number": "a number",
    "null": "null",
}


@dataclass(frozen=True)
class Problem:
    """One thing wrong with an item: `path` locates it inside the item (for its line)."""

    path: tuple[object, ...]
    message: str


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
    return problems_of(_item_validator(), item)


def problems_of(validator: Draft202012Validator, instance: object,
                prefix: tuple[object, ...] = ()) -> list[Problem]:
    """The violations `validator` finds in `instance`, in words; paths start with `prefix`."""
    problems: list[Problem] = []
    for error in validator.iter_errors(instance):
        problems.extend(_explain(error, (*prefix, *error.absolute_path)))
    return _dedupe(problems)


def describe_type(value: object) -> str:
    """How a YAML value reads to an author: 'a mapping', 'a string', 'null'..."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number"
    return f"a {type(value).__name__}"


def path_words(path: Sequence[object]) -> str:
    """['context', 'features', 2] -> 'context.features[2]'."""
    out = ""
    for step in path:
        if isinstance(step, int):
            out += f"[{step}]"
        else:
            out += f".{step}" if out else str(step)
    return out or "the scenario"


def _explain(error: ValidationError, path: tuple[object, ...]) -> Iterator[Problem]:
    where = path_words(path)
    kind = error.validator
    instance = error.instance
    schema = error.schema if isinstance(error.schema, dict) else {}
    if kind == "additionalProperties":
        allowed = sorted(schema.get("properties", {}))
        for key in instance if isinstance(instance, dict) else {}:
            if key not in allowed:
                inside = f" in {where}" if path else ""
                close = difflib.get_close_matches(str(key), allowed, n=1)
                hint = f" (did you mean {close[0]!r}?)" if close else ""
                yield Problem((*path, key), f"unknown key {key!r}{inside}{hint}")
    elif kind == "required":
        for key in _listed(error.validator_value):
            if isinstance(instance, dict) and key not in instance:
                inside = f" in {where}" if path else ""
                yield Problem(path, f"missing key {key!r}{inside}")
    elif kind == "oneOf" and not path:
        if isinstance(instance, dict):  # a non-mapping already has its type error
            yield Problem(path, _expectation_message(instance))
    elif kind == "type":
        yield Problem(path, _type_message(error, where, path))
    elif kind == "pattern":
        yield Problem(path, _pattern_message(path, instance))
    elif kind == "minItems" and error.validator_value == 1:
        yield Problem(path, f"{where} must not be empty")
    elif kind == "minLength":
        yield Problem(path, f"{where} must not be an empty string")
    elif kind == "uniqueItems":
        yield Problem(path, f"{where} lists the same value twice")
    elif kind == "const":
        yield Problem(path, f"{where} must be {json.dumps(error.validator_value)}, "
                            f"not {_shown(instance)}")
    elif kind == "enum":
        choices = ", ".join("null" if c is None else str(c)
                            for c in _listed(error.validator_value))
        yield Problem(path, f"{where} must be one of {choices}, not {_shown(instance)}")
    else:
        yield Problem(path, f"{where}: {error.message}")


def _listed(value: object) -> list[object]:
    """A schema keyword's value as a list: `type` may name one type or several."""
    return list(value) if isinstance(value, list) else [value]


def _shown(value: object) -> str:
    if isinstance(value, str):
        return repr(value)
    return f"{describe_type(value)} ({json.dumps(value, default=str)})"


def _type_message(error: ValidationError, where: str, path: tuple[object, ...]) -> str:
    names = [str(n) for n in _listed(error.validator_value)]
    wanted = " or ".join(_TYPE_WORDS.get(n, n) for n in names)
    if not path:
        return f"a scenario must be {wanted}, not {describe_type(error.instance)}"
    return f"{where} must be {wanted}, not {describe_type(error.instance)}"


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


def _dedupe(problems: list[Problem]) -> list[Problem]:
    seen: set[tuple[str, str]] = set()
    out = []
    for p in problems:
        key = (repr(p.path), p.message)
        if key not in seen:
            seen.add(key)
            out.append(p)
    return out
