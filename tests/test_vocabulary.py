"""The vocabulary (SPEC section 2, R-CUSTOM-1..2): what is a tag, how pairs share
delimiters, which caller configurations are unusable, and the context that carries them."""

from __future__ import annotations

import pytest

from scrubcheck.adapters.context import CONTEXT_KEYS
from scrubcheck.corpus.scenario_builder import context_from
from scrubcheck.model import Context
from scrubcheck.vocabulary import (
    FEATURES,
    CustomDelimiter,
    DelimiterError,
    build_vocabulary,
    custom_delimiters,
    feature_tags,
    fold,
)


def test_every_feature_together_is_prefix_free_and_one_kind_per_text():
    """SPEC R-VOCAB-3: no delimiter is a proper prefix of another, with all features on."""
    vocabulary = build_vocabulary(FEATURES)
    keys = sorted(vocabulary.by_folded)
    for i, key in enumerate(keys):
        assert not any(other.startswith(key) for other in keys[i + 1:]), key
    texts = [fold(t.text) for f in FEATURES.values() for t in feature_tags(f)]
    assert set(texts) <= set(keys)


def test_a_text_shared_by_two_features_closes_for_both():
    """R-CUSTOM-2 between features: harmony and solar-open share `<|end|>`."""
    vocabulary = build_vocabulary(("harmony", "solar-open"))
    end = vocabulary.lookup("<|END|>")
    assert end is not None and end.kind == "close"
    assert end.names == {"harmony:message", "solar-open:1"}
    think = vocabulary.lookup("<|think|>")
    assert think is not None and [t.text for t in vocabulary.closes_of(think)] == ["<|end|>"]


def test_a_pair_may_list_several_closes():
    vocabulary = build_vocabulary(("kimi-xtml",))
    think = vocabulary.lookup("<|open|>think")
    assert think is not None
    assert {t.text for t in vocabulary.closes_of(think)} == {"<|close|>think", "<|open|>response"}


def test_harmony_header_close_does_not_end_a_prefilled_block():
    vocabulary = build_vocabulary(("harmony",))
    closes = {t.text for t in vocabulary.block_closes()}
    assert "<|message|>" not in closes
    assert {"<|end|>", "<|call|>", "<|return|>", "</think>"} <= closes


@pytest.mark.parametrize("delimiters,changes", [
    ([{"open": "<think>", "close": "</reflect>"}], {"<think>": {"</think>", "</reflect>"}}),
    ([{"open": "<reflect>", "close": "</think>"}], {"<think>": {"</think>"},
                                                    "<reflect>": {"</think>"}}),
    ([{"open": "<think>", "close": "</think>"}], {"<think>": {"</think>"}}),
    ([{"open": "§", "close": "¶"}], {"§": {"¶"}}),
])
def test_custom_pairs_add_to_the_family_and_join_shared_texts(delimiters, changes):
    vocabulary = build_vocabulary((), delimiters)
    assert vocabulary.lookup("<thinking>") is not None  # added, never replacing
    for open_text, closes in changes.items():
        tag = vocabulary.lookup(open_text)
        assert tag is not None and tag.kind == "open"
        assert {t.text for t in vocabulary.closes_of(tag)} == closes


@pytest.mark.parametrize("delimiters,complaint", [
    ([{"open": "", "close": "x"}], "empty"),
    ([{"open": "`a", "close": "b"}], "backtick"),
    ([{"open": "a\nb", "close": "c"}], "line feed"),
    ([{"open": " a", "close": "b"}], "whitespace"),
    ([{"open": "~~x", "close": "b"}], "'~'"),
    ([{"open": "<think", "close": "</x>"}], "prefix"),
    ([{"open": "<think>!", "close": "</x>"}], "prefix"),
    ([{"open": "<r>", "close": "<r>"}], "both"),
    ([{"marker": "<think>"}], "both"),
    ([{"open": "</think>", "close": "<z>"}], "both"),
])
def test_unusable_configurations_are_refused(delimiters, complaint):
    with pytest.raises(DelimiterError, match=complaint):
        build_vocabulary((), delimiters)


@pytest.mark.parametrize("raw", [
    {"open": "a"}, {"marker": "m", "open": "a", "close": "b"}, {"open": 1, "close": "b"},
    {"start": "a", "end": "b"}, "<r>",
])
def test_malformed_delimiter_entries_are_refused(raw):
    with pytest.raises(DelimiterError):
        custom_delimiters([raw])


def test_context_carries_the_new_keys_both_ways():
    context = Context(starts_in_reasoning=True, may_skip_reasoning=True,
                      delimiters=[{"open": "<r>", "close": "</r>"}, {"marker": "@@"}])
    assert context.delimiters == (CustomDelimiter("<r>", "</r>"), CustomDelimiter(marker="@@"))
    assert Context(**context.as_kwargs()) == context
    assert context.required_keys() == ("starts_in_reasoning", "finish_reason",
                                       "may_skip_reasoning", "delimiters")
    assert context.truncated().may_skip_reasoning and context.truncated().delimiters
    assert context.for_rescrub() == Context(delimiters=context.delimiters)
    assert {"may_skip_reasoning", "delimiters"} <= set(CONTEXT_KEYS)
    # the signal without a pre-filled open changes nothing, so it is not required
    assert Context(may_skip_reasoning=True).required_keys() == ()
    assert context_from({"may_skip_reasoning": True, "delimiters": [{"marker": "@@"}]}) == \
        Context(may_skip_reasoning=True, delimiters=(CustomDelimiter(marker="@@"),))
