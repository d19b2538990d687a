"""The reference's fast paths do exactly what its character-by-character path does.

`ReferenceScrubber(fast_paths=False)` turns off every shortcut (whole deltas placed
by `feed`, plain text handed in bulk, whole tags matched by one regex); these
properties check, on generated SPEC streams, token soups, raw text over the tag
alphabet and every short sequence of state-changing segments, with random chunkings
and contexts, that both settings give the same output at every feed and at flush,
the same removal points (`last_cuts`), and the same scanner state after every feed.
"""

from __future__ import annotations

import itertools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scrubcheck.generate import strategies as sst
from scrubcheck.model import Context
from scrubcheck.scrubbers.reference import ReferenceScrubber
from scrubcheck.scrubbers.reference.tables import MatchTable
from scrubcheck.vocabulary import FEATURES, build_vocabulary

ALL_FEATURES = tuple(sorted(FEATURES))
#: caller delimiter sets (R-CUSTOM-1): a pair, a marker with a pair, a pair sharing a
#: close with the default family, and one spelled in mixed case
DELIMITER_SETS: tuple[tuple[dict[str, str], ...], ...] = (
    (),
    ({"open": "<q", "close": "</q>"},),
    ({"marker": "{{/"}, {"open": "<<b>", "close": "</b>>"}),
    ({"open": "[[plan]]", "close": "</think>"},),
    ({"open": "BeGiN", "close": "EnD"},),
)
_SETTINGS = settings(max_examples=300, deadline=None,
                     suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def _alphabet() -> list[str]:
    """Every tag of every feature and delimiter set, its halves and case variants, and
    the characters code structure turns on (backticks, tildes, spaces, line feeds)."""
    pieces = {"`", "``", "```", "~", "~~~", "\n", "\r\n", " ", "   ", "\t", "a", "xy", "é",
              "to=f", "assistant", "final", "commentary", "analysis", " " * 4100}
    for delimiters in DELIMITER_SETS:
        for tag in build_vocabulary(frozenset(ALL_FEATURES), delimiters).tags:
            text = tag.text
            half = max(1, len(text) // 2)
            pieces.update({text, text.upper(), text[:half], text[half:], text[:-1], text[1:]})
    return sorted(pieces)


ALPHABET = _alphabet()
#: the pieces most decisions turn on, drawn as often as all the others together
CORE = ("`", "``", "```", "~~~", "\n", " ", "a", "<", "<think>", "</think>", "<thi", "nk>",
        "<|start|>", "<|channel|>", "<|message|>", "final", "<|end|>")
PIECES = st.one_of(st.sampled_from(CORE), st.sampled_from(ALPHABET))


@st.composite
def contexts(draw: st.DrawFn) -> Context:
    features = draw(st.sampled_from([(), ALL_FEATURES, *((f,) for f in ALL_FEATURES)]))
    return Context(
        starts_in_reasoning=draw(st.booleans()),
        inline_answer=draw(st.booleans()),
        finish_reason=draw(st.sampled_from(["stop", "length", None, "tool_calls",
                                            "content_filter"])),
        features=features,
        may_skip_reasoning=draw(st.booleans()),
        delimiters=draw(st.sampled_from(DELIMITER_SETS)),
    )


@st.composite
def chunkings(draw: st.DrawFn, text: str) -> list[str]:
    """`text` split at random points, with empty deltas among them."""
    cuts = sorted(draw(st.lists(st.integers(0, len(text)), max_size=24)))
    deltas, at = [], 0
    for cut in cuts:
        deltas.append(text[at:cut])
        at = cut
    deltas.append(text[at:])
    return deltas


def _joined(parts: list[str] | None) -> str | None:
    return None if parts is None else "".join(parts)


def _state(scrubber: ReferenceScrubber) -> tuple[object, ...]:
    """Everything the scanner carries from one delta to the next, with held text
    compared as text (a fast path keeps a delta as one piece, the slow path as many).
    Equal states after every feed is stronger than equal output: a state bit that one
    path forgets shows here at once, not only deltas later when it changes output."""
    s = scrubber
    a, b, fence, header, held = s._answer, s._block, s._fence, s._header, s._held
    blocks = s._blocks
    return (
        s._mode, s._emitted, tuple(s._cuts), _joined(s._skip_text), s._header_length,
        (tuple(a.stack), a.last_backtick, a.drop_run, a.tilde, a.tilde_start, a.run,
         a.run_at_line_start, a.run_start, a.runs, a.fence_candidate),
        None if fence is None else fence.opener_line,
        (blocks.blocks, "".join(blocks.head), blocks.head_open, blocks.backtick_after,
         blocks.goes_on),
        (b.closes, b.partial, b.run, b.runs, _joined(b.line), b.has_newline),
        None if header is None else (header.opened_by_start, _joined(header.parts)),
        None if held is None else (held.raw, held.tag, held.in_block, _joined(held.parts)),
    )


def _run(context: Context, deltas: list[str], fast: bool
         ) -> tuple[list[str], list[tuple[object, ...]], list[int]]:
    scrubber = ReferenceScrubber(**context.as_kwargs(), fast_paths=fast)
    outputs, states = [], []
    for delta in deltas:
        outputs.append(scrubber.feed(delta))
        states.append(_state(scrubber))
    outputs.append(scrubber.flush())
    return outputs, states, scrubber.last_cuts


def _assert_same(context: Context, deltas: list[str]) -> None:
    fast = _run(context, deltas, fast=True)
    slow = _run(context, deltas, fast=False)
    assert fast[0] == slow[0], "output differs at some feed or at flush"
    assert fast[2] == slow[2], "last_cuts differ"
    assert fast[1] == slow[1], "the scanner's state differs after some feed"


@_SETTINGS
@given(st.data())
def test_fast_and_slow_agree_on_raw_text_over_the_tag_alphabet(data: st.DataObject) -> None:
    text = "".join(data.draw(st.lists(PIECES, max_size=40)))
    _assert_same(data.draw(contexts()), data.draw(chunkings(text)))


@_SETTINGS
@given(st.data())
def test_fast_and_slow_agree_on_one_character_deltas(data: st.DataObject) -> None:
    text = "".join(data.draw(st.lists(PIECES, max_size=30)))
    _assert_same(data.draw(contexts()), list(text))


@_SETTINGS
@given(sst.chunked_streams(features=ALL_FEATURES))
def test_fast_and_slow_agree_on_generated_streams(case) -> None:  # type: ignore[no-untyped-def]
    stream, deltas = case
    _assert_same(stream.context, list(deltas))


@_SETTINGS
@given(st.data())
def test_fast_and_slow_agree_on_token_soup_in_any_context(data: st.DataObject) -> None:
    features = data.draw(st.sampled_from([(), ALL_FEATURES]))
    text, _ = data.draw(sst.soups(features=features))
    context = data.draw(contexts())
    context = Context(**{**context.as_kwargs(), "features": features})
    _assert_same(context, data.draw(chunkings(text)))


#: units that change the scanner's state: code spans and runs, fences, line starts,
#: whole blocks, tags and their halves, harmony headers
SEGMENTS = ("`a`", "`", "``", "```", "~~~", "a", " ", "   ", "\n", "<think>r</think>", "</think>",
            "<think>", "<thi", "nk>", "<", "\nr")
HARMONY_SEGMENTS = ("`a`", "`", "```", "a", "\n", "<|start|>", "assistant", "<|channel|>",
                    "final", "<|message|>", "<|end|>", "<|", "|>", "</think>")


@pytest.mark.parametrize("context,segments,length", [
    (Context(), SEGMENTS, 4),
    (Context(starts_in_reasoning=True, inline_answer=True), SEGMENTS, 3),
    (Context(starts_in_reasoning=True, may_skip_reasoning=True), SEGMENTS, 3),
    (Context(finish_reason="length"), SEGMENTS, 3),
    (Context(features=("harmony",)), HARMONY_SEGMENTS, 3),
], ids=["default", "inline-answer", "may-skip", "cut-off", "harmony"])
def test_fast_and_slow_agree_on_every_short_sequence_of_segments(
    context: Context, segments: tuple[str, ...], length: int
) -> None:
    """Exhaustive where random draws are thin: every sequence of `length` segments,
    fed whole and one segment per delta (a state bit that one path forgets shows
    within a few segments, e.g. a span, text, an orphan close and a backtick run)."""
    for combo in itertools.product(segments, repeat=length):
        text = "".join(combo)
        _assert_same(context, [text])
        _assert_same(context, list(combo))


def _stream_with_tags() -> str:
    return "Hi <think>x</think> plain text `a` <think>y</think>ok\n"


def test_the_switch_turns_the_whole_tag_regex_off(monkeypatch: pytest.MonkeyPatch) -> None:
    """The property above compares two different scans: with the switch off, the
    one-regex tag match is never used (with it on, it is)."""
    calls: list[int] = []
    original = MatchTable.tag_at

    def counting(self: MatchTable, text: str, i: int):  # type: ignore[no-untyped-def]
        calls.append(i)
        return original(self, text, i)

    monkeypatch.setattr(MatchTable, "tag_at", counting)
    slow = ReferenceScrubber(fast_paths=False)
    assert slow.feed(_stream_with_tags()) + slow.flush() == "Hi  plain text `a` ok\n"
    assert calls == []
    fast = ReferenceScrubber()
    assert fast.feed(_stream_with_tags()) + fast.flush() == "Hi  plain text `a` ok\n"
    assert calls


def test_the_switch_places_no_delta_whole() -> None:
    """With the switch off, a plain delta still goes through the scanner: a scanner
    that raises shows it (with the switch on, `feed` places the delta itself)."""

    class Scanless(ReferenceScrubber):
        def _process(self, text: str, eof: bool) -> None:
            if text:
                raise AssertionError("scanned")
            super()._process(text, eof)

    assert Scanless().feed("plain") == "plain"
    with pytest.raises(AssertionError, match="scanned"):
        Scanless(fast_paths=False).feed("plain")
