"""Realistic stream shapes shared by the families, and the tag sets they iterate over."""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass

from scrubcheck.corpus.prose import Topic
from scrubcheck.corpus.streams import Stream, cut, slug
from scrubcheck.vocabulary import FAMILY_NAMES, FEATURES

LAYOUTS: tuple[str, ...] = ("start", "mid", "end")


@dataclass(frozen=True)
class Delimiter:
    """One tag to exercise: its text, its pair (for blocks), and the feature enabling it."""

    key: str  # id-safe, e.g. 'think-open', 'namespaced-2-close', 'harmony-marker-1'
    text: str
    kind: str  # open | close | marker
    open_tag: str
    close_tag: str
    feature: str | None = None


def default_delimiters() -> Iterator[Delimiter]:
    """Open and close of each default-family name (SPEC R-VOCAB-1)."""
    for name in FAMILY_NAMES:
        open_tag, close_tag = f"<{name}>", f"</{name}>"
        yield Delimiter(f"{slug(name)}-open", open_tag, "open", open_tag, close_tag)
        yield Delimiter(f"{slug(name)}-close", close_tag, "close", open_tag, close_tag)


def feature_delimiters(features: list[str] | None = None) -> Iterator[Delimiter]:
    """Every open, close and marker of the given features (all when None), R-VOCAB-3 order."""
    for name, feature in FEATURES.items():
        if features is not None and name not in features:
            continue
        for i, (open_tag, close_tag) in enumerate(feature.pairs, start=1):
            yield Delimiter(f"{name}-{i}-open", open_tag, "open", open_tag, close_tag, name)
            yield Delimiter(f"{name}-{i}-close", close_tag, "close", open_tag, close_tag, name)
        for i, marker in enumerate(feature.markers, start=1):
            yield Delimiter(f"{name}-marker-{i}", marker, "marker", "", "", name)


def pair_stream(open_tag: str, close_tag: str, topic: Topic, layout: str) -> Stream:
    """A block at the start (Qwen style), in mid-line, or closing the answer."""
    s = Stream()
    if layout == "start":
        s.block(open_tag, f"\n{topic.reasoning}\n", close_tag)
        s.answer(f"\n\n{topic.lead} {topic.tail}")
    elif layout == "mid":
        s.answer(f"{topic.lead} ").block(open_tag, topic.reasoning, close_tag).answer(topic.tail)
    else:
        s.answer(f"{topic.lead} {topic.tail}\n").block(open_tag, topic.reasoning, close_tag)
    return s


def harmony_stream(topic: Topic) -> Stream:
    """gpt-oss output leaked as text: analysis channel, then the final channel's markers."""
    (open_tag, close_tag), = FEATURES["harmony"].pairs
    start, final, ret = FEATURES["harmony"].markers
    s = Stream().block(open_tag, topic.reasoning, close_tag).tag(start).tag(final)
    return s.answer(f"{topic.lead} {topic.tail}").tag(ret)


def wrapper_stream(open_marker: str, close_marker: str, topic: Topic) -> Stream:
    """Hunyuan style: a think block, then the answer inside an answer wrapper."""
    s = Stream().block("<think>", f"\n{topic.reasoning}\n", "</think>").answer("\n\n")
    return s.tag(open_marker).answer(f"{topic.lead} {topic.tail}").tag(close_marker)


def delimiter_stream(d: Delimiter, topic: Topic, layout: str) -> Stream:
    """A realistic stream in which delimiter `d` occurs (once, as a removed tag)."""
    if d.feature == "harmony":
        return harmony_stream(topic)
    if d.kind == "marker":
        markers = FEATURES[d.feature].markers if d.feature else ()
        i = markers.index(d.text) // 2 * 2
        return wrapper_stream(markers[i], markers[i + 1], topic)
    return pair_stream(d.open_tag, d.close_tag, topic, layout)


def random_cuts(text: str, rng: random.Random, pieces: int) -> tuple[str, ...]:
    """A recorded-looking chunking: `pieces` deltas cut at random offsets."""
    if len(text) < 2 or pieces < 2:
        return (text,)
    offsets = rng.sample(range(1, len(text)), min(pieces - 1, len(text) - 1))
    return cut(text, offsets)
