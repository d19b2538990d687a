"""What a generated family is: named parameters in, scenario bodies out."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from scrubcheck.model import Context


@dataclass(frozen=True)
class Generated:
    """One generated scenario before it gets its id prefix, rules and location."""

    suffix: str
    detail: str
    deltas: tuple[str, ...]
    reasoning: tuple[str, ...]
    visible: str | None = None
    acceptable: tuple[str, ...] | None = None
    context: Context = field(default_factory=Context)
    labels: tuple[str, ...] = ()


@dataclass(frozen=True)
class Family:
    """A named generator. `params_schema` is a JSON Schema for the entry's `params`."""

    name: str
    summary: str
    params_schema: Mapping[str, object]
    build: Callable[[Mapping[str, object]], Iterable[Generated]]


def params_schema(properties: Mapping[str, object]) -> dict[str, object]:
    """A closed object schema: every parameter optional, no others allowed."""
    return {"type": "object", "additionalProperties": False, "properties": dict(properties)}
