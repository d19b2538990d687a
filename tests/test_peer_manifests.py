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
    adapter = _adapter_for(manifest)
    assert "fixed mode" in adapter.unsupported_reason(Context())
    assert adapter.unsupported_reason(Context(starts_in_reasoning=True)) is None


def _adapter_for(manifest):
    """A PeerAdapter over `manifest` that never starts a process (its refusals only)."""
    from scrubcheck.adapters.peer import PeerAdapter

    adapter = PeerAdapter.__new__(PeerAdapter)
    adapter.manifest = manifest
    adapter.accepted_context = manifest.context | ({"features"} if manifest.features else set())
    adapter.supported_features = manifest.features
    return adapter


ONE_PAIR = GOOD.replace('context = ["starts_in_reasoning"]',
                        'context = ["delimiters"]\ndelimiters = { pairs = 1, markers = 0 }')
REFLECT = {"open": "<reflect>", "close": "</reflect>"}


@pytest.mark.parametrize("change, message", [
    (("delimiters = { pairs = 1, markers = 0 }", "delimiters = { pairs = -1 }"), "whole number"),
    (("delimiters = { pairs = 1, markers = 0 }", "delimiters = { pairs = true }"), "whole number"),
    (("delimiters = { pairs = 1, markers = 0 }", 'delimiters = { form = "regex" }'), "form"),
    (("delimiters = { pairs = 1, markers = 0 }", "delimiters = { pears = 1 }"), "unknown key"),
    (("delimiters = { pairs = 1, markers = 0 }", 'delimiters = "one"'), "must be a table"),
    (('context = ["delimiters"]', "context = []"), "add \"delimiters\" to context"),
])
def test_each_delimiters_table_mistake_is_named(tmp_path, change, message):
    with pytest.raises(ManifestError, match=message):
        load_manifest(_write(tmp_path, ONE_PAIR.replace(*change)))


def test_a_one_pair_peer_gets_one_pair_and_refuses_more_or_markers(tmp_path):
    adapter = _adapter_for(load_manifest(_write(tmp_path, ONE_PAIR)))
    assert adapter.unsupported_reason(Context(delimiters=[REFLECT])) is None
    assert adapter.unsupported_reason(Context()) is None
    two = [REFLECT, {"open": "{{", "close": "}}"}]
    assert "at most 1 pair, this stream's delimiters have 2" in adapter.unsupported_reason(
        Context(delimiters=two))
    assert "no markers" in adapter.unsupported_reason(
        Context(delimiters=[REFLECT, {"marker": "<final>"}]))
    assert any("at most 1 pair, no markers" in n
               for n in adapter.manifest.all_restrictions())


def test_a_tag_name_peer_takes_only_pairs_of_the_form_n_and_slash_n(tmp_path):
    text = ONE_PAIR.replace("markers = 0 }", 'markers = 0, form = "<NAME>" }')
    adapter = _adapter_for(load_manifest(_write(tmp_path, text)))
    assert adapter.unsupported_reason(Context(delimiters=[REFLECT])) is None
    for pair in ({"open": "{{.*}}", "close": "{{/.*}}"}, {"open": "<think>", "close": "</a>"},
                 {"open": "§", "close": "¶"}, {"open": "<a>", "close": "</A>"}):
        assert "not of that form" in adapter.unsupported_reason(Context(delimiters=[pair]))


def test_a_peer_without_delimiters_in_its_context_never_gets_them(tmp_path):
    adapter = _adapter_for(load_manifest(_write(tmp_path, GOOD)))
    assert "cannot receive context delimiters" in adapter.unsupported_reason(
        Context(delimiters=[REFLECT]))


def test_a_fixed_feature_runs_a_format_parser_on_its_format_only(tmp_path):
    text = GOOD.replace('context = ["starts_in_reasoning"]',
                        'features = ["harmony"]\ncontext = []\n'
                        'fixed_context = { features = ["harmony"] }')
    adapter = _adapter_for(load_manifest(_write(tmp_path, text)))
    assert adapter.unsupported_reason(Context(features=("harmony",))) is None
    assert "runs only with features=['harmony']" in adapter.unsupported_reason(Context())
    assert "this stream has features=['harmony', 'kimi']" in adapter.unsupported_reason(
        Context(features=("harmony", "kimi")))
    with pytest.raises(ManifestError, match="fixed_context features apertus not in features"):
        load_manifest(_write(tmp_path, text.replace('fixed_context = { features = ["harmony"]',
                                                    'fixed_context = { features = ["apertus"]')))


def test_shipped_peers_declare_what_their_packages_let_users_configure():
    manifests = {m.name: m for m in shipped_manifests()}
    takes_pairs = {n for n, m in manifests.items() if "delimiters" in m.context}
    assert takes_pairs == {"pydantic-ai-batch", "pydantic-ai-stream", "ai6-generate",
                           "ai6-stream", "ai7-generate", "ai7-stream", "thinkstrip-stream",
                           "thinkpack-batch", "xsai-reasoning-stream"}
    for name in takes_pairs:
        assert (manifests[name].delimiters.pairs, manifests[name].delimiters.markers) == (1, 0)
    assert {n for n in takes_pairs if manifests[n].delimiters.form == "<NAME>"} == {
        "ai6-generate", "ai6-stream", "thinkpack-batch", "xsai-reasoning-stream"}
    skip = {n for n, m in manifests.items() if "may_skip_reasoning" in m.context}
    assert skip == {n for n in manifests if n.startswith("sglang-")}
    formats = {"gpt-oss": "harmony", "kimi-k3": "kimi-xtml", "gemma4": "gemma-channel",
               "apertus": "apertus"}
    for model, feature in formats.items():
        for mode in ("stream", "batch"):
            manifest = manifests[f"sglang-{model}-{mode}"]
            assert manifest.features == {feature}
            assert dict(manifest.fixed_context) == {"features": [feature]}


def test_the_added_packages_declare_how_they_are_installed_and_driven():
    """thinkstrip declares Python >= 3.13 and is installed with pip's
    --ignore-requires-python through the environment; harmony's vocabulary comes from the
    litellm release litellm-batch pins; both litecc-proxy rows share one environment."""
    from scrubcheck.peers.install import _env

    manifests = {m.name: m for m in shipped_manifests()}
    thinkstrip = manifests["thinkstrip-stream"].package
    assert dict(thinkstrip.env) == {"PIP_IGNORE_REQUIRES_PYTHON": "1"}
    assert _env(thinkstrip)["PIP_IGNORE_REQUIRES_PYTHON"] == "1"
    harmony = manifests["openai-harmony-stream"]
    assert harmony.claims == ("harmony",) and harmony.token_aligned
    assert dict(harmony.fixed_context) == {"features": ["harmony"]}
    assert harmony.package.extra == (f"litellm=={manifests['litellm-batch'].package.version}",)
    stream, batch = manifests["litecc-proxy-stream"], manifests["litecc-proxy-batch"]
    assert stream.package.env_name == batch.package.env_name == "pypi-litecc-proxy-0.5.0"
    assert (stream.kind, batch.kind) == ("streaming splitter", "batch splitter")
    assert manifests["thinkpack-batch"].package.no_deps
    assert manifests["xsai-reasoning-stream"].language == "node"
    for name in ("litecc-proxy-stream", "litecc-proxy-batch", "thinkstrip-stream",
                 "thinkpack-batch", "xsai-reasoning-stream"):
        assert manifests[name].claims == ("think",), name
