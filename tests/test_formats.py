"""The format registry (formats/*.yaml): what it reads, what it refuses, and that a
format added as one file reaches every consumer with no code change."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scrubcheck.adapters.load import _CACHE
from scrubcheck.cli import main
from scrubcheck.formats import FormatsUnavailable, read_format_file, registered_formats
from scrubcheck.formats.registry import _registered
from scrubcheck.model import Context
from scrubcheck.scrubbers.reference import ReferenceScrubber
from scrubcheck.specmodel import read_stream
from scrubcheck.vocabulary import (
    FAMILY_NAMES,
    FEATURES,
    _build,
    build_vocabulary,
    conformance_classes,
    register_formats,
)

DATA = Path(__file__).parent / "data"
SNAPSHOT = json.loads((DATA / "vocabulary-spec-1.2.json").read_text(encoding="utf-8"))


def _vocab(features: tuple[str, ...]) -> list:
    v = build_vocabulary(features)
    return [[k, t.text, t.kind.value, sorted(t.names), t.header] for k, t in v.by_folded.items()]


def test_the_registry_gives_spec_1_2s_vocabulary_unchanged() -> None:
    """The move of the default family and every feature into data files changed no tag,
    and the formats added since changed none of SPEC 1.2's: the snapshot was taken from
    the code tables before the move."""
    old_features = list(SNAPSHOT["features"])
    assert list(FAMILY_NAMES) == SNAPSHOT["family_names"]
    assert list(FEATURES)[:len(old_features)] == old_features  # the SPEC table's order
    for name in old_features:
        feature, old = FEATURES[name], SNAPSHOT["features"][name]
        assert [[o, list(c)] for o, c in feature.pairs] == old["pairs"], name
        assert (list(feature.markers), list(feature.ends), feature.header) == (
            old["markers"], old["ends"], old["header"]), name
        assert (feature.description, feature.sample) == (old["description"], old["sample"])
    for key, expected in SNAPSHOT["vocabularies"].items():
        features = () if key == "" else tuple(old_features) if key == "*" else (key,)
        assert _vocab(features) == expected, key


def _write(folder: Path, name: str, body: str) -> Path:
    path = folder / f"{name}.yaml"
    path.write_text(body, encoding="utf-8")
    return path


ACME = """\
format: 1
name: acme-think
title: A throwaway format with a pair, a tool section and a marker
sources:
  - {url: "https://example.org/acme", shows: "made up for a test"}
generic: feature
case: exact
template: {prefills_open: sometimes, may_skip_reasoning: false}
delimiters:
  - {kind: special-token-pair, open: "<|acme_think|>", close: "<|acme_end|>"}
  - {kind: tool-section, open: "<|acme_tool|>", close: "<|acme_tool_end|>"}
  - {kind: marker, text: "<|acme_turn|>"}
