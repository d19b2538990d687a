"""The shipped JSON Schema: valid, in step with the model and README, strict where it must be."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from scrubcheck.corpus import default_corpus_dir
from scrubcheck.corpus.schema import corpus_schema, validate_item
from scrubcheck.model import FINISH_REASONS, Context, Scenario
from scrubcheck.yamlsource import parse_yaml

README = Path(__file__).resolve().parents[1] / "corpora" / "README.md"


def _scenario(**changes: object) -> dict[str, object]:
    item: dict[str, object] = {"id": "ok", "rules": ["R-BLOCK-1"], "description": "d",
                               "deltas": ["x"], "visible": "x", "reasoning": []}
    item.update(changes)
    return {k: v for k, v in item.items() if v is not None}


def test_schema_is_a_valid_draft_2020_12_schema() -> None:
    schema = corpus_schema()
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    Draft202012Validator.check_schema(schema)


def test_schema_context_matches_the_model() -> None:
    context = corpus_schema()["$defs"]["context"]
    # every field but the conformance class, which the harness sets when it judges a
    # scenario in a class (SPEC section 12), never a corpus author
    assert set(context["properties"]) == {f.name for f in dataclasses.fields(Context)
                                          if f.name != "conformance_class"}
    assert context["properties"]["finish_reason"]["enum"] == list(FINISH_REASONS)
    assert context["additionalProperties"] is False


def test_schema_scenario_keys_match_the_model() -> None:
    scenario = corpus_schema()["$defs"]["scenario"]
    model_keys = {f.name for f in dataclasses.fields(Scenario)} - {"area", "file", "line"}
    assert set(scenario["properties"]) == model_keys | {"invariants_only"}
    assert scenario["additionalProperties"] is False


def test_schema_keys_are_the_readme_keys() -> None:
    """The README example documents every key; the schema allows exactly those."""
    text = README.read_text(encoding="utf-8")
    example = text.split("```yaml", 1)[1].split("```", 1)[0]
    documented = set(re.findall(r"^\s*-?\s*([a-z_]+):", example, flags=re.MULTILINE))
    documented |= {"acceptable", "invariants_only"}
    scenario = corpus_schema()["$defs"]["scenario"]
    context = corpus_schema()["$defs"]["context"]
    assert documented == set(scenario["properties"]) | set(context["properties"]) | {"context"}


def test_shipped_files_validate_as_whole_documents() -> None:
    validator = Draft202012Validator(corpus_schema())
    for path in sorted(default_corpus_dir().glob("*.yaml")):
        data = parse_yaml(path.read_text(encoding="utf-8"))
        errors = [e.message for e in validator.iter_errors(data)]
        assert errors == [], path.name


@pytest.mark.parametrize(("changes", "message"), [
    ({"id": "-lead"}, "is not a slug"),
    ({"id": "double--hyphen"}, "is not a slug"),
    ({"rules": []}, "rules must not be empty"),
    ({"rules": ["R-BLOCK-1", "R-BLOCK-1"]}, "rules lists the same value twice"),
    ({"description": ""}, "description must not be an empty string"),
    ({"deltas": ["a", 3]}, "deltas[1] must be a string, not an integer"),
    ({"reasoning": [""]}, "reasoning[0] must not be an empty string"),
    ({"invariants_only": False, "visible": None}, "invariants_only must be true, not a boolean"),
    ({"acceptable": [], "visible": None}, "acceptable must not be empty"),
    ({"context": {"features": "bracket"}}, "context.features must be a list, not a string"),
    ({"context": {"inline_answer": "yes"}}, "context.inline_answer must be true or false"),
    ({"context": {"colour": 1}}, "unknown key 'colour' in context"),
    ({"labels": "x"}, "labels must be a list, not a string"),
])
def test_schema_problems_in_words(changes: dict[str, object], message: str) -> None:
    messages = [p.message for p in validate_item(_scenario(**changes))]
    assert any(message in m for m in messages), messages


def test_a_correct_scenario_has_no_problems() -> None:
    assert validate_item(_scenario()) == []
    assert validate_item(_scenario(visible=None, acceptable=["a", "b"])) == []
    assert validate_item(_scenario(visible=None, invariants_only=True,
                                   context={"finish_reason": None})) == []


def test_family_entries_use_their_own_schema() -> None:
    entry = {"family": "long-stream", "id": "gen-x", "rules": ["R-ROBUST-2"], "description": "d"}
    assert validate_item(entry) == []
    messages = [p.message for p in validate_item({**entry, "deltas": ["x"]})]
    assert messages == ["unknown key 'deltas'"]
    assert [p.message for p in validate_item({"family": "long-stream"})] == [
        "missing key 'id'", "missing key 'rules'", "missing key 'description'"]
