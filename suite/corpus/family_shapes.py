"""Families about what is (not) a tag and which close ends what.

tag-shapes: R-VOCAB-2 lookalikes (`<think >`, `<think/>`, `<thinker>`...) are
answer text. cross-name-close: a close of another name, or of a vocabulary that
is not enabled, is reasoning text inside a block (R-BLOCK-2, R-BLOCK-4).
prefill-close: with a pre-filled open, the first close of any active name ends
the reasoning and later closes are orphans (R-ORPHAN-2, R-ORPHAN-1).
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping

from scrubcheck.corpus.family_base import Family, Generated, params_schema
from scrubcheck.corpus.fields import integer
from scrubcheck.corpus.prose import TOPICS
from scrubcheck.corpus.streams import Stream, slug
from scrubcheck.corpus.templates import LAYOUTS, feature_delimiters, pair_stream, random_cuts
from scrubcheck.model import Context
from scrubcheck.vocabulary import FAMILY_NAMES

SHAPES: dict[str, str] = {
    "space-before-gt": "<{n} >",
    "attribute": '<{n} type="plan">',
    "self-closing": "<{n}/>",
    "space-after-lt": "< {n}>",
    "longer-name": "<{n}er>",
    "suffixed-name": "<{n}_mode>",
    "close-with-space": "</{n} >",
    "missing-gt": "<{n}\n",
    "doubled-slash": "<//{n}>",
}


def build_shapes(params: Mapping[str, object]) -> Iterator[Generated]:
    seed = integer(params, "seed", 1)
    for name in FAMILY_NAMES:
        for label, shape in SHAPES.items():
            literal = shape.format(n=name)
            rng = random.Random(f"{seed}:{name}:{label}")
            topic = rng.choice(TOPICS)
            s = Stream().block(f"<{name}>", f"\n{topic.reasoning}\n", f"</{name}>")
            s.answer(f"\n\n{topic.lead} Note that {literal} is not a tag here. {topic.tail}")
            yield Generated(
                suffix=f"{slug(name)}-{label}",
                detail=f"{literal!r} is literal answer text",
                deltas=random_cuts(s.text, rng, 3),
                reasoning=s.reasoning_strings,
                visible=s.visible,
            )


def _foreign_closes() -> list[tuple[str, str]]:
    """(key, close text) of every feature close, none of them enabled here."""
    return [(d.key.removesuffix("-close"), d.text) for d in feature_delimiters()
            if d.kind == "close"]


def build_cross(params: Mapping[str, object]) -> Iterator[Generated]:
    seed = integer(params, "seed", 1)
    cases: list[tuple[str, str, str]] = [
        (f"{slug(a)}-then-{slug(b)}", a, f"</{b}>")
        for a in FAMILY_NAMES for b in FAMILY_NAMES if a != b
    ]
    if params.get("feature_closes", True):
        cases += [(f"think-then-{key}", "think", close) for key, close in _foreign_closes()]
    for suffix, name, stray in cases:
        rng = random.Random(f"{seed}:{suffix}")
        topic, other = rng.sample(TOPICS, 2)
        content = f"{topic.reasoning}; the token {stray} does not close this; {other.reasoning}"
        s = pair_stream(f"<{name}>", f"</{name}>", topic, rng.choice(LAYOUTS))
        s.pieces = [(role, content if role == "reasoning" else text) for role, text in s.pieces]
        yield Generated(
            suffix=suffix,
            detail=f"{stray!r} inside <{name}> is reasoning; only </{name}> ends the block",
            deltas=random_cuts(s.text, rng, 4),
            reasoning=(content.strip(),),
            visible=s.visible,
        )


def build_prefill(params: Mapping[str, object]) -> Iterator[Generated]:
    seed = integer(params, "seed", 1)
    closes: list[tuple[str, str, tuple[str, ...]]] = [
        (slug(n), f"</{n}>", ()) for n in FAMILY_NAMES]
    if params.get("features", True):
        closes += [(d.key.removesuffix("-close"), d.text, (d.feature,))
                   for d in feature_delimiters()
                   if d.kind == "close" and not d.header and d.feature is not None]
    for key, close, features in closes:
        for variant in ("plain", "stale-orphan"):
            rng = random.Random(f"{seed}:{key}:{variant}")
            topic = rng.choice(TOPICS)
            s = Stream().reasoning(f"{topic.reasoning}\n").tag(close).answer(f"\n\n{topic.lead}")
            if variant == "stale-orphan":
                orphan = rng.choice([f"</{n}>" for n in FAMILY_NAMES])
                s.tag(orphan).answer(f" {topic.tail}")
            else:
                s.answer(f" {topic.tail}")
            yield Generated(
                suffix=f"{key}-{variant}",
                detail=f"pre-filled open, reasoning ends at {close!r}"
                       + (", a later close is an orphan" if variant == "stale-orphan" else ""),
                deltas=random_cuts(s.text, rng, 3),
                reasoning=s.reasoning_strings,
                visible=s.visible,
                context=Context(starts_in_reasoning=True, features=features),
            )


SHAPES_FAMILY = Family(
    name="tag-shapes",
    summary="tag lookalikes of every family name are answer text",
    params_schema=params_schema({"seed": {"type": "integer"}}),
    build=build_shapes,
)

CROSS_FAMILY = Family(
    name="cross-name-close",
    summary="a close of another name or vocabulary inside a block does not end it",
    params_schema=params_schema({"seed": {"type": "integer"},
                                 "feature_closes": {"type": "boolean"}}),
    build=build_cross,
)

PREFILL_FAMILY = Family(
    name="prefill-close",
    summary="pre-filled open: the first close of any active name ends the reasoning",
    params_schema=params_schema({"seed": {"type": "integer"}, "features": {"type": "boolean"}}),
    build=build_prefill,
)
