"""The behaviours already observed in real scrubbers (shared PEERS.md), each tied to scenarios.

The matrix shows, for every observed behaviour, the verdict the named peer got
on the named scenarios in this run, so a reader can trace each claim to a
scenario id and a replay command instead of taking it on trust.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Observed:
    peers: tuple[str, ...]
    behaviour: str
    scenarios: tuple[str, ...]
    expect: str = "fails"  # "fails", "passes" or "unsupported": what it predicts
    note: str = ""  # what a reader must know to read the verdict
    # For a claim about every peer ("*"): a scenario a peer must pass for its verdict to
    # count (it shows the peer handles the plain case, so a pass or fail is about the
    # claim and not an accident), and name prefixes of peers the claim says differ.
    control: str = ""
    exempt: tuple[str, ...] = ()


OBSERVED: tuple[Observed, ...] = (
    Observed(("hermes-stream",), "not chunking-invariant: a<think>s1</think>b<think>s2</think>c "
             "leaks s1 and s2 with one-character deltas",
             ("peer-hermes-two-midline-blocks-one-char-deltas",
              "peer-hermes-midline-blocks-token-deltas")),
    Observed(("hermes-stream",), "keeps the text before an orphan </think> (a leak under a "
             "pre-filled <think>)", ("peer-hermes-prefill-orphan-keeps-reasoning",),
             expect="unsupported",
             note="it cannot be told that the open was pre-filled, so SPEC R-CTX-1 makes "
                  "the stream UNSUPPORTED; without a pre-fill, keeping that text is right "
                  "(R-ORPHAN-1)"),
    Observed(("hermes-stream",), "removes closed pairs inside code fences",
             ("peer-hermes-closed-pair-in-fence",)),
    Observed(("hermes-stream",), "discards an unclosed block (strict)",
             ("field-always-show-truncated-in-reasoning",), expect="passes",
             note="true for a block opened at the start of a line"),
    Observed(("hermes-stream",), "shows an unclosed block opened mid-line",
             ("peer-hermes-strict-unclosed-block",),
             note="found by this run, not in PEERS.md: its open tag counts mid-line only when "
                  "the close arrives"),
    Observed(("hermes-cli",), "emits the last ~23 characters of an unclosed block at end of "
             "stream", ("peer-hermes-cli-unclosed-tail",)),
    Observed(("protoagent-strip",), "its backtick guard looks only at the one character "
             "before an open tag",
             ("peer-protoagent-stray-backtick-right-before-open",
              "peer-protoagent-span-with-space-before-tag")),
    Observed(("protoagent-strip",), "the orphan-close rule has no code guard",
             ("peer-protoagent-orphan-close-deep-in-span",),
             note="0.218.1 gives the orphan close the same one-character look-behind as the "
                  "open: a close right after a backtick is kept "
                  "(peer-protoagent-orphan-close-in-code passes), one deeper in a span is "
                  "removed"),
    Observed(("protoagent-strip",), "only think and scratch_pad are known",
             ("peer-protoagent-reasoning-name", "peer-protoagent-thought-name")),
    Observed(("pydantic-ai-stream",), "recognises a tag only when a delta equals it exactly",
             ("peer-pydantic-whole-block-in-one-delta", "peer-pydantic-open-inside-text-delta")),
    Observed(("pydantic-ai-batch",), "turns an unclosed block into answer text",
             ("peer-pydantic-batch-unclosed-block",)),
    Observed(("sglang-qwen3-stream",), "leaks everything for [\"Hi <thi\", "
             "\"nk>secret</think>answer\"]", ("peer-sglang-split-open",)),
    Observed(("sglang-qwen3-stream", "sglang-qwen3-batch"), "split only at the first block, "
             "so a second block leaks", ("peer-sglang-second-block",)),
    Observed(("sglang-deepseek-r1-stream", "sglang-deepseek-r1-batch"), "split only at the "
             "first block, so a second block leaks", ("blocks-after-prefill-second-block",),
             note="the deepseek-r1 parser always starts in reasoning, so the pre-filled "
                  "variant of the stream shows it"),
    Observed(("vllm-deepseek-r1-stream", "vllm-qwen3-stream", "vllm-qwen3-batch"), "split only "
             "at the first block, so a second block leaks", ("blocks-after-prefill-second-block",),
             note="the pre-filled stream: deepseek-r1 always starts in reasoning and qwen3 parses "
                  "only with thinking on; vLLM's deepseek-r1 batch path instead splits at the "
                  "first open tag anywhere and loses the answer before it"),
    Observed(("litellm-batch",), "takes a block only at the very start of the text",
             ("peer-litellm-batch-block-not-at-start",)),
    Observed(("litellm-ollama-stream",), "leaks a whole block arriving in one chunk",
             ("peer-litellm-ollama-whole-block-one-chunk",)),
    Observed(("ai6-stream", "ai7-stream"), "inserts \"\\n\" between segments (not "
             "byte-faithful)", ("peer-aisdk-no-inserted-newline",)),
    Observed(("ai6-stream",), "drops a held partial tag at end of stream",
             ("peer-aisdk-partial-tag-at-end", "peer-aisdk-lone-angle-bracket-at-end")),
    Observed(("ai6-generate", "ai7-generate"), "the batch path leaves an unclosed block in the "
             "answer", ("peer-aisdk-batch-unclosed-block",)),
    Observed(("*",), "nobody handles code fences", ("peer-nobody-handles-fences",),
             control="peer-nobody-handles-fences-control"),
    Observed(("*",), "nobody counts nesting", ("peer-nobody-counts-nesting-unclosed-outer",),
             expect="passes", control="peer-nobody-counts-nesting-control",
             note="a scrubber that counted nesting would keep the outer block open to the "
                  "end and lose the answer after the inner close"),
    Observed(("*",), "only hermes is case-insensitive", ("peer-only-hermes-case-insensitive",),
             control="peer-only-hermes-case-control", exempt=("hermes-",)),
)
