"""The reference scrubber against hand-derived SPEC examples and its own invariants."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scrubcheck.scrubbers.reference import ReferenceScrubber, scrub_with_cuts, strip_reasoning
from scrubcheck.specmodel import tags_outside_code
from scrubcheck.vocabulary import build_vocabulary

# (input, context, expected visible, SPEC rule)
CASES = [
    ("a<think>s1</think>b<think>s2</think>c", {}, "abc", "R-BLOCK-3"),
    ("Hi <think>secret</think>answer", {}, "Hi answer", "R-BLOCK-1"),
    ("<THINK>x</think>y", {}, "y", "R-VOCAB-1"),
    ("<Reasoning_Scratchpad>x</REASONING_SCRATCHPAD>y", {}, "y", "R-VOCAB-1"),
    ("<think >x</think>y", {}, "<think >xy", "R-VOCAB-2"),
    ("<thinker>x</thinker>", {}, "<thinker>x</thinker>", "R-VOCAB-2"),
    ("<think/>ok", {}, "<think/>ok", "R-VOCAB-2"),
    ("[THINK]x[/THINK]y", {"features": ["bracket"]}, "y", "R-VOCAB-3"),
    ("[THINK]x[/THINK]y", {}, "[THINK]x[/THINK]y", "R-VOCAB-4"),
    ("◁think▷x◁/think▷y", {"features": ["kimi"]}, "y", "R-VOCAB-3"),
    ("<|channel|>analysis<|message|>hmm<|end|><|start|>assistant"
     "<|channel|>final<|message|>Hi<|return|>", {"features": ["harmony"]}, "Hi", "R-VOCAB-3"),
    ("<answer>42</answer>", {"features": ["answer-wrappers"]}, "42", "R-VOCAB-3"),
    ("<think>a <think>b</think>c</think>d", {}, "cd", "R-BLOCK-2"),
    ("<think><think>plan</think>Answer", {}, "Answer", "R-BLOCK-2"),
    ("<thinking>x</think>y", {}, "", "R-BLOCK-4"),
    ("Use `<think>` tags", {}, "Use `<think>` tags", "R-CODE-1"),
    ("``<think>`secret</think>`` after", {}, "``<think>`secret</think>`` after", "R-CODE-1"),
    ("`` a ` <think> ` b", {}, "`` a ` <think> ` b", "R-CODE-1"),
    ("```\n<think>x</think>\n```\nok<think>y</think>", {}, "```\n<think>x</think>\n```\nok",
     "R-CODE-2"),
    ("~~~ <think>\nz</think>\n~~~\n<think>q</think>k", {}, "~~~ <think>\nz</think>\n~~~\nk",
     "R-CODE-2"),
    ("```py <think>\nx\n```\n", {}, "```py <think>\nx\n```\n", "R-CODE-2"),
    ("```<think>`x\n", {}, "```", "R-CODE-3"),
    ("``<think>`secret</think> after", {}, "`` after", "R-CODE-3"),
    ("`a <think>s</think> b", {}, "`a  b", "R-CODE-3"),
    ("    <think>x</think>y", {}, "    y", "R-CODE-4"),
    ("<think>a `</think>` b</think>c", {}, "c", "R-CODE-5"),
    ("<think>x</think>```\n<think>y</think>\n```", {}, "```\n<think>y</think>\n```", "R-CODE-6"),
    ("` a <think>x\ny</think> b `<think>` c", {}, "` a  b `", "R-CODE-6"),
    ("<think>plan\nFinal answer", {"inline_answer": True}, "Final answer", "R-UNCLOSED-2"),
    ("<think>plan\nFinal answer", {"inline_answer": True, "finish_reason": "length"}, "",
     "R-UNCLOSED-3"),
    ("<think>plan\nFinal answer", {}, "", "R-UNCLOSED-3"),
    ("<think>no newline here", {"inline_answer": True}, "", "R-UNCLOSED-2"),
    ("<think>plan\n<thinking>x", {"inline_answer": True}, "", "R-UNCLOSED-2"),
    ("Hi <thi", {}, "Hi <thi", "R-UNCLOSED-4"),
    ("before</think>after", {}, "beforeafter", "R-ORPHAN-1"),
    ("reason\n</think>answer", {"starts_in_reasoning": True}, "answer", "R-ORPHAN-2"),
    ("r</thought>a</think>b", {"starts_in_reasoning": True}, "ab", "R-ORPHAN-2"),
    ("r\nlast line", {"starts_in_reasoning": True, "inline_answer": True}, "last line",
     "R-ORPHAN-2"),
    ("<thi<think>x</think>nk>secret</think>after", {}, "after", "R-TAG-1"),
    ("a</thi</think>nk>b", {}, "ab", "R-TAG-1"),
    ("<|channel|>analysis<|message|>a<|end|><|start|>assistant<|channel|>commentary "
     "to=functions.f <|constrain|>json<|message|>{}<|call|>", {"features": ["harmony"]}, "",
     "R-HARMONY-2"),
    ("<|channel|>commentary<|message|>Plan: search.<|end|>", {"features": ["harmony"]},
     "Plan: search.", "R-HARMONY-2"),
    ("Hi<|start|>user<|message|>u<|end|>!", {"features": ["harmony"]}, "Hi!", "R-HARMONY-2"),
    ("Hi<|start|> and more", {"features": ["harmony"]}, "Hi", "R-HARMONY-1"),
    ("a<|end|>b<|constrain|>c", {"features": ["harmony"]}, "abc", "R-HARMONY-3"),
    ("r<|close|>think<|open|>response<|sep|>A", {"features": ["kimi-xtml"],
                                                   "starts_in_reasoning": True}, "A", "R-VOCAB-3"),
    ("<|channel>thoughtx<channel|>y", {"features": ["gemma-channel"]}, "y", "R-VOCAB-3"),
    ("<|think|>x<|end|><|begin|>assistant<|content|>y", {"features": ["solar-open"]}, "y",
     "R-VOCAB-3"),
    ("<|inner_prefix|>x<|inner_suffix|>y", {"features": ["apertus"]}, "y", "R-VOCAB-3"),
    ("direct answer", {"starts_in_reasoning": True, "may_skip_reasoning": True},
     "direct answer", "R-SKIP-1"),
    ("direct answer", {"starts_in_reasoning": True, "may_skip_reasoning": True,
                       "finish_reason": "length"}, "", "R-SKIP-3"),
    ("plan</think>ans", {"starts_in_reasoning": True, "may_skip_reasoning": True}, "ans",
     "R-SKIP-2"),
    ("a§x¶b", {"delimiters": [{"open": "§", "close": "¶"}]}, "ab", "R-CUSTOM-1"),
    ("<think>x</r>y", {"delimiters": [{"open": "<think>", "close": "</r>"}]}, "y", "R-CUSTOM-2"),
]


def feed_all(deltas, **context) -> str:
    scrubber = ReferenceScrubber(**context)
    return "".join(scrubber.feed(d) for d in deltas) + scrubber.flush()


@pytest.mark.parametrize("text,context,expected,rule", CASES, ids=[c[3] for c in CASES])
def test_spec_example_whole_and_per_character(text, context, expected, rule):
    assert feed_all([text], **context) == expected
    assert feed_all(list(text), **context) == expected


@pytest.mark.parametrize("text,context,expected,rule", CASES, ids=[c[3] for c in CASES])
def test_every_two_way_split_agrees(text, context, expected, rule):
    for k in range(1, len(text)):
        assert feed_all([text[:k], text[k:]], **context) == expected, k


@pytest.mark.parametrize("text,context,expected,rule", CASES, ids=[c[3] for c in CASES])
def test_output_is_idempotent_and_tag_free(text, context, expected, rule):
    features = context.get("features", ())
    delimiters = context.get("delimiters", ())
    assert strip_reasoning(expected, features=features, delimiters=delimiters) == expected
    assert tags_outside_code(expected, build_vocabulary(features, delimiters)) == []


def test_flush_resets_state_for_reuse():
    scrubber = ReferenceScrubber()
    scrubber.feed("Sure.<think>poison\n<thi")
    scrubber.flush()
    assert scrubber.feed("plain answer") + scrubber.flush() == "plain answer"


def test_finish_reason_can_arrive_at_flush():
    scrubber = ReferenceScrubber(inline_answer=True, finish_reason=None)
    scrubber.feed("<think>plan\nThe answer")
    assert scrubber.flush(finish_reason="stop") == "The answer"


def test_cuts_mark_where_text_was_removed():
    visible, cuts = scrub_with_cuts("Hello <think>x</think>world</think>!")
    assert visible == "Hello world!"
    assert cuts == [6, 11]


def test_decided_text_is_emitted_without_waiting_for_flush():
    scrubber = ReferenceScrubber()
    assert scrubber.feed("Hello there, ") == "Hello there, "
    assert scrubber.feed("a <thi") == "a "
    assert scrubber.feed("s is not a tag") == "<this is not a tag"


TOKENS = st.sampled_from(
    ["<think>", "</think>", "<Thinking>", "</thinking>", "`", "``", "```", "\n", " ", "x",
     "answer", "<thi", "nk>", "</", "~~~", "    ", "é", "\u2028", "\r\n"]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(TOKENS, max_size=25), st.data())
def test_chunking_invariance_and_idempotence_on_token_soup(tokens, data):
    text = "".join(tokens)
    whole = feed_all([text])
    cuts = sorted(data.draw(st.sets(st.integers(0, len(text)), max_size=6)))
    pieces = [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True)]
    assert feed_all(pieces) == whole
    assert feed_all([whole]) == whole
    assert tags_outside_code(whole) == []


@pytest.mark.parametrize(
    "text,expected",
    [
        ("`<think>`</think>`", "`<think>`"),
        ("x`<think>y</think>`z", "x`<think>y</think>`z"),
        ("a`</think>`` b", "a` b"),
        ("```\r\n<think>x</think>\r\n```\r\n<think>y</think>z",
         "```\r\n<think>x</think>\r\n```\r\nz"),
    ],
)
def test_removal_never_joins_backtick_runs_and_crlf_fences_close(text, expected):
    assert feed_all([text]) == expected
    assert feed_all(list(text)) == expected
    assert feed_all([expected]) == expected
