"""Turning one schema-valid YAML mapping into a Scenario."""

from __future__ import annotations

from collections.abc import Mapping

from scrubcheck.corpus.fields import mapping, mappings, text, texts, texts_or_none
from scrubcheck.model import Context, Scenario
from scrubcheck.vocabulary import custom_delimiters


def context_from(raw: Mapping[str, object] | None) -> Context:
    """A Context from the optional `context` mapping (absent keys take SPEC defaults)."""
    raw = raw or {}
    return Context(
        starts_in_reasoning=bool(raw.get("starts_in_reasoning", False)),
        inline_answer=bool(raw.get("inline_answer", False)),
        finish_reason=text(raw, "finish_reason", "stop"),
        features=texts(raw, "features"),
        may_skip_reasoning=bool(raw.get("may_skip_reasoning", False)),
        delimiters=custom_delimiters(mappings(raw, "delimiters")),
    )


def scenario_from(item: Mapping[str, object], area: str, file: str, line: int) -> Scenario:
    """The Scenario of a mapping that already passed the schema."""
    return Scenario(
        id=str(item["id"]),
        area=area,
        rules=texts(item, "rules"),
        description=str(item["description"]),
        deltas=texts(item, "deltas"),
        reasoning=texts(item, "reasoning"),
        context=context_from(mapping(item, "context")),
        visible=text(item, "visible"),
        acceptable=texts_or_none(item, "acceptable"),
        source=text(item, "source"),
        labels=texts(item, "labels"),
        file=file,
        line=line,
    )
