"""Observed peer behaviours live in the peers' manifests; the matrix reads them from there.

Every claim names scenarios that exist, a bad `[[observed]]` table is refused
with its file and entry named, and the matrix pages can be rendered again from
matrix.json with today's claims and nothing run.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scrubcheck.cli import main
from scrubcheck.corpus import load_corpus
from scrubcheck.matrix.markdown import render_markdown
from scrubcheck.matrix.observed import EVERY_PEER, shipped_observed
from scrubcheck.matrix.rows import observed_checks
from scrubcheck.matrix.stored import StoredMatrixError, load_stored_matrix
from scrubcheck.peers import ManifestError, load_manifest, shipped_manifests
from scrubcheck.peers.manifest import shared_observations
from scrubcheck.peers.observed import ObservationError, load_shared_observations

ROOT = Path(__file__).resolve().parent.parent
STORED = ROOT / "reports" / "matrix.json"

MANIFEST = """name = "demo"
title = "Demo"
kind = "streaming scrubber"
entry = "demo.Scrubber"
program = "adapter.py"

[package]
ecosystem = "pypi"
name = "demo-pkg"
version = "1.2.3"
"""


def _manifest(tmp_path: Path, observed: str) -> Path:
    """The demo manifest with `observed` appended (a plain key goes before [package])."""
    folder = tmp_path / "demo"
    folder.mkdir()
    (folder / "adapter.py").write_text("print('x')\n")
    path = folder / "peer.toml"
    text = (observed + MANIFEST if not observed.startswith("[[")
            else MANIFEST + "\n" + observed)
    path.write_text(text)
    return path


def test_every_claim_names_scenarios_and_controls_that_exist():
    ids = set(load_corpus().by_id())
    claims = shipped_observed()
    assert len([c for c in claims if c.peer == EVERY_PEER]) == len(shared_observations()) == 3
    assert len(claims) >= 25
    for observed in claims:
        missing = [s for s in observed.claim.scenarios if s not in ids]
        assert not missing, (observed.peer, observed.claim.behaviour, missing)
        if observed.peer == EVERY_PEER:
            assert observed.claim.control in ids, observed.claim.behaviour
    peers = {m.name for m in shipped_manifests()}
    assert {c.peer for c in claims} - {EVERY_PEER} <= peers


def test_a_manifest_claim_loads_with_its_defaults(tmp_path):
    manifest = load_manifest(_manifest(tmp_path, '[[observed]]\nbehaviour = "drops x"\n'
                                                  'scenarios = ["a", "b"]\n'))
    (claim,) = manifest.observed
    assert (claim.behaviour, claim.scenarios, claim.expect, claim.note) == (
        "drops x", ("a", "b"), "fails", "")


@pytest.mark.parametrize("table, message", [
    ('[[observed]]\nscenarios = ["a"]\n', "behaviour is required"),
    ('[[observed]]\nbehaviour = "x"\nscenarios = []\n', "scenarios must be a non-empty list"),
    ('[[observed]]\nbehaviour = "x"\nscenarios = ["a"]\nexpect = "leaks"\n', "expect 'leaks'"),
    ('[[observed]]\nbehaviour = "x"\nscenarios = ["a"]\nseen = "today"\n', "unknown key(s) seen"),
    ('[[observed]]\nbehaviour = "x"\nscenarios = ["a"]\ncontrol = "b"\n',
     "unknown key(s) control"),  # a control only makes sense for a claim about every peer
    ('observed = "hermes leaks"\n', "observed must be an array of tables"),
])
def test_a_bad_claim_is_refused_naming_file_and_entry(tmp_path, table, message):
    with pytest.raises(ManifestError) as caught:
        load_manifest(_manifest(tmp_path, table))
    assert message in str(caught.value)
    assert "peer.toml" in str(caught.value)


def test_the_shared_claims_file_is_validated(tmp_path):
    path = tmp_path / "observed.toml"
    path.write_text('[[observed]]\nbehaviour = "nobody x"\nscenarios = ["a"]\n'
                    'control = "b"\nexempt = ["hermes-"]\n')
    (claim,) = load_shared_observations(path)
    assert (claim.control, claim.exempt) == ("b", ("hermes-",))
    path.write_text('[[observed]]\nbehaviour = "nobody x"\nscenarios = ["a"]\nexempt = "h"\n')
    with pytest.raises(ObservationError, match=r"observed\.toml: \[\[observed\]\] #1"):
        load_shared_observations(path)


def _peer_checks(data: dict) -> set[tuple]:
    return {(o["peer"], o["scenario"], o["verdict"], o["confirmed"], o["command"])
            for o in data["observed"]}


def test_the_matrix_renders_again_from_matrix_json(tmp_path):
    before = json.loads(STORED.read_text(encoding="utf-8"))
    assert main(["matrix", "--render-from", str(STORED), "--out", str(tmp_path)]) == 0
    after = json.loads((tmp_path / "matrix.json").read_text(encoding="utf-8"))
    page = (tmp_path / "matrix.md").read_text(encoding="utf-8")
    assert "PEERS" + ".md" not in page and "re-rendered from matrix.json" in page
    assert after["rendered_at"] and after["started_at"] == before["started_at"]
    for old, new in zip(before["rows"], after["rows"], strict=True):
        for key in ("name", "totals", "verdicts", "areas", "rule_groups", "hall_of_bugs",
                    "linear_time"):
            assert old[key] == new[key], (old["name"], key)
    assert after["pruned"] == before["pruned"]
    # the claims come from the manifests now; every (peer, scenario) check the run made
    # is still there with the same verdict, and nothing the manifests claim is missing
    claimed = {(("all peers" if o.peer == EVERY_PEER else o.peer), s)
               for o in shipped_observed() for s in o.claim.scenarios}
    assert {(c[0], c[1]) for c in _peer_checks(after)} == claimed
    kept = {c[:2]: c for c in _peer_checks(before)}
    assert all(kept[c[:2]] == c for c in _peer_checks(after) if c[:2] in kept)


def test_a_rerendered_page_shows_each_claim_with_its_verdict():
    matrix = load_stored_matrix(STORED)
    checks = observed_checks(matrix)
    hermes = next(c for c in checks if c.peer == "hermes-cli")
    assert hermes.verdict == "LEAK" and hermes.confirmed
    assert hermes.claim.behaviour in render_markdown(matrix)


@pytest.mark.parametrize("content, message", [
    ("not json", "Expecting value"),
    ('{"matrix_format": 99}', "not a matrix.json of format"),
    ('{"matrix_format": 1, "rows": [{"name": "x"}]}', "row 1 lacks one of"),
])
def test_a_file_that_is_no_matrix_is_refused(tmp_path, capsys, content, message):
    bad = tmp_path / "matrix.json"
    bad.write_text(content)
    with pytest.raises(StoredMatrixError, match=message):
        load_stored_matrix(bad)
    assert main(["matrix", "--render-from", str(bad), "--out", str(tmp_path / "out")]) == 2
    assert str(bad) in capsys.readouterr().err
    assert not (tmp_path / "out").exists()
