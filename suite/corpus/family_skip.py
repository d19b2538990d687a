"""skip-matrix: a pre-filled stream under every finish reason, with and without the
signals, in the shapes hybrid models produce (SPEC R-SKIP-1..3).

GLM-4.5+, Qwen3 hybrid and Kimi-K3 templates pre-fill the open tag and let the
model answer directly. The text alone cannot tell a direct answer from reasoning
cut short, so SPEC decides by context only: the answer shows only with
`may_skip_reasoning`, `finish_reason: stop` and no close tag (and without
`inline_answer`, which wins). The full matrix shows a scrubber that guesses.
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

#: shape -> whether the model closed the pre-filled block
SHAPES: dict[str, bool] = {
    "one-line": False,        # a direct answer on one line
    "multi-line": False,      # a direct answer over several lines
    "close": True,            # reasoning on one line, then the close
    "multi-line-close": True,  # several lines of reasoning, then the close
}


def build(params: Mapping[str, object]) -> Iterator[Generated]:
    seed = integer(params, "seed", 1)
    for finish in FINISH_REASONS:
        for skip in (True, False):
            for inline in (False, True):
                for shape, closed in SHAPES.items():
                    key = f"{finish or 'none'}-{'skip' if skip else 'strict'}-" \
                          f"{'inline' if inline else 'plain'}-{shape}".replace("_", "-")
                    rng = random.Random(f"{seed}:{key}")
                    topic, other = rng.sample(TOPICS, 2)
                    yield _case(key, topic.lead, topic.tail, topic.reasoning, other.reasoning,
                                finish, skip, inline, shape, closed, rng)


def _case(key: str, lead: str, tail: str, reasoning: str, more: str, finish: str | None,
          skip: bool, inline: bool, shape: str, closed: bool, rng: random.Random) -> Generated:
    s = Stream()
    recovered = skip and finish == "stop" and not inline and not closed
    if closed:
        s.reasoning(reasoning if shape == "close" else f"{reasoning}\n{more}\n")
        s.tag("</think>").answer(f"\n\n{lead} {tail}")
        why = "the close makes everything before it reasoning"
    elif recovered:
        s.answer(f"{lead} {tail}" if shape == "one-line" else f"{lead}\n\n{tail}\n")
        why = "the model skipped reasoning: all of it is the answer"
    elif inline and finish == "stop" and shape == "multi-line":
        s.reasoning(f"{reasoning}\n").answer(tail)  # R-UNCLOSED-2 recovers the last line
        why = "inline_answer recovers the last line only"
    else:
        body = f"{reasoning} {more}" if shape == "one-line" else f"{reasoning}\n{more}"
        s.reasoning(body)
        why = "nothing is recovered: reasoning that never reached its close"
    return Generated(
        suffix=key,
        detail=f"finish_reason {finish}, may_skip_reasoning {str(skip).lower()}, "
               f"inline_answer {str(inline).lower()}, {shape}: {why}",
        deltas=random_cuts(s.text, rng, 4),
        reasoning=s.reasoning_strings,
        visible=s.visible,
        context=Context(starts_in_reasoning=True, inline_answer=inline, finish_reason=finish,
                        may_skip_reasoning=skip),
    )


FAMILY = Family(
    name="skip-matrix",
    summary="pre-filled stream x finish reason x may_skip_reasoning x inline_answer x shape",
    params_schema=params_schema({"seed": {"type": "integer"}}),
    build=build,
)
