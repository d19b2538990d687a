"""Real peers, when installed (`scrubcheck peers install`): the observed behaviours hold.

Each test is skipped, with the install command as its reason, on a machine
where that peer's environment has not been built.
"""

from __future__ import annotations

import pytest

from scrubcheck.adapters import load_adapter
from scrubcheck.checks.trace import run_stream
from scrubcheck.model import Context
from scrubcheck.peers import find_manifest, read_marker


def _peer(name: str):
    manifest = find_manifest(name)
    if read_marker(manifest.package) is None:
        pytest.skip(f"peer {name} is not installed (scrubcheck peers install {name})")
    return load_adapter(f"peer:{name}")


def test_hermes_stream_leaks_mid_line_blocks_only_with_small_deltas():
    adapter = _peer("hermes-stream")
    text = "a<think>s1</think>b<think>s2</think>c"
    assert run_stream(adapter, Context(), [text]).output == "abc"
    leaked = run_stream(adapter, Context(), list(text)).output
    assert "s1" in leaked and "s2" in leaked
    assert adapter.installed_version == "0.19.0"


def test_ai_sdk_6_inserts_a_newline_and_drops_a_held_partial_tag():
    adapter = _peer("ai6-stream")
    trace = run_stream(adapter, Context(), ["Step 1", "<think>", "check", "</think>", "; step 2"])
    assert trace.output == "Step 1\n; step 2" and trace.reasoning == "check"
    assert run_stream(adapter, Context(), ["Hi <thi"]).output == "Hi "


def test_sglang_qwen3_stream_leaks_a_split_open_tag():
    adapter = _peer("sglang-qwen3-stream")
    output = run_stream(adapter, Context(), ["Hi <thi", "nk>secret</think>answer"]).output
    assert "secret" in output


def test_bedrock_r1_runs_only_in_its_fixed_mode():
    adapter = _peer("litellm-bedrock-r1-stream")
    assert "fixed mode" in adapter.unsupported_reason(Context())
    trace = run_stream(adapter, Context(starts_in_reasoning=True), ["plan", "</think>", "Yes."])
    assert trace.output == "Yes." and trace.reasoning == "plan"
