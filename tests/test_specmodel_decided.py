"""The hold-back yardstick (`specmodel.decided_ends`, SPEC R-STREAM-1/2).

It must be fair in both directions. Asking for too little lets a scrubber that
buffers pass; asking for too much fails a scrubber for holding text SPEC lets it
hold. The tests pin each hold R-STREAM-1 lists on a small stream, then check two
things on the corpus and on token soup:

- the streaming reference, one implementation under test, is never more than the
  check's allowance (the longest tag) behind what the model makes due;
- the model never makes due more than is decided. Decided is estimated a second,
  independent way: the longest prefix the model's outputs share over a set of ways
  the stream could go on (the real rest, ending now, each completion of a partial
  tag, a line feed, a backtick, each tag).
"""

from __future__ import annotations

from dataclasses import replace
from os.path import commonprefix

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from token_soup import token_soup

from scrubcheck.chunking import Caps
from scrubcheck.model import Context, Scenario
from scrubcheck.scrubbers.reference import make_scrubber
from scrubcheck.specmodel import decided_ends, read_stream
from scrubcheck.vocabulary import fold

SOUP = settings(max_examples=120, deadline=None, database=None,
                suppress_health_check=list(HealthCheck))


def _due(text: str, context: Context | None = None) -> list[str]:
    """The visible text due after each one-character feed."""
    visible = read_stream(text, context).visible
    return [visible[:n] for n in decided_ends(text, context)]


def _reference_ends(text: str, context: Context) -> list[int]:
    scrubber = make_scrubber(context)
    ends, total = [], 0
    for char in text:
        total += len(scrubber.feed(char))
        ends.append(total)
    return ends


def _decided_by_continuations(text: str, context: Context) -> list[int]:
    """For each prefix, how much of the whole output every tried continuation keeps."""
    vocabulary = context.vocabulary()
    tags = list(vocabulary.by_folded)
    whole = read_stream(text, context).visible
    endings = {context, replace(context, finish_reason="length")}
    decided = []
    for k in range(1, len(text) + 1):
        prefix = text[:k]
        tail = fold(prefix[-vocabulary.max_len:])
        goes_on = {"", "\n", "`", *tags}
        goes_on.update(t[j:] for t in tags for j in range(1, len(t)) if tail.endswith(t[:j]))
        decided.append(min(
            len(commonprefix([whole, read_stream(prefix + rest, ending).visible]))
            for rest in goes_on for ending in endings
        ))
    return decided


# -- each hold of R-STREAM-1, on a small stream -------------------------------------
def test_plain_text_is_due_as_it_arrives():
    assert _due("abc") == ["a", "ab", "abc"]


def test_partial_tags_at_the_end_are_not_due_until_they_fail():
    assert _due("a<th") == ["a", "a", "a", "a"]
    assert _due("a<th!")[-1] == "a<th!"


def test_partial_tags_touching_one_another_are_all_held():
    # a removed piece may follow and splice any of them (R-TAG-1)
    context = Context(delimiters=({"open": "<a<b>", "close": "</ab>"},))
    assert _due("x<a<", context)[-1] == "x"
    assert _due("x<a<z", context)[-1] == "x<a<z"


def test_a_backtick_run_is_due_once_the_character_after_it_is_read():
    due = _due("a``b")
    assert due[1] == "a" and due[2] == "a"  # "``" may still grow
    assert due[3] == "a``b"


def test_a_run_that_ends_the_stream_is_due_at_flush():
    assert _due("a`")[-1] == "a"


def test_a_tag_after_an_open_run_holds_the_rest_of_its_line():
    text = "x `<think>` y\nz"
    due = _due(text)
    assert due[text.index("y")] == "x `"  # the tag and its line wait for the line feed
    assert due[text.index("\n")] == "x `<think>` y\n"
    assert due[-1] == "x `<think>` y\nz"


def test_a_held_line_without_a_line_feed_waits_for_flush():
    assert _due("`<think>` y")[-1] == "`"


