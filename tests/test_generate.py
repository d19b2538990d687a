"""The generators: the stream model's expected output against SPEC (cross-checked with the
reference scrubber), canaries, choosers, partitions and the public strategies."""

from __future__ import annotations

import random
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scrubcheck.corpus.overlap import overlaps
from scrubcheck.generate import (
    BytesChooser,
    ListChooser,
    Profile,
    build_stream,
    canary,
    canary_run,
    choose_partition,
    find_canaries,
    render,
    shape_rules,
    strategies,
)
from scrubcheck.generate.pieces import ODD_UNICODE, PUNCTUATION, WORDS, answer_literals
from scrubcheck.generate.stream_model import (
    CANARY,
    CODE,
    NOISE,
    Answer,
    Block,
    Bypass,
    Harmony,
    Orphan,
    Prefill,
    Reasoning,
    Splice,
    StreamModel,
    Unclosed,
)
from scrubcheck.model import Context
from scrubcheck.scrubbers.reference import ReferenceScrubber, strip_reasoning
from scrubcheck.specmodel import tags_outside_code
from scrubcheck.vocabulary import FEATURES, build_vocabulary

ALL = tuple(sorted(FEATURES))
FAST = settings(max_examples=150, deadline=None, database=None,
                suppress_health_check=list(HealthCheck))


def scrub(deltas, context: Context) -> str:
    scrubber = ReferenceScrubber(**context.as_kwargs())
    return "".join(scrubber.feed(d) for d in deltas) + scrubber.flush()


def seeded_streams(count: int, profile: Profile):
    for seed in range(count):
        rng = random.Random(seed)
        yield build_stream(ListChooser([rng.randrange(256) for _ in range(400)]), profile)


# -- the model against SPEC -------------------------------------------------------
def test_model_agrees_with_the_reference_on_a_thousand_seeded_streams():
    """SPEC is the arbiter; the reference is its executable form. Any disagreement here
    is reported to the maintainers with the input, both outputs and the rule."""
    disagreements = []
    for stream in seeded_streams(1000, Profile(ALL)):
        assert stream.ok, stream.problem
        got = scrub([stream.text], stream.context)
        if got != stream.expected:
            disagreements.append((stream.text, stream.context, stream.expected, got))
    assert disagreements == []


def test_model_agrees_with_the_reference_on_the_spec_1_2_formats_and_contexts():
    """Harmony messages, the new channel families, may-skip pre-fills and caller
    delimiters: every shape appears, and the model and the reference agree on each."""
    profile = Profile(("apertus", "gemma-channel", "harmony", "kimi-xtml", "solar-open"))
    labels: set[str] = set()
    disagreements = []
    for stream in seeded_streams(1000, profile):
        assert stream.ok, stream.problem
        labels.update(stream.labels)
        for deltas in ([stream.text], list(stream.text)):
            got = scrub(deltas, stream.context)
            if got != stream.expected:
                disagreements.append((stream.text, stream.context, stream.expected, got))
    assert disagreements == []
    assert {"harmony-visible", "harmony-hidden", "harmony-tool", "skipped", "may-skip",
            "custom"} <= labels


@FAST
@given(strategies.chunked_streams(features=ALL))
def test_model_output_holds_under_any_partition(case):
    stream, deltas = case
    assert "".join(deltas) == stream.text
    assert scrub(deltas, stream.context) == stream.expected


@FAST
@given(strategies.streams(features=ALL))
def test_expected_output_is_idempotent_tag_free_and_leak_free(stream):
    features = stream.context.features
    assert strip_reasoning(stream.expected, features=features) == stream.expected
    assert tags_outside_code(stream.expected, features) == []
    assert overlaps(stream.reasoning, stream.expected) == {}
    assert all(run in stream.text for run in stream.reasoning)


