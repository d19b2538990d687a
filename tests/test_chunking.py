"""The chunking matrix: which chunkings exist, that each rebuilds the text, that
names replay, that random ones are seeded, and that caps are counted."""

from __future__ import annotations

import pytest

from scrubcheck.chunking import (
    Caps,
    chunking_by_name,
    chunking_names,
    chunking_plan,
    chunkings,
    cut_points,
    seeded_rng,
    tag_spans,
)
from scrubcheck.model import Context, Scenario
from scrubcheck.vocabulary import Tag, Vocabulary, build_vocabulary

VOCAB = build_vocabulary()


def scenario(deltas, *, sid="s", features=()):
    return Scenario(id=sid, area="t", rules=("R-CHUNK-1",), description="d",
                    deltas=tuple(deltas), reasoning=(), context=Context(features=features))


def by_name(items):
    return {c.name: c for c in items}


def test_every_chunking_rebuilds_the_text():
    s = scenario(["Hi <thi", "nk>plan</THINK>there"])
    for chunking in chunkings(s, VOCAB, seed=0):
        assert "".join(chunking.deltas) == s.text, chunking.name


def test_families_present():
    s = scenario(["Hi <thi", "nk>plan</THINK>there"])
    names = [c.name for c in chunkings(s, VOCAB, seed=0, random_count=3)]
    assert names[:4] == ["recorded", "whole", "recorded+empty", "char"]
    assert [n for n in names if n.startswith("split@")] == [
        f"split@{k}" for k in range(1, len(s.text))]
    assert [n for n in names if n.startswith("fixed-")] == [f"fixed-{n}" for n in range(2, 9)]
    assert "tags" in names
    assert [n for n in names if n.startswith("random-")] == ["random-1", "random-2", "random-3"]


def test_split_fixed_char_contents():
    s = scenario(["abcdefghij"])
    matrix = by_name(chunkings(s, VOCAB, seed=0))
    assert matrix["split@3"].deltas == ("abc", "defghij")
    assert matrix["fixed-3"].deltas == ("abc", "def", "ghi", "j")
    assert matrix["char"].deltas == tuple("abcdefghij")
    assert matrix["whole"].deltas == ("abcdefghij",)
    assert matrix["recorded+empty"].deltas == ("", "abcdefghij", "")


def test_tags_chunking_isolates_every_tag_case_insensitively():
    s = scenario(["a<THINK>x</think>b<thinking>y</Thinking>c"])
    assert by_name(chunkings(s, VOCAB, seed=0))["tags"].deltas == (
        "a", "<THINK>", "x", "</think>", "b", "<thinking>", "y", "</Thinking>", "c")


def test_tags_chunking_uses_the_active_vocabulary():
    text = "a[THINK]x[/THINK]b"
    plain = by_name(chunkings(scenario([text]), VOCAB, seed=0))["tags"]
    assert plain.deltas == (text,)
    with_feature = scenario([text], features=("bracket",))
    vocab = build_vocabulary(("bracket",))
    assert by_name(chunkings(with_feature, vocab, seed=0))["tags"].deltas == (
        "a", "[THINK]", "x", "[/THINK]", "b")


def test_tag_spans_prefer_the_longest_tag():
    # Since SPEC 1.2 no vocabulary holds a tag that is a prefix of another, so the
    # preference is pinned on a hand-made table.
    tags = {t: Tag(t, "open", frozenset({"x"})) for t in ("<|a|>", "<|a|>b<|c|>", "<|c|>")}
    vocab = Vocabulary(frozenset(), tags)
    assert tag_spans("<|a|>b<|c|>x<|c|>", vocab) == [(0, 11), (12, 17)]
    harmony = build_vocabulary(("harmony",))
    text = "<|channel|>analysis<|message|>x<|end|>"
    assert tag_spans(text, harmony) == [(0, 11), (19, 30), (31, 38)]


