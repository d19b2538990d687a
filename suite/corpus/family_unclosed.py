"""unclosed-matrix: an unclosed block under every finish reason, with and without the signal.

MiniMax relays write the answer after the last newline of an unclosed block, but
a truncated stream looks the same; SPEC recovers text only with the
`inline_answer` signal and `finish_reason: stop` (R-UNCLOSED-1..3). The full
matrix shows a scrubber that guesses from the text alone.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping

from scrubcheck.corpus.family_base import Family, Generated, params_schema
from scrubcheck.corpus.fields import integer
from scrubcheck.corpus.prose import TOPICS
from scrubcheck.corpus.streams import Stream
from scrubcheck.corpus.templates import random_cuts
from scrubcheck.model import FINISH_REASONS, Context
from scrubcheck.vocabulary import FAMILY_NAMES


def build(params: Mapping[str, object]) -> Iterator[Generated]:
    seed = integer(params, "seed", 1)
    for finish in FINISH_REASONS:
        for inline in (False, True):
            for newline in (True, False):
                key = f"{finish or 'none'}-{'inline' if inline else 'plain'}-" \
                      f"{'newline' if newline else 'one-line'}".replace("_", "-")
                rng = random.Random(f"{seed}:{key}")
                topic, earlier = rng.sample(TOPICS, 2)
                name = rng.choice(FAMILY_NAMES)
                recovered = inline and finish == "stop" and newline
                s = Stream().answer(f"{earlier.lead}\n").tag(f"<{name}>")
                if newline:
                    s.reasoning(f"\n{topic.reasoning}\n")
                    if recovered:
                        s.answer(topic.tail)
                    else:
                        s.reasoning(topic.tail)
                else:
                    s.reasoning(f"{topic.reasoning} {topic.tail}")
                why = "recovered" if recovered else "discarded"
                yield Generated(
                    suffix=key,
                    detail=f"finish_reason {finish}, inline_answer {str(inline).lower()}, "
                           f"{'a' if newline else 'no'} line feed in the block: tail {why}",
                    deltas=random_cuts(s.text, rng, 4),
                    reasoning=s.reasoning_strings,
                    visible=s.visible,
                    context=Context(inline_answer=inline, finish_reason=finish),
                )


FAMILY = Family(
    name="unclosed-matrix",
    summary="unclosed block x finish reason x inline_answer x line feed",
    params_schema=params_schema({"seed": {"type": "integer"}}),
    build=build,
)
