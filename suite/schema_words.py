"""jsonschema errors put into words a data-file author can act on.

The corpus and the format registry are both YAML files written by hand and
checked against a JSON Schema; an author needs "unknown key 'visibel' (did you mean
'visible'?)" at a line, not a validator's path dump. What differs between the two
kinds of file (what a top-level item is called, what a pattern stands for, what a
`oneOf` at the top means) is given by a `Wording`.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from jsonschema import Draft202012Validator, ValidationError

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


def _default_pattern(path: tuple[object, ...], value: object) -> str:
    return f"{path_words(path, 'the item')} {value!r} does not have the required form"


@dataclass(frozen=True)
class Wording:
    """How one kind of file names its parts in messages."""

    #: what a top-level item is, with its article ("a scenario", "a format")
    subject: str = "an item"
    #: the message for a value that does not match its schema pattern
    pattern: Callable[[tuple[object, ...], object], str] = _default_pattern
    #: the message for a top-level item that matches none of a `oneOf` (None: generic)
    one_of: Callable[[object], str] | None = None

    @property
    def whole(self) -> str:
        """The item itself in a path ("the scenario")."""
        return "the " + self.subject.split(" ", 1)[-1]


def problems_of(validator: Draft202012Validator, instance: object,
                prefix: tuple[object, ...] = (), wording: Wording = Wording()) -> list[Problem]:
    """The violations `validator` finds in `instance`, in words; paths start with `prefix`."""
    problems: list[Problem] = []
    for error in validator.iter_errors(instance):
        problems.extend(_explain(error, (*prefix, *error.absolute_path), wording))
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


def path_words(path: Sequence[object], whole: str = "the scenario") -> str:
    """['context', 'features', 2] -> 'context.features[2]'."""
    out = ""
    for step in path:
        if isinstance(step, int):
            out += f"[{step}]"
        else:
            out += f".{step}" if out else str(step)
    return out or whole


def _explain(error: ValidationError, path: tuple[object, ...],
             wording: Wording) -> Iterator[Problem]:
    where = path_words(path, wording.whole)
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
    elif kind == "oneOf" and not path and wording.one_of is not None:
        if isinstance(instance, dict):  # a non-mapping already has its type error
            yield Problem(path, wording.one_of(instance))
    elif kind == "type":
        yield Problem(path, _type_message(error, where, path, wording))
    elif kind == "pattern":
        yield Problem(path, wording.pattern(path, instance))
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


def _type_message(error: ValidationError, where: str, path: tuple[object, ...],
                  wording: Wording) -> str:
    names = [str(n) for n in _listed(error.validator_value)]
    wanted = " or ".join(_TYPE_WORDS.get(n, n) for n in names)
    if not path:
        return f"{wording.subject} must be {wanted}, not {describe_type(error.instance)}"
    return f"{where} must be {wanted}, not {describe_type(error.instance)}"


def _dedupe(problems: list[Problem]) -> list[Problem]:
    seen: set[tuple[str, str]] = set()
    out = []
    for p in problems:
        key = (repr(p.path), p.message)
        if key not in seen:
            seen.add(key)
            out.append(p)
    return out
