"""split-every-position: each tag cut into two deltas at every interior position.

Tags split across deltas are the most common streaming failure in the field
(docs/field.md#fm-split-tags); testing one split per tag misses the off-by-one at
the other positions, so this family tries them all.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping

from scrubcheck.corpus.family_base import Family, Generated, params_schema
from scrubcheck.corpus.fields import integer, texts_or_none
from scrubcheck.corpus.prose import TOPICS
from scrubcheck.corpus.streams import TAG, cut
from scrubcheck.corpus.templates import (
    LAYOUTS,
    Delimiter,
    custom_delimiters_to_split,
    default_delimiters,
    delimiter_stream,
    feature_delimiters,
)
from scrubcheck.model import Context
from scrubcheck.vocabulary import FEATURES


def delimiters(params: Mapping[str, object]) -> list[Delimiter]:
    """The tags this entry splits: the default family, the (chosen) features, or the
    caller-configured delimiters of `templates.CUSTOM_CASES`."""
    if params.get("source", "default") == "default":
        return list(default_delimiters())
    if params["source"] == "custom":
        return list(custom_delimiters_to_split())
    chosen = texts_or_none(params, "features")
    return list(feature_delimiters(list(chosen) if chosen is not None else None))


def build(params: Mapping[str, object]) -> Iterator[Generated]:
    seed = integer(params, "seed", 1)
    for d in delimiters(params):
        for k in range(1, len(d.text)):
            rng = random.Random(f"{seed}:{d.key}:{k}")
            topic = rng.choice(TOPICS)
            stream = delimiter_stream(d, topic, rng.choice(LAYOUTS))
            start = stream.offset(stream.index_of(TAG, d.text))
            features = (d.feature,) if d.feature else ()
            yield Generated(
                suffix=f"{d.key}-{k}",
                detail=f"{d.text!r} split after {k} of {len(d.text)} characters",
                deltas=cut(stream.text, [start + k]),
                reasoning=stream.reasoning_strings,
                visible=stream.visible,
                context=Context(features=features, delimiters=d.custom),
            )


FAMILY = Family(
    name="split-every-position",
    summary="every tag split into two deltas at every interior position",
    params_schema=params_schema({
        "source": {"enum": ["default", "features", "custom"]},
        "features": {"type": "array", "items": {"enum": sorted(FEATURES)}, "uniqueItems": True},
        "seed": {"type": "integer"},
    }),
    build=build,
)