def test_a_close_after_an_open_run_in_a_block_holds_the_answer_on_its_line():
    text = "<think>a ``</think>`` b</think>answer\nnext"
    due = _due(text)
    assert due[text.index("\n") - 1] == ""
    assert due[text.index("\n")] == "answer\n"


def test_a_spliced_partial_is_due_once_the_character_after_the_piece_settles_it():
    text = "<thi<think>x</think>s!"
    due = _due(text)
    assert due[text.index("s") - 1] == ""  # the block's end: "<thi" may still join
    assert due[-1] == "<this!"


def test_what_only_the_end_decides_is_due_at_flush():
    context = Context(starts_in_reasoning=True, inline_answer=True)
    text = "reasoning\nthe answer"
    assert read_stream(text, context).visible == "the answer"  # R-UNCLOSED-2
    assert _due(text, context)[-1] == ""


# -- fair to a real streaming scrubber, and never ahead of what is decided ----------
def _lags(text: str, context: Context) -> list[tuple[int, int]]:
    """Feeds where the reference is more than the allowance behind the due output."""
    allowance = context.vocabulary().max_len
    due = decided_ends(text, context)
    got = _reference_ends(text, context)
    return [(k, due[k] - got[k]) for k in range(len(text)) if due[k] - got[k] > allowance]


def _ahead(text: str, context: Context) -> list[tuple[int, int]]:
    """Feeds where the model makes due more than is decided (by over the allowance:
    a scrubber holding a partial tag is never failed for it)."""
    allowance = context.vocabulary().max_len
    due = decided_ends(text, context)
    decided = _decided_by_continuations(text, context)
    return [(k, due[k] - decided[k]) for k in range(len(text))
            if due[k] - decided[k] > allowance]


def test_the_reference_never_lags_the_due_output_on_the_corpus(corpus):
    lagging = {}
    for scenario in corpus.scenarios:
        if len(scenario.text) <= Caps().max_deltas:  # the runner's `char` run
            found = _lags(scenario.text, scenario.context)
            if found:
                lagging[scenario.id] = found[:3]
    assert not lagging, list(lagging.items())[:5]


def _sample(scenarios: list[Scenario]) -> list[Scenario]:
    """Short scenarios with code or a held partial: where a hold can go wrong."""
    return [s for s in scenarios if len(s.text) <= 160 and ("`" in s.text or "<thi" in s.text)]


def test_the_model_makes_due_no_more_than_is_decided_on_corpus_scenarios(corpus):
    sample = _sample(corpus.scenarios)[::8]
    assert len(sample) > 30
    ahead = {s.id: found[:3] for s in sample if (found := _ahead(s.text, s.context))}
    assert not ahead, list(ahead.items())[:5]


_CONTEXTS = st.builds(
    Context,
    starts_in_reasoning=st.booleans(),
    inline_answer=st.booleans(),
    finish_reason=st.sampled_from(["stop", "length"]),
    features=st.sampled_from([(), ("harmony",), ("bracket", "gemma-channel")]),
    may_skip_reasoning=st.booleans(),
)
_STRUCTURE = ("`", "``", "```", "\n", " ", "<", "x", "- ", "> ")


_soup = token_soup(_CONTEXTS, _STRUCTURE, max_size=16)


@SOUP
@given(_soup)
def test_on_token_soup_the_reference_keeps_up_and_the_model_asks_only_what_is_decided(case):
    text, context = case
    assert not _lags(text, context), (text, context)
    assert not _ahead(text, context), (text, context)


@pytest.mark.parametrize("text", ["`<think>` y", "a``", "<think>a ``</think>`` b</think>c"])
def test_the_yardstick_can_fail_a_scrubber_that_buffers_everything(text):
    """A scrubber that shows nothing before flush() lags wherever output is due."""
    due = decided_ends(text + "\nmore text than any tag is long", Context())
    assert due[-1] > Context().vocabulary().max_len
