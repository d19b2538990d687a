"""The corpus YAML writer reads back as what it wrote, on every corpus file.

`gateway import`, `hunt` and `fuzz` write scenarios with corpus/yamlwriter.py; a
scenario that does not read back exactly would be a different test than the one
found. Two levels: each corpus file's raw entries (families with their params
included) through corpus_yaml and back, and every loaded scenario (family members
included) through scenario_entry, corpus_yaml and the corpus loader back to an equal
Scenario.
"""

from __future__ import annotations

import dataclasses
from collections import defaultdict

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from scrubcheck.corpus import load_corpus
from scrubcheck.corpus.loader import default_corpus_dir
from scrubcheck.corpus.yamlwriter import corpus_yaml, quote, scenario_entry, value_yaml
from scrubcheck.model import Context, Scenario

CORPUS_FILES = sorted(default_corpus_dir().glob("*.yaml"))


def test_the_corpus_files_are_found():
    assert len(CORPUS_FILES) >= 10


@pytest.mark.parametrize("path", CORPUS_FILES, ids=lambda p: p.name)
def test_every_corpus_file_reads_back_through_the_writer(path):
    entries = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert yaml.safe_load(corpus_yaml(entries)) == entries


def test_every_scenario_reads_back_through_the_writer(tmp_path, monkeypatch):
    monkeypatch.setenv("SCRUBCHECK_CORPUS_MAX_BYTES", str(64 << 20))  # long-stream members
    corpus = load_corpus()
    by_area: dict[str, list[Scenario]] = defaultdict(list)
    for scenario in corpus.scenarios:
        by_area[scenario.area].append(scenario)
    for area, scenarios in by_area.items():
        text = corpus_yaml(scenario_entry(s) for s in scenarios)
        (tmp_path / f"{area}.yaml").write_text(text, encoding="utf-8")
    again = load_corpus([tmp_path])
    assert again.errors == []

    def unplaced(s: Scenario) -> Scenario:
        return dataclasses.replace(s, file="", line=0)

    assert [unplaced(s) for s in again.scenarios] == [unplaced(s) for s in corpus.scenarios]


def test_a_scenario_with_every_context_key_reads_back(tmp_path):
    context = Context(starts_in_reasoning=True, inline_answer=True, finish_reason=None,
                      features=("channels",), may_skip_reasoning=True,
                      delimiters=({"open": "<reflect>", "close": "</reflect>"},
                                  {"marker": "@@"}))
    scenario = Scenario(id="vocabulary-all-context", area="vocabulary", rules=("R-CTX-1",),
                        description="every key", deltas=("a\r\n", " b "), reasoning=(),
                        context=context, acceptable=("a\r\n b ", "b"), labels=("yes", "x"))
    path = tmp_path / "vocabulary.yaml"
    path.write_text(corpus_yaml([scenario_entry(scenario)]), encoding="utf-8")
    (read,) = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert read["context"]["finish_reason"] is None
    assert read["labels"] == ["yes", "x"]  # quoted: bare `yes` would read as True
    assert read["acceptable"] == ["a\r\n b ", "b"]


def test_identifiers_are_bare_and_words_yaml_would_change_are_quoted():
    assert value_yaml("rules", ["R-LEAK-1"]) == "[R-LEAK-1]"
    assert value_yaml("labels", ["off", "null", "1.5", "a b"]) == '["off", "null", "1.5", "a b"]'
    assert value_yaml("params", {"ratio": 1e-05, "n": 3}) == "{ratio: 1.0e-05, n: 3}"
    assert yaml.safe_load(value_yaml("params", {"ratio": 1e-05})) == {"ratio": 1e-05}


@given(st.text())
def test_any_string_reads_back_exactly(text):
    assert yaml.safe_load(quote(text)) == text
    assert yaml.safe_load(value_yaml("id", text)) == text
