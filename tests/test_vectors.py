"""`scrubcheck export`: the vector set validates against its schemas, is byte-identical for
the same SPEC, corpus and seed, carries the chunkings the harness runs, and says its size."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import jsonschema
import pytest

from scrubcheck.chunking import chunking_by_name, chunking_names
from scrubcheck.cli import main
from scrubcheck.corpus import load_corpus, select
from scrubcheck.vectors import build_vector_set, validate_set
from scrubcheck.vectors.vector_set import VECTORS


@pytest.fixture(scope="module")
def corpus():
    return load_corpus(None)


def _export(tmp_path: Path, name: str, *args: str) -> Path:
    out = tmp_path / name
    assert main(["export", "--out", str(out), *args]) == 0
    return out


def test_export_is_byte_identical_and_validates(tmp_path: Path, capsys) -> None:
    args = ("--area", "code-guard", "--area", "skip", "--area", "unicode")
    first, second = _export(tmp_path, "a", *args), _export(tmp_path, "b", *args)
    for name in ("manifest.json", "vectors.jsonl", "vectors.jsonl.gz"):
        assert (first / name).read_bytes() == (second / name).read_bytes(), name
    manifest = json.loads((first / "manifest.json").read_text(encoding="utf-8"))
    body = (first / VECTORS).read_bytes()
    assert manifest["files"][VECTORS]["sha256"] == hashlib.sha256(body).hexdigest()
    assert manifest["files"][VECTORS]["bytes"] == len(body)
    assert validate_set(first) == manifest["count"] > 0
    printed = capsys.readouterr().out
    assert f"{len(body):,} bytes" in printed and "gzipped" in printed
    assert manifest["left_out"] == [{"id": "unicode-surrogate-halves-in-separate-deltas",
                                     "reason": manifest["left_out"][0]["reason"]}]
    other = _export(tmp_path, "c", *args, "--seed", "1")
    assert (other / VECTORS).read_bytes() != body  # the seed moves the random chunkings


def test_the_schema_refuses_a_broken_vector(tmp_path: Path) -> None:
    out = _export(tmp_path, "v", "--area", "blocks")
    lines = (out / VECTORS).read_text(encoding="utf-8").split("\n")
    vector = json.loads(lines[1])
    del vector["chunkings"]
    lines[1] = json.dumps(vector)
    (out / VECTORS).write_text("\n".join(lines), encoding="utf-8")
    with pytest.raises(jsonschema.ValidationError, match=r"vectors.jsonl:2: 'chunkings'"):
        validate_set(out)


def _expand(vector: dict, text: str) -> dict[str, list[str]]:
    """The vector's chunkings as the guide reads them."""
    out: dict[str, list[str]] = {}
    for entry in vector["chunkings"]:
        if entry.get("kind") == "splits":
            points = range(1, len(text)) if entry["at"] == "every" else entry["at"]
            out.update({f"split@{k}": [text[:k], text[k:]] for k in points})
        elif "lengths" in entry:
            pieces, at = [], 0
            for length in entry["lengths"]:
                pieces.append(text[at:at + length])
                at += length
            out[entry["name"]] = pieces
        elif "size" in entry:
            out[entry["name"]] = [text[i:i + entry["size"]]
                                  for i in range(0, len(text), entry["size"])]
        else:
            out[entry["name"]] = {"recorded": vector["deltas"], "whole": [text],
                                  "char": list(text),
                                  "recorded+empty": [""] + [p for d in vector["deltas"]
                                                            for p in (d, "")]}[entry["name"]]
    return out


def test_vectors_hold_the_chunkings_the_harness_runs(corpus) -> None:
    chosen = select(corpus.scenarios, areas=["split-tags", "harmony", "truncation"])
    long = [s for s in corpus.scenarios if s.id == "gen-long-64k-d7"]
    vector_set = build_vector_set([*chosen, *long], seed=5)
    assert len(vector_set.lines) == len(chosen) + 1
    for scenario, line in zip([*chosen, *long], vector_set.lines, strict=True):
        vector = json.loads(line)
        vocabulary = scenario.context.vocabulary()
        names, capped = chunking_names(scenario, vocabulary, 5)
        expanded = _expand(vector, scenario.text)
        assert list(expanded) == names, scenario.id
        for name in names:
            assert tuple(expanded[name]) == chunking_by_name(scenario, vocabulary, name, 5).deltas
        for key, count in capped.items():
            assert vector["capped"][key] == count
    assert vector["capped"]["split"] > 0 and vector["truncation"]["cuts"] != "every"


def test_export_refuses_a_corpus_with_errors(tmp_path: Path, capsys) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("scenarios:\n  - id: x\n", encoding="utf-8")
    assert main(["export", "--out", str(tmp_path / "v"), "--corpus", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "bad.yaml" in err and "no vector set written" in err
    assert not (tmp_path / "v").exists()
    assert main(["export", "--out", str(tmp_path / "v"), "--id", "no-such-*"]) == 2
