"""Typed reads of a YAML mapping that already passed its JSON schema.

The schema guarantees each field's type; these readers state it to the type checker, one
per JSON type the corpus uses, and raise TypeError should the schema and the code ever
disagree, instead of letting a wrong value travel into a scenario.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TypeGuard


def _wrong(key: str, value: object, wanted: str) -> TypeError:
    return TypeError(f"{key!r} is {type(value).__name__} {value!r}, the schema says {wanted}")


def _is_object(value: object) -> TypeGuard[Mapping[str, object]]:
    return isinstance(value, Mapping) and all(isinstance(k, str) for k in value)


def integer(raw: Mapping[str, object], key: str, default: int | None = None) -> int:
    """A JSON integer (which JSON Schema lets be written 3.0); required without default."""
    value = raw.get(key, default)
    if (isinstance(value, bool) or not isinstance(value, int | float)
            or isinstance(value, float) and not value.is_integer()):
        raise _wrong(key, value, "an integer")
    return int(value)


def integers(raw: Mapping[str, object], key: str) -> tuple[int, ...]:
    """An array of integers, as a tuple."""
    value = raw.get(key, ())
    if not isinstance(value, list | tuple):
        raise _wrong(key, value, "an array of integers")
    return tuple(integer({key: v}, key) for v in value)


def text(raw: Mapping[str, object], key: str, default: str | None = None) -> str | None:
    """A string, or default (None unless given) where the key is absent or null."""
    value = raw.get(key, default)
    if value is not None and not isinstance(value, str):
        raise _wrong(key, value, "a string")
    return value


def texts(raw: Mapping[str, object], key: str,
          default: Sequence[str] = ()) -> tuple[str, ...]:
    """An array of strings, as a tuple."""
    value = raw.get(key, default)
    if not isinstance(value, list | tuple) or not all(isinstance(v, str) for v in value):
        raise _wrong(key, value, "an array of strings")
    return tuple(value)


def texts_or_none(raw: Mapping[str, object], key: str) -> tuple[str, ...] | None:
    """An optional array of strings: None where the key is absent or null."""
    return None if raw.get(key) is None else texts(raw, key)


def mapping(raw: Mapping[str, object], key: str) -> Mapping[str, object] | None:
    """An object, or None where the key is absent or null."""
    value = raw.get(key)
    if value is None:
        return None
    if not _is_object(value):
        raise _wrong(key, value, "an object")
    return value


def mappings(raw: Mapping[str, object], key: str,
             default: Sequence[Mapping[str, object]] = ()) -> tuple[Mapping[str, object], ...]:
    """An array of objects, as a tuple."""
    value = raw.get(key, default)
    if not isinstance(value, list | tuple) or not all(_is_object(v) for v in value):
        raise _wrong(key, value, "an array of objects")
    return tuple(value)
