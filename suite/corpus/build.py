"""Turning one schema-valid YAML mapping into a Scenario."""

from __future__ import annotations

from collections.abc import Mapping

from scrubcheck.model import Context, Scenario
from scrubcheck.vocabulary import custom_delimiters


def context_from(raw: Mapping[str, object] | None) -> Context:
    """A Context from the optional `context` mapping (absent keys take SPEC defaults)."""
    raw = raw or {}
    return Context(
        starts_in_reasoning=bool(raw.get("starts_in_reasoning", False)),
        inline_answer=bool(raw.get("inline_answer", False)),
        finish_reason=raw.get("finish_reason", "stop"),
        features=tuple(raw.get("features", ())),
        may_skip_reasoning=bool(raw.get("may_skip_reasoning", False)),
        delimiters=custom_delimiters(raw.get("delimiters", ())),
    )


def scenario_from(item: Mapping[str, object], area: str, file: str, line: int) -> Scenario:
    """The Scenario of a mapping that already passed the schema."""
    acceptable = item.get("acceptable")
    return Scenario(
        id=str(item["id"]),
        area=area,
        rules=tuple(item["rules"]),
        description=str(item["description"]),
        deltas=tuple(item["deltas"]),
        reasoning=tuple(item["reasoning"]),
        context=context_from(item.get("context")),
        visible=item.get("visible"),
        acceptable=tuple(acceptable) if acceptable is not None else None,
        source=item.get("source"),
        labels=tuple(item.get("labels", ())),
        file=file,
        line=line,
    )
