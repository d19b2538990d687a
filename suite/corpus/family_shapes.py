"""Families about what is (not) a tag and which close ends what.

tag-shapes: R-VOCAB-2 lookalikes (`<think >`, `<think/>`, `<thinker>`...) are
answer text. cross-name-close: a close of another name, or of a vocabulary that
is not enabled, is reasoning text inside a block (R-BLOCK-2, R-BLOCK-4).
prefill-close: with a pre-filled open, the first close of any active name ends
the reasoning and later closes are orphans (R-ORPHAN-2, R-ORPHAN-1).
tool-ends-block: the open of a tool section a format marks `ends_reasoning` ends a
block of that format's reasoning pairs, or a pre-filled one, and the section is
hidden to its close; inside a code span of the block it is reasoning text (R-BLOCK-5,
R-CODE-5). Every such pair of every feature is covered, so a new format's file
brings its own scenarios.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping

from scrubcheck.corpus.family_base import Family, Generated, params_schema
from scrubcheck.corpus.fields import integer
from scrubcheck.corpus.overlap import overlaps
from scrubcheck.corpus.prose import TOPICS
from scrubcheck.corpus.streams import Stream, slug
from scrubcheck.corpus.templates import LAYOUTS, feature_delimiters, pair_stream, random_cuts
from scrubcheck.model import Context
from scrubcheck.vocabulary import FAMILY_NAMES, FEATURES

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
    family = {f"</{n}>" for n in FAMILY_NAMES}  # a feature may share the family's pairs
    return [(d.key.removesuffix("-close"), d.text) for d in feature_delimiters()
            if d.kind == "close" and d.text.lower() not in family]


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
        for _ in range(8):  # a delimiter may share a word with the answer: draw again
            topic, other = rng.sample(TOPICS, 2)
            content = f"{topic.reasoning}; the token {stray} does not close this; " \
                      f"{other.reasoning}"
            s = pair_stream(f"<{name}>", f"</{name}>", topic, rng.choice(LAYOUTS))
            s.pieces = [(role, content if role == "reasoning" else text)
                        for role, text in s.pieces]
            if not overlaps([content.strip()], s.visible):
                break
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


#: how a tool-ended block is exercised (R-BLOCK-5): ended and closed, in a pre-filled
#: block, guarded by a span of the block (no end), cut off inside the tool section
TOOL_VARIANTS: tuple[str, ...] = ("ends", "prefill", "in-span", "cut-in-section")


def _tool_ends() -> Iterator[tuple[str, str, str, str, str, str]]:
    """(key, feature, reasoning open, its close, tool open, tool close) of every feature's
    tool section that ends reasoning, with each of that feature's reasoning pairs."""
    for name, feature in FEATURES.items():
        reasoning = [(o, c) for o, c in feature.pairs if o not in feature.tools]
        for t, (tool_open, tool_closes) in enumerate(feature.pairs, start=1):
            if tool_open not in feature.tool_ends:
                continue
            for r, (open_text, closes) in enumerate(reasoning, start=1):
                yield (f"{name}-{r}-tool-{t}", name, open_text, closes[0], tool_open,
                       tool_closes[0])


def build_tool_ends(params: Mapping[str, object]) -> Iterator[Generated]:
    seed = integer(params, "seed", 1)
    for key, feature, open_text, close, tool_open, tool_close in _tool_ends():
        for variant in TOOL_VARIANTS:
            rng = random.Random(f"{seed}:{key}:{variant}")
            topic = rng.choice(TOPICS)
            call = f'call:lookup{{"q": "{rng.choice(topic.reasoning.split())}"}}'
            s = Stream()
            if variant != "prefill":
                s.answer(f"{topic.lead} ").tag(open_text)
            if variant == "in-span":
                s.reasoning(f"{topic.reasoning}; the call would start `{tool_open}` here\n")
                s.tag(close).answer(f"\n\n{topic.tail}")
            else:
                s.reasoning(f"{topic.reasoning}\n").tag(tool_open).reasoning(call)
                if variant != "cut-in-section":
                    s.tag(tool_close).answer(f"\n\n{topic.tail}")
            finish = "length" if variant == "cut-in-section" else "stop"
            yield Generated(
                suffix=f"{key}-{variant}",
                detail=f"{tool_open!r} in " + ("a pre-filled block" if variant == "prefill"
                                                else f"a {open_text!r} block") + f": {variant}",
                deltas=random_cuts(s.text, rng, 4),
                reasoning=s.reasoning_strings,
                visible=s.visible,
                context=Context(starts_in_reasoning=variant == "prefill",
                                finish_reason=finish, features=(feature,)),
            )


TOOL_ENDS_FAMILY = Family(
    name="tool-ends-block",
    summary="a tool section that ends reasoning ends the block it stands in (R-BLOCK-5)",
    params_schema=params_schema({"seed": {"type": "integer"}}),
    build=build_tool_ends,
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