@pytest.mark.parametrize("model,expected", [
    # whitespace is never trimmed around a removed block (R-WS-1)
    (StreamModel(items=(Answer("\n\nHi "), Block("<think>", Reasoning(((CANARY, "qvaaaaaaaa"),)),
                                                  "</think>"), Answer("  there\n"))),
     "\n\nHi   there\n"),
    # R-CODE-7: the run after the removed block is dropped with it
    (StreamModel(items=(Bypass("see", 2, Block("<think>", Reasoning(
        ((NOISE, "`"), (CANARY, "qvbbbbbbbb"))), "</think>"), 3, " after"),)),
     "see`` after\n"),
    # R-TAG-1: a spliced open tag starts a block
    (StreamModel(items=(Answer("a"), Splice("<think>", 4, Orphan("</think>"),
                                            Reasoning(((CANARY, "qvcccccccc"),)), "</think>"),
                        Answer("b"))), "ab"),
    # R-ORPHAN-2 then an orphan
    (StreamModel(Context(starts_in_reasoning=True),
                 Prefill(Reasoning(((CANARY, "qvdddddddd"),)), "</thought>"),
                 (Answer("x"), Orphan("</think>"), Answer("y"))), "xy"),
    # R-UNCLOSED-2 recovers the last line only with the signal and stop
    (StreamModel(Context(inline_answer=True), items=(Answer("A "),),
                 unclosed=Unclosed("<think>", Reasoning(((CANARY, "qveeeeeeee"),)), "Final")),
     "A Final"),
    (StreamModel(Context(inline_answer=True, finish_reason="length"), items=(Answer("A "),),
                 unclosed=Unclosed("<think>", Reasoning(((CANARY, "qveeeeeeee"),)),
                                   "qvffffffff")), "A "),
    # R-HARMONY-2: a tool call is hidden, a final message shows, whatever the case
    (StreamModel(Context(features=("harmony",)), items=(
        Harmony("<|channel|>", "commentary to=functions.f <|constrain|>json", False,
                Reasoning(((CANARY, "qvjjjjjjjj"),)), "<|call|>"),
        Harmony("<|START|>", "assistant<|channel|>Final", True, "Hi", "<|return|>"),
        Harmony("<|start|>", "user<|channel|>final", False,
                Reasoning(((CANARY, "qvkkkkkkkk"),)), "<|end|>"))), "Hi"),
    # R-SKIP-1: the model skipped reasoning: the whole stream is the answer
    (StreamModel(Context(starts_in_reasoning=True, may_skip_reasoning=True),
                 items=(Answer("Paris."),), skipped=True), "Paris."),
    # R-CUSTOM-2: a caller's pair sharing `<think>` also ends its blocks
    (StreamModel(Context(delimiters=({"open": "<think>", "close": "</reflect>"},)), items=(
        Block("<think>", Reasoning(((CANARY, "qvmmmmmmmm"),)), "</reflect>"), Answer("ok"))),
     "ok"),
    # R-CODE-5: a close inside an inline span of the block does not end it
    (StreamModel(items=(Block("<think>", Reasoning(((CANARY, "qvgggggggg"),
                                                     (CODE, " `</think>` "))), "</think>"),
                        Answer("z"))), "z"),
])
def test_hand_built_models_give_the_spec_output(model, expected):
    stream = render(model)
    assert stream.ok, stream.problem
    assert stream.expected == expected
    assert scrub([stream.text], stream.context) == expected
    assert scrub(list(stream.text), stream.context) == expected


@pytest.mark.parametrize("model,problem", [
    (StreamModel(items=(Block("<think>", Reasoning(((NOISE, "a</think>b"),)), "</think>"),)),
     "outside code"),
    (StreamModel(items=(Answer("<thi"), Orphan("</think>"), Answer("nk>"))), "forms the tag"),
    (StreamModel(items=(Bypass("see", 1, Block("<think>", Reasoning(((CANARY, "qvhhhhhhhh"),)),
                                                "</think>"), 0, " a ` b"),)), "backtick"),
    (StreamModel(items=(Answer("```\nx", "open-fence"), Answer("more"))), "end the stream"),
    (StreamModel(items=(Orphan("[/THINK]"),)), "not an active"),
    (StreamModel(Context(features=("harmony",)),
                 items=(Block("<|start|>", Reasoning(), "<|message|>"),)), "header"),
    (StreamModel(Context(features=("harmony",)),
                 items=(Harmony("<|channel|>", "final", True, Reasoning(), None),)), "answer"),
    (StreamModel(Context(starts_in_reasoning=True), items=(Answer("x"),), skipped=True),
     "may_skip_reasoning"),
    (StreamModel(Context(starts_in_reasoning=True, may_skip_reasoning=True),
                 items=(Answer("a `</think>` b", "span"),), skipped=True),
     "would end the pre-filled"),
])
def test_render_refuses_streams_whose_meaning_it_cannot_vouch_for(model, problem):
    stream = render(model)
    assert not stream.ok
    assert problem in stream.problem


