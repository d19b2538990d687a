"""Realistic stream shapes shared by the families, and the tag sets they iterate over."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from scrubcheck.corpus.prose import Topic
from scrubcheck.corpus.streams import Stream, cut, slug
from scrubcheck.vocabulary import FAMILY_NAMES, FEATURES, CustomDelimiter, Feature

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
    header: bool = False  # a harmony header token (SPEC R-HARMONY-1): no block of its own
    custom: tuple[CustomDelimiter, ...] = ()  # the caller's delimiters it needs (R-CUSTOM-1)


def default_delimiters() -> Iterator[Delimiter]:
    """Open and close of each default-family name (SPEC R-VOCAB-1)."""
    for name in FAMILY_NAMES:
        open_tag, close_tag = f"<{name}>", f"</{name}>"
        yield Delimiter(f"{slug(name)}-open", open_tag, "open", open_tag, close_tag)
        yield Delimiter(f"{slug(name)}-close", close_tag, "close", open_tag, close_tag)


def feature_delimiters(features: list[str] | None = None) -> Iterator[Delimiter]:
    """Every open, close and marker of the given features (all when None), R-VOCAB-3 order.

    A pair with several closes gives one delimiter per close (`-close`, `-close-2`...);
    harmony's tokens are keyed by their names (`harmony-start`, `harmony-message`...).
    """
    for name, feature in FEATURES.items():
        if features is not None and name not in features:
            continue
        if feature.header:
            yield from _harmony_delimiters(feature)
            continue
        for i, (open_tag, closes) in enumerate(feature.pairs, start=1):
            yield Delimiter(f"{name}-{i}-open", open_tag, "open", open_tag, closes[0], name)
            for j, close_tag in enumerate(closes, start=1):
                suffix = "" if j == 1 else f"-{j}"
                yield Delimiter(f"{name}-{i}-close{suffix}", close_tag, "close", open_tag,
                                close_tag, name)
        for i, marker in enumerate(feature.markers, start=1):
            yield Delimiter(f"{name}-marker-{i}", marker, "marker", "", "", name)


#: caller-configured delimiters worth splitting (R-CUSTOM-1/2): regex metacharacters,
#: one character (no interior split point: listed for the other families), sharing an
#: open or a close with the default family, a marker
CUSTOM_CASES: dict[str, tuple[CustomDelimiter, ...]] = {
    "reflect": (CustomDelimiter("<reflect>", "</reflect>"),),
    "regex": (CustomDelimiter("{{.*}}", "{{/.*}}"),),
    "one-char": (CustomDelimiter("\u00a7", "\u00b6"),),
    "shared-open": (CustomDelimiter("<think>", "</reflect>"),),
    "shared-close": (CustomDelimiter("<reflect>", "</think>"),),
    "marker": (CustomDelimiter(marker="@@answer@@"),),
}


def custom_delimiters_to_split() -> Iterator[Delimiter]:
    """Every open, close and marker of CUSTOM_CASES, with the configuration it needs."""
    for name, custom in CUSTOM_CASES.items():
        for d in custom:
            if d.marker:
                yield Delimiter(f"{name}-marker", d.marker, "marker", "", "", custom=custom)
                continue
            yield Delimiter(f"{name}-open", d.open, "open", d.open, d.close, custom=custom)
            yield Delimiter(f"{name}-close", d.close, "close", d.open, d.close,
                            custom=custom)


def _harmony_delimiters(feature: Feature) -> Iterator[Delimiter]:
    message = feature.pairs[0][1][0]
    seen = []
    for open_tag, _ in feature.pairs:
        seen.append((open_tag, "open"))
    seen.append((message, "close"))
    seen += [(end, "close") for end in feature.ends] + [(m, "marker") for m in feature.markers]
    for text, kind in seen:
        key = f"{feature.name}-{slug(text)}"
        yield Delimiter(key, text, kind, text if kind == "open" else "",
                        message if kind == "open" else "", feature.name, header=text in
                        {o for o, _ in feature.pairs} | {message})


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
    """gpt-oss output leaked as text (SPEC R-HARMONY-1/2): an analysis message, a tool
    call with a recipient and a content type, then the final answer. Every harmony
    token is its own piece, so a family can cut inside any of them."""
    s = Stream().tag("<|channel|>").tag("analysis").tag("<|message|>")
    s.reasoning(topic.reasoning).tag("<|end|>")
    s.tag("<|start|>").tag("assistant").tag("<|channel|>").tag("commentary to=functions.lookup ")
    s.tag("<|constrain|>").tag("json").tag("<|message|>")
    s.reasoning('{"note": "' + topic.reasoning.split(";")[0].split(",")[0] + '"}').tag("<|call|>")
    s.tag("<|start|>").tag("assistant").tag("<|channel|>").tag("final").tag("<|message|>")
    return s.answer(f"{topic.lead} {topic.tail}").tag("<|return|>")


def kimi_xtml_stream(topic: Topic) -> Stream:
    """Kimi-K3 XTML: think, response and the message close, each `<|sep|>` a marker."""
    s = Stream().block("<|open|>think", f"<|sep|>{topic.reasoning}", "<|close|>think")
    s.tag("<|sep|>").tag("<|open|>response").tag("<|sep|>").answer(f"{topic.lead} {topic.tail}")
    s.tag("<|close|>response").tag("<|sep|>").tag("<|close|>message").tag("<|sep|>")
    return s.tag("<|end_of_msg|>")


def solar_open_stream(topic: Topic) -> Stream:
    """Solar Open: the think turn ends at `<|end|>`, the answer turn follows its markers."""
    s = Stream().block("<|think|>", topic.reasoning, "<|end|>").tag("<|begin|>assistant")
    return s.tag("<|content|>").answer(f"{topic.lead} {topic.tail}").tag("<|flush|>")


def apertus_stream(topic: Topic) -> Stream:
    """Apertus: the inner (deliberation) section, then the answer and the turn end."""
    s = Stream().block("<|inner_prefix|>", topic.reasoning, "<|inner_suffix|>")
    return s.answer(f"{topic.lead} {topic.tail}").tag("<|assistant_end|>")


def gemma_stream(topic: Topic) -> Stream:
    """Gemma 4: the thought channel with its label, the answer, the turn end."""
    s = Stream().block("<|channel>", f"thought\n{topic.reasoning}", "<channel|>")
    return s.answer(f"{topic.lead} {topic.tail}").tag("<turn|>")


#: a realistic stream holding every marker of a feature (pairs use `pair_stream`)
FEATURE_STREAMS: dict[str, Callable[[Topic], Stream]] = {
    "harmony": harmony_stream,
    "kimi-xtml": kimi_xtml_stream,
    "solar-open": solar_open_stream,
    "apertus": apertus_stream,
    "gemma-channel": gemma_stream,
}


def wrapper_stream(open_marker: str, close_marker: str, topic: Topic) -> Stream:
    """Hunyuan style: a think block, then the answer inside an answer wrapper."""
    s = Stream().block("<think>", f"\n{topic.reasoning}\n", "</think>").answer("\n\n")
    return s.tag(open_marker).answer(f"{topic.lead} {topic.tail}").tag(close_marker)


def delimiter_stream(d: Delimiter, topic: Topic, layout: str) -> Stream:
    """A realistic stream in which delimiter `d` occurs (at least once, as a removed tag)."""
    if d.feature == "harmony" or (d.kind == "marker" and d.feature in FEATURE_STREAMS):
        return FEATURE_STREAMS[d.feature](topic)
    if d.kind == "marker":
        return marker_stream(d, topic)
    return pair_stream(d.open_tag, d.close_tag, topic, layout)


def marker_stream(d: Delimiter, topic: Topic) -> Stream:
    """A marker between a reasoning block and the answer; an answer wrapper (SPEC
    R-VOCAB-3) around the answer. The block is the format's first pair, else `<think>`."""
    feature = FEATURES[d.feature] if d.feature else None
    for open_marker, close_marker in feature.wrappers if feature is not None else ():
        if d.text in (open_marker, close_marker):
            return wrapper_stream(open_marker, close_marker, topic)
    open_tag, close_tag = ("<think>", "</think>")
    if feature is not None and feature.pairs:
        open_tag, close_tag = feature.pairs[0][0], feature.pairs[0][1][0]
    s = Stream().block(open_tag, f"\n{topic.reasoning}\n", close_tag).answer("\n\n")
    return s.tag(d.text).answer(f"{topic.lead} {topic.tail}")


def random_cuts(text: str, rng: random.Random, pieces: int) -> tuple[str, ...]:
    """A recorded-looking chunking: `pieces` deltas cut at random offsets."""
    if len(text) < 2 or pieces < 2:
        return (text,)
    offsets = rng.sample(range(1, len(text)), min(pieces - 1, len(text) - 1))
    return cut(text, offsets)
