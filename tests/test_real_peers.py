"""Real peers, when installed (`scrubcheck peers install`): the observed behaviours hold.

Each test is marked `peers` and skipped, with the install command as its reason, on a
machine where that peer's environment has not been built.
"""

from __future__ import annotations

import pytest

from scrubcheck.adapters import load_adapter
from scrubcheck.adapters.drive import run_stream
from scrubcheck.model import Context
from scrubcheck.peers import find_manifest, read_marker

pytestmark = pytest.mark.peers


@pytest.fixture
def peer():
    """Load a shipped peer by name (skipping, with the install command, when it is not
    installed); every peer process started is stopped at teardown, also on failure."""
    opened = []

    def load(name: str):
        manifest = find_manifest(name)
        if read_marker(manifest.package) is None:
            pytest.skip(f"peer {name} is not installed (scrubcheck peers install {name})")
        adapter = load_adapter(f"peer:{name}")
        opened.append(adapter)
        return adapter

    yield load
    for adapter in opened:
        adapter.close()


def test_hermes_stream_leaks_mid_line_blocks_only_with_small_deltas(peer):
    adapter = peer("hermes-stream")
    text = "a<think>s1</think>b<think>s2</think>c"
    assert run_stream(adapter, Context(), [text]).output == "abc"
    leaked = run_stream(adapter, Context(), list(text)).output
    assert "s1" in leaked and "s2" in leaked
    assert adapter.installed_version == "0.19.0"


def test_ai_sdk_6_inserts_a_newline_and_drops_a_held_partial_tag(peer):
    adapter = peer("ai6-stream")
    trace = run_stream(adapter, Context(), ["Step 1", "<think>", "check", "</think>", "; step 2"])
    assert trace.output == "Step 1\n; step 2" and trace.reasoning == "check"
    assert run_stream(adapter, Context(), ["Hi <thi"]).output == "Hi "


def test_sglang_qwen3_stream_leaks_a_split_open_tag(peer):
    adapter = peer("sglang-qwen3-stream")
    output = run_stream(adapter, Context(), ["Hi <thi", "nk>secret</think>answer"]).output
    assert "secret" in output


def test_bedrock_r1_runs_only_in_its_fixed_mode(peer):
    adapter = peer("litellm-bedrock-r1-stream")
    assert "fixed mode" in adapter.unsupported_reason(Context())
    trace = run_stream(adapter, Context(starts_in_reasoning=True), ["plan", "</think>", "Yes."])
    assert trace.output == "Yes." and trace.reasoning == "plan"


# --- SPEC 1.2 contexts, passed through as each package's users configure them -----------

REFLECT = Context(delimiters=[{"open": "<reflect>", "close": "</reflect>"}])
BRACKETS = Context(delimiters=[{"open": "[[r]]", "close": "[[/r]]"}])


@pytest.mark.parametrize("name, context, deltas", [
    # pydantic-ai's streamed path sees a tag only as a whole delta (its observed behaviour)
    ("pydantic-ai-stream", REFLECT, ["Sure. ", "<reflect>", "plan it", "</reflect>", "Here."]),
    ("pydantic-ai-batch", REFLECT, ["Sure. <reflect>plan", " it</reflect>Here."]),
    ("ai6-stream", REFLECT, ["Sure. <reflect>plan", " it</reflect>Here."]),
    ("ai6-generate", REFLECT, ["Sure. <reflect>plan", " it</reflect>Here."]),
    ("ai7-stream", BRACKETS, ["Sure. [[r]]plan", " it[[/r]]Here."]),
    ("ai7-generate", BRACKETS, ["Sure. [[r]]plan", " it[[/r]]Here."]),
    ("thinkstrip-stream", BRACKETS, ["Sure. [[r]]plan", " it[[/r]]Here."]),
    ("xsai-reasoning-stream", REFLECT, ["Sure. <reflect>plan", " it</reflect>Here."]),
])
def test_a_caller_pair_reaches_the_package(peer, name, context, deltas):
    """The caller's pair is configured in the package: without the context the same
    stream shows the block, with it the block goes to the reasoning channel."""
    adapter = peer(name)
    assert adapter.unsupported_reason(context) is None
    plain = run_stream(adapter, Context(), deltas).output
    assert "plan it" in plain
    trace = run_stream(adapter, context, deltas)
    assert trace.error is None
    assert "plan it" not in trace.output and trace.reasoning == "plan it"
    assert trace.output.startswith("Sure.") and trace.output.endswith("Here.")


def test_ai_sdk_6_takes_only_a_tag_name(peer):
    adapter = peer("ai6-stream")
    assert "not of that form" in adapter.unsupported_reason(BRACKETS)


