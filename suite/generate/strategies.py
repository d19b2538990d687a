"""Public Hypothesis strategies for testing a reasoning scrubber in your own suite.

    from hypothesis import given
    from scrubcheck.generate import strategies as sst

    @given(sst.chunked_streams(features=("bracket",)))
    def test_no_leak(case):
        stream, deltas = case
        scrubber = MyScrubber(**stream.context.as_kwargs())
        out = "".join(scrubber.feed(d) for d in deltas) + scrubber.flush()
        assert not find_canaries(out)        # any canary in the output is a proven leak
        assert out == stream.expected        # SPEC's output, whitespace exact

Streams come with their context (`stream.context`): only ask for the context
keys your scrubber accepts (`context_keys`), or it will be judged on streams it
cannot be told about. Every strategy shrinks towards one plain `<think>` block.
"""

from __future__ import annotations

from collections.abc import Iterable

from hypothesis import strategies as st

from scrubcheck.generate.chooser import DrawChooser
from scrubcheck.generate.partition import choose_partition
from scrubcheck.generate.shapes import (
    Profile,
    build_answer_model,
    build_reasoning,
    build_stream,
)
from scrubcheck.generate.soup import choose_soup
from scrubcheck.generate.stream_model import RenderedStream, render
from scrubcheck.model import CONTEXT_KEYS, Context
from scrubcheck.vocabulary import build_vocabulary


def _profile(features: Iterable[str], context_keys: Iterable[str], max_items: int) -> Profile:
    return Profile(tuple(sorted(set(features))), frozenset(context_keys), max_items)


def streams(
    features: Iterable[str] = (),
    context_keys: Iterable[str] = CONTEXT_KEYS,
    max_items: int = 6,
) -> st.SearchStrategy[RenderedStream]:
    """Streams in every SPEC shape, with their expected output and canary reasoning.

    `features`: the vocabularies your scrubber declares (each stream enables none,
    one or all of them). `context_keys`: what your scrubber can be told.
    """
    profile = _profile(features, context_keys, max_items)

    @st.composite
    def _streams(draw: st.DrawFn) -> RenderedStream:
        return build_stream(DrawChooser(draw), profile)

    return _streams().filter(lambda s: s.ok)


def answer_texts(features: Iterable[str] = (), max_items: int = 4) -> st.SearchStrategy[str]:
    """Answer text mixing prose, inline code, fences, lookalike tags and odd unicode.

    A conforming scrubber returns it unchanged (with `features` enabled)."""
    profile = _profile(features, (), max_items)

    @st.composite
    def _answers(draw: st.DrawFn) -> RenderedStream:
        return render(build_answer_model(DrawChooser(draw), profile))

    return _answers().filter(lambda s: s.ok).map(lambda s: s.text)


def reasoning_texts(close: str = "</think>", features: Iterable[str] = ()
                    ) -> st.SearchStrategy[str]:
    """Reasoning made of unique canary tokens (plus tags and code that do not end the
    block); `close` ends it only where it ends. No answer text ever holds a canary."""
    profile = _profile(features, (), 6)

    @st.composite
    def _reasoning(draw: st.DrawFn) -> str:
        return build_reasoning(DrawChooser(draw), close, profile).text

    return _reasoning()


def partitions(text: str, tag_ranges: list[tuple[int, int]] | None = None
               ) -> st.SearchStrategy[tuple[str, ...]]:
    """Ways to split `text` into deltas (whole, free cuts with empty deltas, one
    character each, cuts inside the given tag ranges)."""

    @st.composite
    def _partitions(draw: st.DrawFn) -> tuple[str, ...]:
        return choose_partition(DrawChooser(draw), text, tag_ranges)

    return _partitions()


def chunked_streams(
    features: Iterable[str] = (),
    context_keys: Iterable[str] = CONTEXT_KEYS,
    max_items: int = 6,
) -> st.SearchStrategy[tuple[RenderedStream, tuple[str, ...]]]:
    """A stream and one partition of it into deltas."""
    return streams(features, context_keys, max_items).flatmap(
        lambda s: st.tuples(st.just(s), partitions(s.text, s.tag_ranges())))


def soups(features: Iterable[str] = ()) -> st.SearchStrategy[tuple[str, Context]]:
    """Token soup (tag fragments, backticks, fences, text) with no known structure:
    for invariants and differential testing only."""
    enabled = tuple(sorted(set(features)))
    vocabulary = build_vocabulary(enabled)

    @st.composite
    def _soups(draw: st.DrawFn) -> tuple[str, Context]:
        return choose_soup(DrawChooser(draw), vocabulary), Context(features=enabled)

    return _soups()
