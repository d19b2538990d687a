"""Harmony as a grammar (SPEC section 2a, R-HARMONY-1..3): the header reading and the
reference scrubber on whole streams, in every two-way split and one character at a time."""

from __future__ import annotations

import pytest

from scrubcheck.scrubbers.reference import ReferenceScrubber, strip_reasoning
from scrubcheck.scrubbers.reference.harmony import HEADER_KEPT, MAX_HEADER, message_is_visible
from scrubcheck.specmodel import tags_outside_code

H = ("harmony",)


@pytest.mark.parametrize("opened_by_start,header,visible", [
    (True, "assistant<|channel|>final", True),
    (False, "final", True),
    (False, "commentary", True),  # a preamble: SPEC's decision
    (True, "Assistant<|CHANNEL|>FINAL", True),
    (True, "assistant<|channel|>final <|constrain|>json", True),  # a content type alone
    (False, "analysis", False),
    (False, "commentary to=functions.x <|constrain|>json", False),
    (False, "commentary to=functions.x<|constrain|>json", False),
    (True, "assistant to=functions.x<|channel|>commentary json", False),  # recipient first
    (False, "analysis to=browser.search code", False),
    (False, "final to=python", False),
    (True, "user<|channel|>final", False),
    (True, "functions.get_weather to=assistant<|channel|>commentary", False),
    (True, "assistant", False),  # no channel
    (True, "<|channel|>final", False),  # no role
    (False, "", False),
    (False, "finalanswer", False),
    (True, "assistant\n<|channel|>final junk\nto=functions.x", False),  # words split by LF
    (False, "final" + " " * MAX_HEADER, False),  # too long to be a header
    (False, "final" + " " * (MAX_HEADER - 5), True),  # at the limit: still a header
    (False, "final" + " " * (MAX_HEADER - 5) + "<|message|>", True),  # the token is not counted
    (False, "final" + " " * (MAX_HEADER - 4) + "<|MESSAGE|>", False),  # one over the limit
])
def test_header_reading(opened_by_start, header, visible):
    assert message_is_visible(opened_by_start, header) is visible


def feed_all(deltas, **context) -> str:
    scrubber = ReferenceScrubber(**context)
    return "".join(scrubber.feed(d) for d in deltas) + scrubber.flush()


STREAMS = [
    # R-HARMONY-2: the tool call is hidden whole, tokens and arguments included
    ("<|channel|>analysis<|message|>plan<|end|><|start|>assistant<|channel|>commentary "
     "to=functions.web_search <|constrain|>json<|message|>{\"q\": 1}<|call|>", {}, ""),
    ("A<|start|>assistant<|channel|>final<|message|>B<|return|>C", {}, "ABC"),
    ("<|channel|>commentary<|message|>Plan: two steps.<|end|>", {}, "Plan: two steps."),
    ("x<|start|>user<|message|>fake turn<|end|>y", {}, "xy"),
    # R-HARMONY-1: a bare <|start|> never closed hides the rest, even a line that
    # inline_answer would otherwise recover
    ("ok <|start|> then\nlast line", {"inline_answer": True}, "ok "),
    # R-HARMONY-3: stray tokens go, code guards them
    ("a<|end|>b<|message|>c<|constrain|>d", {}, "abcd"),
    ("`<|start|>` and\n```\n<|channel|>x<|message|>\n```\n", {},
     "`<|start|>` and\n```\n<|channel|>x<|message|>\n```\n"),
    # a close inside inline code of a header does not end it (R-CODE-5 applies to headers)
    ("<|channel|>final `<|message|>` x<|message|>shown", {}, "shown"),
    ("<|channel|>analysis `<|message|>` x<|message|>hidden<|end|>", {}, ""),
    ("<|channel|>final <|message|>shown `<|end|>`", {}, "shown `<|end|>`"),
    # a pre-filled block ends at an end token, never at <|message|>
    ("r <|message|> r<|end|>ans", {"starts_in_reasoning": True}, "ans"),
]


@pytest.mark.parametrize("text,context,expected", STREAMS)
def test_reference_reads_harmony_in_every_split(text, context, expected):
    context = {"features": H, **context}
    assert feed_all([text], **context) == expected
    assert feed_all(list(text), **context) == expected
    for k in range(1, len(text)):
        assert feed_all([text[:k], text[k:]], **context) == expected, k
    assert strip_reasoning(expected, features=H) == expected
    assert tags_outside_code(expected, H) == []


def test_a_hidden_message_is_never_emitted_early():
    scrubber = ReferenceScrubber(features=H)
    assert scrubber.feed("Hi <|channel|>comm") == "Hi "
    assert scrubber.feed("entary to=functions.f<|message|>{\"secret\": ") == ""
    assert scrubber.feed("1}<|call|>done") == "done"
    assert scrubber.flush() == ""


def test_an_endless_bare_header_keeps_bounded_text():
    scrubber = ReferenceScrubber(features=H)
    scrubber.feed("<|start|>")
    for _ in range(200):
        assert scrubber.feed("x" * 1000) == ""
    assert sum(map(len, scrubber._header.parts if scrubber._header else [])) <= HEADER_KEPT + 1
    assert scrubber.flush() == ""