def test_random_chunkings_are_deterministic_by_seed_and_scenario():
    s = scenario(["The answer is <think>a long enough plan to split</think> 42, surely."])
    first = [c for c in chunkings(s, VOCAB, seed=7) if c.family == "random"]
    again = [c for c in chunkings(s, VOCAB, seed=7) if c.family == "random"]
    other_seed = [c for c in chunkings(s, VOCAB, seed=8) if c.family == "random"]
    other_id = [c for c in chunkings(scenario(s.deltas, sid="t"), VOCAB, seed=7)
                if c.family == "random"]
    assert first == again
    assert [c.deltas for c in first] != [c.deltas for c in other_seed]
    assert [c.deltas for c in first] != [c.deltas for c in other_id]
    assert len({c.deltas for c in first}) == len(first)  # the variants differ from each other


def test_chunking_by_name_replays_every_member_of_the_matrix():
    s = scenario(["Hi <thi", "nk>plan</THINK>there"])
    for chunking in chunkings(s, VOCAB, seed=3):
        assert chunking_by_name(s, VOCAB, chunking.name, seed=3) == chunking


@pytest.mark.parametrize("name", ["split@0", "split@99", "fixed-0", "random-0", "bogus", "trunc@3"])
def test_chunking_by_name_rejects_unknown_names(name):
    with pytest.raises(ValueError, match="unknown chunking"):
        chunking_by_name(scenario(["short text"]), VOCAB, name, seed=0)


def test_short_inputs_are_never_capped():
    s = scenario(["x" * 2000])
    names, capped = chunking_names(s, VOCAB, seed=0)
    assert capped == {}
    assert sum(n.startswith("split@") for n in names) == 1999


def test_long_inputs_cap_split_points_visibly_and_keep_tag_boundaries():
    text = "a" * 3000 + "<think>plan</think>" + "b" * 3000
    s = scenario([text])
    caps = Caps()
    names, capped = chunking_names(s, VOCAB, seed=0, caps=caps)
    splits = [int(n.split("@")[1]) for n in names if n.startswith("split@")]
    assert capped["split"] == (len(text) - 1) - len(splits) > 0
    open_at = text.index("<think>")
    for k in range(open_at - caps.tag_window, open_at + caps.tag_window + 1):
        assert k in splits  # every point near a tag boundary is kept
    assert len(splits) <= caps.max_variants(len(text))


def test_cut_points_include_both_ends_and_count_what_they_leave_out():
    text = "z" * 5000
    points, left_out = cut_points(text, VOCAB, seeded_rng(0, "s", "cuts"), Caps(), ends=True)
    assert points[0] == 0 and points[-1] == len(text)
    assert left_out == len(text) + 1 - len(points)
    again, _ = cut_points(text, VOCAB, seeded_rng(0, "s", "cuts"), Caps(), ends=True)
    assert again == points


def test_chunkings_with_too_many_deltas_are_capped_and_counted():
    s = scenario(["y" * 100])
    names, capped = chunking_names(s, VOCAB, seed=0, caps=Caps(max_deltas=30))
    assert "char" not in names and capped["char"] == 1
    assert "fixed-4" in names and "fixed-3" not in names  # 25 deltas run, 34 do not
    assert capped["fixed"] == 2 and capped["random"] >= 1
    assert chunking_by_name(s, VOCAB, "char", seed=0).deltas == tuple("y" * 100)  # replayable


def test_plan_reports_caps_with_the_chunkings():
    plan = chunking_plan(scenario(["q" * 3000]), VOCAB, seed=0)
    assert plan.capped["split"] > 0
    assert all("".join(c.deltas) == "q" * 3000 for c in plan.chunkings)


def test_empty_text():
    matrix = by_name(chunkings(scenario([""]), VOCAB, seed=0))
    assert matrix["char"].deltas == ()
    assert not any(n.startswith("split@") for n in matrix)
    assert matrix["tags"].deltas == ("",)
