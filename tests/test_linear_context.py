"""R-ROBUST-2 measures an implementation on text of the kind it meets in use.

A peer fixed to one format (a harmony parser, a pre-filled DeepSeek-R1 template) was
timed on `<think>` text, which such a parser never sees: SGLang's gpt-oss parser buffers
text before any harmony header and came out quadratic on it, though linear on harmony.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from scrubcheck.adapters import load_adapter
from scrubcheck.checks import check_tags
from scrubcheck.checks.linear import realistic_stream
from scrubcheck.model import Context
from scrubcheck.peers.manifest import load_manifest
from scrubcheck.vocabulary import FEATURES, feature_sample

ROOT = Path(__file__).resolve().parent.parent
PEERS = ROOT / "scrubbers" / "peers"


@pytest.mark.parametrize("name", sorted(FEATURES))
def test_each_feature_sample_is_its_format_and_the_reference_removes_it(name):
    """The sample holds a delimiter of its feature, and the reference (with the feature
    enabled) leaves no delimiter of the vocabulary in a long stream built with it."""
    sample = feature_sample(FEATURES[name])
    delimiters = [o for o, _ in FEATURES[name].pairs] + list(FEATURES[name].markers)
    assert any(d in sample for d in delimiters), (name, sample)
    context = Context(features=(name,))
    text = realistic_stream(4096, context)
    assert sample[:40] in text
    session = load_adapter("reference").open(context)
    output = session.feed(text) + session.flush()
    assert check_tags(output, context.vocabulary()) is None, name
    assert "Check the dates first" not in output.replace("check the dates first", ""), name


def test_default_stream_has_no_feature_text():
    assert "<|channel|>" not in realistic_stream(8192)
    assert realistic_stream(8192) == realistic_stream(8192, Context())


@pytest.mark.parametrize("folder", sorted(p.name for p in PEERS.iterdir()
                                          if (p / "peer.toml").exists()))
def test_a_peer_is_measured_in_its_fixed_mode(folder):
    manifest = load_manifest(PEERS / folder / "peer.toml")
    mode = manifest.fixed_mode()
    fixed = dict(manifest.fixed_context)
    assert set(mode.features) == set(fixed.get("features", ()))
    assert mode.starts_in_reasoning == bool(fixed.get("starts_in_reasoning", False))
    assert manifest.refusal(mode) is None, folder  # the peer accepts its own mode


def test_the_harmony_parser_peer_is_timed_on_harmony():
    mode = load_manifest(PEERS / "sglang-gpt-oss-stream" / "peer.toml").fixed_mode()
    assert mode.features == ("harmony",)
    assert "<|channel|>analysis<|message|>" in realistic_stream(4096, mode)