"""


@pytest.fixture
def acme(tmp_path: Path):
    """A format added as one file; the registry is put back afterwards."""
    before = dict(_registered)
    features = dict(FEATURES)
    path = _write(tmp_path, "acme-think", ACME)
    register_formats([path])
    _CACHE.clear()  # adapters loaded before read the registry as it was
    yield path
    _CACHE.clear()
    _registered.clear()
    _registered.update(before)
    FEATURES.clear()
    FEATURES.update(features)
    _build.cache_clear()


TEXT = "Hi <|acme_think|>plan the reply<|acme_end|>there<|acme_tool|>call()<|acme_tool_end|>!" \
       "<|acme_turn|> <think>hidden</think>"


def test_an_added_format_reaches_the_reference_and_the_spec_model(acme: Path) -> None:
    assert "acme-think" in conformance_classes() and "acme-think" in FEATURES
    for context, expected in [
        (Context(features=("acme-think",)), "Hi there! "),  # generic class, feature enabled
        (Context(), TEXT.replace("<think>hidden</think>", "")),  # not enabled: literal
        (Context(conformance_class="acme-think"), "Hi there! <think>hidden</think>"),
    ]:
        assert read_stream(TEXT, context).visible == expected, context
        scrubber = ReferenceScrubber(**context.as_kwargs())
        out = "".join(scrubber.feed(c) for c in TEXT) + scrubber.flush()
        assert out == expected, context


def test_an_added_format_reaches_lint_and_run(acme: Path, tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["lint", "--formats", str(acme)]) == 0
    assert f"{len(registered_formats())} formats loaded, 0 errors" in capsys.readouterr().out
    corpus = tmp_path / "acme.yaml"
    corpus.write_text(
        "- id: acme-block\n  rules: [R-VOCAB-3]\n  description: an acme block\n"
        f"  deltas: [{json.dumps(TEXT)}]\n  visible: \"Hi there! \"\n"
        "  reasoning: [plan the reply]\n  context: {features: [acme-think]}\n",
        encoding="utf-8")
    assert main(["run", "--scrubber", "reference", "--corpus", str(corpus), "--no-linear",
                 "--jobs", "1", "--no-progress"]) == 0
    assert "PASS 1" in capsys.readouterr().out


def test_an_added_format_reaches_the_generators_and_the_matrix(
        acme: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """No code change: its generated scenarios exist and the matrix judges them."""
    from scrubcheck.corpus import load_corpus

    generated = [s for s in load_corpus().scenarios if "acme-think" in s.id]
    ids = {s.id for s in generated}
    assert {"gen-split-feature-acme-think-1-open-3", "gen-case-feature-acme-think-1-upper-open",
            "gen-prefill-acme-think-1-plain"} <= ids, sorted(ids)[:20]
    out = tmp_path / "matrix"
    assert main(["matrix", "--no-peers", "--formats", str(acme), "--id", "*acme-think*",
                 "--quick", "--jobs", "1", "--no-progress", "--out", str(out)]) == 0
    data = json.loads((out / "matrix.json").read_text(encoding="utf-8"))
    (row,) = [r for r in data["rows"] if r["name"] == "reference"]
    assert set(row["verdicts"]) == ids
    assert set(row["verdicts"].values()) == {"PASS"}


@pytest.mark.parametrize("body, line, message", [
    (ACME.replace("generic: feature", "generic: sometimes"), 6, "generic must be one of"),
    (ACME + "colour: red\n", 13, "unknown key 'colour'"),
    (ACME.replace("name: acme-think", "name: acme"), 2, "must be in a file named acme.yaml"),
    (ACME.replace('"<|acme_turn|>"', '"<|acme_think|>"'), 12, "already a delimiter"),
    (ACME.replace('"<|acme_turn|>"', '"`x"'), 12, "must not hold a backtick"),
    (ACME.replace("template: {", "template: &t {"), 8, "anchor &t refused: format files"),
    (ACME.replace("https://example.org/acme", "http://example.org"), 5, "not an https://"),
])
def test_a_bad_format_file_is_refused_at_its_line(tmp_path: Path, body: str, line: int,
                                                  message: str) -> None:
    path = _write(tmp_path, "acme-think", body)
    found, errors = read_format_file(path)
    assert found is None and errors, body
    assert any(e.line == line and message in e.message for e in errors), errors
    with pytest.raises(FormatsUnavailable) as exc:
        register_formats([path])
    assert f"{path}:{line}:" in str(exc.value)


def test_a_format_that_clashes_with_the_registry_is_refused(tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]
                                                            ) -> None:
    """`<thi` is a proper prefix of the default family's `<think>`: with both in one
    vocabulary the longer could never match (SPEC R-VOCAB-3)."""
    clash = _write(tmp_path, "acme-think", ACME.replace('"<|acme_turn|>"', '"<thi"'))
    assert main(["lint", "--formats", str(clash)]) == 2
    out = capsys.readouterr().out
    assert f"{clash}:1: with the default family and every other feature" in out
    assert "'<thi' is a prefix of '<think>'" in out
    with pytest.raises(FormatsUnavailable):
        register_formats([clash])
    assert "acme-think" not in registered_formats()


def test_a_user_format_may_not_redefine_a_shipped_one(tmp_path: Path) -> None:
    copy = _write(tmp_path, "bracket", ACME.replace("acme-think", "bracket"))
    with pytest.raises(FormatsUnavailable, match="already defined at"):
        register_formats([copy])


def test_every_shipped_format_cites_a_source_and_lints_clean(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["lint"]) == 0
    assert f"{len(registered_formats())} formats loaded, 0 errors" in capsys.readouterr().out
    assert all(f.sources for f in registered_formats().values())
