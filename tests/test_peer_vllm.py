"""The vLLM peers (heavy: installed only by name).

The manifest tests always run. The behaviour tests need the peer environment
(`scrubcheck peers install vllm-deepseek-r1-stream`, a 336 MB wheel), are marked
`peers` and are skipped, with that command as the reason, where it has not been built.
"""

from __future__ import annotations

import pytest

from scrubcheck.adapters import load_adapter
from scrubcheck.adapters.drive import run_stream
from scrubcheck.matrix.runs import not_run_reason
from scrubcheck.model import Context
from scrubcheck.peers import find_manifest, read_marker

NAMES = ("vllm-deepseek-r1-stream", "vllm-deepseek-r1-batch", "vllm-qwen3-stream",
         "vllm-qwen3-batch")
PREFILLED = Context(starts_in_reasoning=True)


def _peer(name: str):
    manifest = find_manifest(name)
    if read_marker(manifest.package) is None:
        pytest.skip(f"heavy peer {name} is not installed (scrubcheck peers install {name})")
    return load_adapter(f"peer:{name}")


@pytest.mark.parametrize("name", NAMES)
def test_manifests_are_heavy_share_one_environment_and_say_how_they_are_driven(name):
    manifest = find_manifest(name)
    assert manifest.heavy and manifest.package.label == "vllm==0.33.0"
    assert manifest.package.no_deps
    assert manifest.package.spec_hash() == find_manifest(NAMES[0]).package.spec_hash()
    notes = " ".join(manifest.all_restrictions())
    assert "stand-ins" in notes and "ParserManager.get_parser" in notes
    if "deepseek" in name:
        assert dict(manifest.fixed_context) == {"starts_in_reasoning": True}
    else:
        assert "starts_in_reasoning" in manifest.context and "enable_thinking" in notes


def test_the_token_id_stream_is_run_token_aligned_and_says_so():
    manifest = find_manifest("vllm-deepseek-r1-stream")
    assert manifest.token_aligned
    assert "token-aligned: run only on chunkings" in " ".join(manifest.all_restrictions())
    assert not find_manifest("vllm-qwen3-stream").token_aligned  # it parses text


def test_a_heavy_peer_not_installed_is_not_run_with_a_visible_reason(tmp_path, monkeypatch):
    monkeypatch.setenv("SCRUBCHECK_CACHE", str(tmp_path))
    manifest = find_manifest("vllm-qwen3-stream")
    assert "heavy peer, not installed" in not_run_reason(manifest, requested=False)
    assert "scrubcheck peers install vllm-qwen3-stream" in not_run_reason(manifest, True)


@pytest.mark.peers
def test_deepseek_r1_stream_splits_only_at_the_first_block():
    adapter = _peer("vllm-deepseek-r1-stream")
    assert adapter.installed_version == "0.33.0"
    trace = run_stream(adapter, PREFILLED,
                       ["r1", "</think>", "ans ", "<think>", "r2", "</think>", " tail"])
    assert trace.reasoning == "r1"
    assert trace.output == "ans <think>r2</think> tail"


@pytest.mark.peers
def test_deepseek_r1_stream_sees_a_split_tag_as_text():
    """Why the peer is faithful only for token-aligned chunkings."""
    adapter = _peer("vllm-deepseek-r1-stream")
    trace = run_stream(adapter, PREFILLED, ["plan</th", "ink>answer"])
    assert trace.output == "" and trace.reasoning == "plan</think>answer"
    aligned = run_stream(adapter, PREFILLED, ["plan", "</think>", "answer"])
    assert aligned.output == "answer" and aligned.reasoning == "plan"


@pytest.mark.peers
def test_deepseek_r1_batch_drops_the_answer_before_a_later_open_tag():
    adapter = _peer("vllm-deepseek-r1-batch")
    trace = run_stream(adapter, PREFILLED, ["r1</think>ans <think>r2</think> tail"])
    assert trace.output == " tail" and trace.reasoning == "r2"


@pytest.mark.peers
def test_qwen3_stream_lexes_split_tags_but_leaks_a_second_block():
    adapter = _peer("vllm-qwen3-stream")
    split = run_stream(adapter, PREFILLED, ["Hi <thi", "nk>secret</th", "ink>answer"])
    assert split.output == "answer" and "secret" in split.reasoning
    trace = run_stream(adapter, PREFILLED, ["r1", "</think>", "ans ", "<think>r2</think>", " tail"])
    assert trace.reasoning == "r1" and trace.output == "ans <think>r2</think> tail"


@pytest.mark.peers
def test_qwen3_with_thinking_off_splits_nothing():
    adapter = _peer("vllm-qwen3-batch")
    trace = run_stream(adapter, Context(), ["<think>r</think>answer"])
    assert trace.output == "<think>r</think>answer" and trace.reasoning == ""


@pytest.mark.peers
def test_qwen3_batch_leaks_a_second_block_without_its_close():
    adapter = _peer("vllm-qwen3-batch")
    trace = run_stream(adapter, PREFILLED, ["r1</think>ans <think>r2</think> tail"])
    assert trace.reasoning == "r1" and trace.output == "ans <think>r2 tail"
