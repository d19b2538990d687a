"""Peer manifests: every shipped one is valid, and each mistake gets a message naming it."""

from __future__ import annotations

from pathlib import Path

import pytest

from scrubcheck.adapters import AdapterError, load_adapter
from scrubcheck.model import Context
from scrubcheck.peers import ManifestError, find_manifest, load_manifest, shipped_manifests
from scrubcheck.peers.manifest import KINDS, check_shared_environments

GOOD = """name = "demo"
title = "Demo"
kind = "streaming scrubber"
entry = "demo.Scrubber"
program = "adapter.py"
context = ["starts_in_reasoning"]

[package]
ecosystem = "pypi"
name = "demo-pkg"
version = "1.2.3"
"""


def _write(tmp_path: Path, text: str, folder: str = "demo") -> Path:
    peer = tmp_path / folder
    peer.mkdir(parents=True, exist_ok=True)
    (peer / "adapter.py").write_text("print('x')\n")
    path = peer / "peer.toml"
    path.write_text(text)
    return path


def test_every_shipped_peer_loads_with_a_real_package_and_program():
    manifests = shipped_manifests()
    names = {m.name for m in manifests}
    assert {"hermes-stream", "hermes-cli", "protoagent-strip", "pydantic-ai-stream",
            "litellm-ollama-stream", "sglang-qwen3-stream", "ai6-stream", "ai7-generate",
            "hermes-recover-model"} <= names
    for manifest in manifests:
        assert manifest.kind in KINDS
        assert manifest.program.is_file()
        assert manifest.package.ecosystem in ("pypi", "npm")
        assert manifest.package.version[0].isdigit()
    assert [m.name for m in manifests if m.model_of] == ["hermes-recover-model"]


def test_a_valid_manifest_and_its_derived_facts(tmp_path):
    manifest = load_manifest(_write(tmp_path, GOOD))
    assert (manifest.adapter_kind, manifest.streams, manifest.protocol_kind) == (
        "stream", True, "stream")
    assert manifest.package.env_name == "pypi-demo-pkg-1.2.3"
    assert manifest.package.label == "demo-pkg==1.2.3"
    assert find_manifest(str(tmp_path / "demo")).name == "demo"


@pytest.mark.parametrize("change, message", [
    (('kind = "streaming scrubber"', 'kind = "stream"'), "kind 'stream'"),
    (('program = "adapter.py"', 'program = "missing.py"'), "not found"),
    (('name = "demo"', 'name = "other"'), "differs from its folder"),
    (('context = ["starts_in_reasoning"]', 'context = ["mood"]'), "unknown context key"),
    (('entry = "demo.Scrubber"', 'entry = "demo.Scrubber"\nflavour = 1'), "unknown key"),
    (('version = "1.2.3"', 'version = ">=1.2"'), "one exact version"),
    (('ecosystem = "pypi"', 'ecosystem = "cargo"'), "ecosystem"),
    (('context = ["starts_in_reasoning"]', 'features = ["telepathy"]'), "unknown feature"),
])
def test_each_mistake_is_named(tmp_path, change, message):
    with pytest.raises(ManifestError, match=message):
        load_manifest(_write(tmp_path, GOOD.replace(*change)))


def test_unknown_peer_names_the_known_ones():
    with pytest.raises(ManifestError, match="hermes-stream"):
        find_manifest("no-such-peer")


def test_peers_sharing_a_package_must_install_it_the_same_way(tmp_path):
    first = load_manifest(_write(tmp_path, GOOD))
    second = load_manifest(_write(tmp_path / "b", GOOD.replace(
        'version = "1.2.3"', 'version = "1.2.3"\nno_deps = true')))
    with pytest.raises(ManifestError, match="differently"):
        check_shared_environments([first, second])


def test_an_uninstalled_peer_tells_how_to_install_it(tmp_path, monkeypatch):
    monkeypatch.setenv("SCRUBCHECK_CACHE", str(tmp_path / "cache"))
    with pytest.raises(AdapterError, match="scrubcheck peers install"):
        load_adapter(f"peer:{_write(tmp_path, GOOD)}")


def test_a_fixed_mode_makes_other_streams_unsupported(tmp_path):
    text = GOOD.replace('context = ["starts_in_reasoning"]',
                        "context = []\nfixed_context = { starts_in_reasoning = true }")
    text = text[:text.index("[package]")]
    manifest = load_manifest(_write(tmp_path, text))
    assert "starts_in_reasoning" in manifest.context
    assert any("fixed mode" in note for note in manifest.all_restrictions())
    from scrubcheck.adapters.peer import PeerAdapter

    adapter = PeerAdapter.__new__(PeerAdapter)
    adapter.manifest = manifest
    adapter.accepted_context, adapter.supported_features = manifest.context, frozenset()
    assert "fixed mode" in adapter.unsupported_reason(Context())
    assert adapter.unsupported_reason(Context(starts_in_reasoning=True)) is None