def test_ai_sdk_7_stream_holds_back_only_the_shortest_partial_open(peer):
    """Its observed behaviour: '{{' ends a delta, only the second '{' is held."""
    adapter = peer("ai7-stream")
    context = Context(delimiters=[{"open": "{{.*}}", "close": "{{/.*}}"}])
    assert "secret" not in run_stream(adapter, context, ["x {{.*}}secret{{/.*}} y"]).output
    assert "secret" in run_stream(adapter, context, ["x {{", ".*}}secret{{/.*}} y"]).output


@pytest.mark.parametrize("name", ["sglang-qwen3-stream", "sglang-qwen3-batch"])
def test_sglang_may_skip_is_force_nonempty_content(peer, name):
    """may_skip_reasoning reaches SGLang as chat_template_kwargs force_nonempty_content:
    a pre-filled stream that never closed becomes the answer (strict without it), and,
    as observed, also when it was cut by length."""
    adapter = peer(name)
    deltas = ["The capital ", "is Paris."]
    strict = Context(starts_in_reasoning=True)
    assert run_stream(adapter, strict, deltas).output == ""
    for finish in ("stop", "length"):
        skip = Context(starts_in_reasoning=True, may_skip_reasoning=True, finish_reason=finish)
        assert adapter.unsupported_reason(skip) is None
        assert run_stream(adapter, skip, deltas).output == "The capital is Paris."


@pytest.mark.parametrize("name, feature, deltas, answer", [
    ("sglang-gpt-oss-stream", "harmony",
     ["<|channel|>analysis<|message|>plan it<|end|>",
      "<|start|>assistant<|channel|>final<|message|>Hi there.<|return|>"], "Hi there."),
    ("sglang-kimi-k3-stream", "kimi-xtml",
     ["<|open|>think<|sep|>plan it<|close|>think<|sep|>",
      "<|open|>response<|sep|>Hi there.<|close|>response<|sep|>"], "Hi there."),
    ("sglang-gemma4-stream", "gemma-channel",
     ["<|channel>thought\nplan it<channel|>", "Hi there."], "Hi there."),
    ("sglang-apertus-batch", "apertus",
     ["<|inner_prefix|>plan it<|inner_suffix|>", "Hi there."], "Hi there."),
])
def test_sglang_format_parsers_split_their_own_format_only(peer, name, feature, deltas, answer):
    adapter = peer(name)
    assert "runs only with features" in adapter.unsupported_reason(Context())
    trace = run_stream(adapter, Context(features=(feature,)), deltas)
    assert trace.output == answer and trace.reasoning == "plan it"


def test_sglang_gpt_oss_shows_a_tool_call_whole(peer):
    """Its observed behaviour (the raw text is kept for a tool-call parser)."""
    adapter = peer("sglang-gpt-oss-batch")
    call = ("<|start|>assistant<|channel|>commentary to=functions.web_search "
            '<|constrain|>json<|message|>{"query": "news"}<|call|>')
    output = run_stream(adapter, Context(features=("harmony",)), [call]).output
    assert "to=functions.web_search" in output and '"news"' in output


# --- packages added as rows of their own -------------------------------------------------


def test_litecc_proxy_stream_reads_an_orphan_close_as_a_pre_filled_block(peer):
    """An implicit open: text before a </think> with no <think> is reasoning, and until a
    tag settles that, the start of the text block is held back (up to 4,000 characters)."""
    adapter = peer("litecc-proxy-stream")
    trace = run_stream(adapter, Context(), ["plan", "</think>", "Answer"])
    assert (trace.output, trace.reasoning) == ("Answer", "plan")
    held = run_stream(adapter, Context(), ["Hello ", "there."])
    assert held.returns[:2] == ["", ""] and held.output == "Hello there."
    assert adapter.installed_version == "0.5.0"


def test_litecc_proxy_stream_reclassifies_only_the_text_it_still_holds(peer):
    """Once a tag has settled the block, text streams at once, so an orphan </think> after
    a block turns the text before it into reasoning only when it came in the same delta."""
    adapter = peer("litecc-proxy-stream")
    text = "<think>a</think>b</think>c"
    assert run_stream(adapter, Context(), [text]).output == "c"
    assert run_stream(adapter, Context(), ["<think>a</think>b", "</think>c"]).output == "bc"


def test_litecc_proxy_batch_splits_at_an_orphan_close(peer):
    adapter = peer("litecc-proxy-batch")
    trace = run_stream(adapter, Context(), ["x</think>y<think>z</think>w"])
    assert (trace.output, trace.reasoning) == ("yw", "xz")


def test_thinkstrip_folds_double_angle_tags_and_captures_the_reasoning(peer):
    """Its documented normalisation: <<think>> is read as <think> and </think>> as
    </think>, also when the doubled tag is split over deltas."""
    adapter = peer("thinkstrip-stream")
    trace = run_stream(adapter, Context(), ["<<thi", "nk>>plan</think>>Answer"])
    assert (trace.output, trace.reasoning) == ("Answer", "plan")
    assert run_stream(adapter, Context(), ["plan</think>Answer"]).output == "plan</think>Answer"
    assert adapter.installed_version == "0.2.2"