def test_every_shape_and_rule_is_generated():
    labels, rules = set(), set()
    for stream in seeded_streams(1500, Profile(ALL)):
        labels.update(stream.labels)
        rules.update(shape_rules(stream))
    from scrubcheck.generate.rules import LABEL_RULES

    assert set(LABEL_RULES) <= labels
    assert {"R-CTX-1", "R-VOCAB-4", "R-UNCLOSED-3", "R-BLOCK-3"} <= rules


def test_streams_only_use_what_the_profile_allows():
    profile = Profile(("bracket",), frozenset(), 4)
    for stream in seeded_streams(300, profile):
        assert stream.context.features in ((), ("bracket",))
        assert not stream.context.starts_in_reasoning and not stream.context.inline_answer


# -- canaries and stocks ----------------------------------------------------------------
def test_canaries_are_distinct_and_never_in_answer_stocks():
    canaries = [canary(i) for i in range(50_000)]
    assert len(set(canaries)) == len(canaries)
    assert all(re.fullmatch(r"qv[a-z2-7]{8}", c) for c in canaries[:100])
    stock = "".join([*WORDS, *PUNCTUATION, *ODD_UNICODE,
                     *answer_literals(build_vocabulary(ALL)), *answer_literals(build_vocabulary())])
    assert "qv" not in stock.lower()
    assert find_canaries("x " + canary_run(7, 3) + " y") == [canary(7), canary(8), canary(9)]
    with pytest.raises(ValueError):
        canary(-1)


# -- choosers and partitions ---------------------------------------------------------------
def test_choosers_replay_and_run_out_at_the_simplest_choice():
    chooser = BytesChooser(bytes([5, 200, 1, 2]))
    values = [chooser.below(3), chooser.below(10), chooser.below(300), chooser.below(7)]
    assert values == [2, 0, 258, 0]
    replay = ListChooser(chooser.used)
    assert [replay.below(3), replay.below(10), replay.below(300), replay.below(7)] == values
    assert replay.exhausted and ListChooser([]).below(9) == 0


@FAST
@given(st.text(max_size=40), st.lists(st.integers(0, 255), max_size=30))
def test_partitions_always_join_back_to_the_text(text, values):
    deltas = choose_partition(ListChooser(values), text, [(0, min(3, len(text)))])
    assert "".join(deltas) == text


# -- public strategies ---------------------------------------------------------------------
@FAST
@given(strategies.answer_texts(features=("kimi",)))
def test_answer_texts_come_out_unchanged(text):
    assert strip_reasoning(text, features=("kimi",)) == text


@FAST
@given(strategies.reasoning_texts("</thinking>"))
def test_reasoning_texts_are_removed_whole_inside_a_block(reasoning):
    assert find_canaries(reasoning) or not reasoning.strip()  # or an empty block
    assert strip_reasoning(f"a<thinking>{reasoning}</thinking>b") == "ab"


@FAST
@given(strategies.soups(features=("harmony",)))
def test_soups_are_text_with_a_context(soup):
    text, context = soup
    assert isinstance(text, str) and context.features == ("harmony",)


NEW_IN_1_2_1 = ("held-partial", "crowd", "cut-in-span", "fence-indent", "fence-not-closed",
                "not-a-fence")


@pytest.mark.parametrize("label", NEW_IN_1_2_1)
def test_shapes_that_mutants_taught_us_agree_with_reference_and_spec_model(label):
    """Shapes added after `scrubcheck mutate` showed the hunt never produced them (a
    close cut short before a line feed, `<` or a span inside a block; hundreds of runs
    before a tag; a cut run that may close a span around a close; indented fence
    lines): each appears in seeded streams, and the stream model, the independent spec
    model and the reference agree on every one, whole and character by character."""
    from scrubcheck.specmodel import read_stream

    seen = 0
    for stream in seeded_streams(1500, Profile(ALL)):
        if label not in stream.labels:
            continue
        seen += 1
        assert stream.ok, stream.problem
        assert read_stream(stream.text, stream.context).visible == stream.expected
        for deltas in ([stream.text], list(stream.text)):
            assert scrub(deltas, stream.context) == stream.expected, (stream.text, deltas[:3])
    assert seen >= 10, f"{label}: only {seen} of 1500 seeded streams"