def test_thinkpack_takes_everything_before_the_first_close_as_reasoning(peer):
    """parse() splits at the first close tag: the answer text before an open tag goes to
    the reasoning, a second block stays in the answer, and both sides are stripped."""
    adapter = peer("thinkpack-batch")
    trace = run_stream(adapter, Context(), ["Hello <think>x</think> y"])
    assert (trace.output, trace.reasoning) == ("y", "Hello x")
    assert run_stream(adapter, Context(), ["a</think>b<think>c</think>d"]).output == \
        "b<think>c</think>d"
    prefilled = Context(starts_in_reasoning=True)
    assert run_stream(adapter, prefilled, ["still planning"]).output == ""
    assert run_stream(adapter, Context(), ["still planning"]).output == "still planning"


def test_thinkpack_takes_a_caller_pair_as_its_tag(peer):
    adapter = peer("thinkpack-batch")
    deltas = ["<reflect>plan", " it</reflect>Here."]
    assert run_stream(adapter, Context(), deltas).output == "<reflect>plan it</reflect>Here."
    trace = run_stream(adapter, REFLECT, deltas)
    assert (trace.output, trace.reasoning) == ("Here.", "plan it")
    assert "not of that form" in adapter.unsupported_reason(BRACKETS)


def test_xsai_inserts_a_newline_and_keeps_a_held_partial_tag(peer):
    """Like the AI SDK it separates the text around a block with "\n", but it sends a
    partial tag still held at the end as text instead of dropping it."""
    adapter = peer("xsai-reasoning-stream")
    trace = run_stream(adapter, Context(), ["Step 1", "<think>", "check", "</think>", "; step 2"])
    assert (trace.output, trace.reasoning) == ("Step 1\n; step 2", "check")
    assert trace.returns[0] == "Step 1"  # streamed, not kept to the end
    assert run_stream(adapter, Context(), ["Hi <thi"]).output == "Hi <thi"
    prefilled = run_stream(adapter, Context(starts_in_reasoning=True), ["plan</think>Yes."])
    assert (prefilled.output, prefilled.reasoning) == ("Yes.", "plan")


HARMONY = Context(features=("harmony",))


def test_openai_harmony_routes_messages_by_channel(peer):
    """analysis is reasoning, final the answer, a commentary preamble the answer, a tool
    call neither; it runs on harmony streams only."""
    adapter = peer("openai-harmony-stream")
    assert "runs only with features" in adapter.unsupported_reason(Context())
    trace = run_stream(adapter, HARMONY, [
        "<|channel|>analysis<|message|>plan it<|end|>",
        "<|start|>assistant<|channel|>commentary<|message|>Searching now.<|end|>",
        "<|start|>assistant<|channel|>commentary to=functions.search <|constrain|>json"
        '<|message|>{"q": "news"}<|call|>'])
    assert (trace.output, trace.reasoning) == ("Searching now.", "plan it")
    final = run_stream(adapter, HARMONY, ["<|channel|>final<|message|>Hé", "llo 😀", "!"])
    assert final.output == "Héllo 😀!" and final.error is None
    assert adapter.installed_version == "0.0.8"


def test_openai_harmony_reads_text_before_a_header_as_header(peer):
    """The completion must start with a header: text before one is taken into the header
    and shown nowhere, and a completion that ends inside a header (here: plain text)
    shows nothing; process_eos()'s error for it is caught, as servers do."""
    adapter = peer("openai-harmony-stream")
    trace = run_stream(adapter, HARMONY, ["Hello ", "<|channel|>final<|message|>Hi"])
    assert trace.output == "" and trace.error is None
    plain = run_stream(adapter, HARMONY, ["Hello world"])
    assert plain.output == "" and plain.error is None


def test_openai_harmony_refuses_a_vocabulary_that_is_not_o200k(peer, tmp_path):
    """The adapter checks the copy of o200k_base it takes from litellm: a file with another
    SHA-256 stops it with a message naming the file."""
    import os
    import subprocess

    from scrubcheck.peers.envs import env_dir, python_of

    manifest = find_manifest("openai-harmony-stream")
    peer("openai-harmony-stream").close()  # skips when not installed
    fake = tmp_path / "litellm" / "litellm_core_utils" / "tokenizers"
    fake.mkdir(parents=True)
    (tmp_path / "litellm" / "__init__.py").write_text("")
    (fake / "fb374d419588a4632f3f557e76b4b70aebbca790").write_text("not a vocabulary\n")
    env = dict(os.environ, PYTHONPATH=str(tmp_path),
               SCRUBCHECK_PEERLOOP_DIR=str(manifest.program.parent.parent))
    done = subprocess.run([str(python_of(env_dir(manifest.package))), str(manifest.program)],
                          input="", capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode != 0
    assert "fb374d419588a4632f3f557e76b4b70aebbca790" in done.stderr
    assert "o200k_base" in done.stderr
