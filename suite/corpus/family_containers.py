"""fence-containers: every delimiter quoted in a fence that stands in a list item or a
block quote, and a fence that its container's end closes (SPEC R-CODE-2).

Answers quote tags in code fences inside numbered steps and block quotes all the time
(a setup guide, a quoted completion). A scrubber that looks for fences only at the
start of a line, or only three spaces in, reads the quoted tag as a tag and loses the
answer after it; one that keeps a fence open after its block quote or list item ended
shows the reasoning that follows. For each delimiter of the default family and of
every feature (so a new format's file brings its own scenarios), two streams:

- `-in-LAYOUT`: the delimiter on a line of a fence in a container (a bullet item's
  marker line, a block quote, a fence indented four spaces under `10. `, a nested
  quote in a list item): literal answer text;
- `-left`: the delimiter quoted in a block quote's fence, then a line without `>`
  that ends the quote and the fence, then a realistic stream in which the delimiter
  is a tag (`templates.delimiter_stream`): removed as usual.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping

from scrubcheck.corpus.family_base import Family, Generated, params_schema
from scrubcheck.corpus.fields import integer
from scrubcheck.corpus.prose import TOPICS
from scrubcheck.corpus.streams import Stream
from scrubcheck.corpus.templates import (
    LAYOUTS,
    Delimiter,
    default_delimiters,
    delimiter_stream,
    feature_delimiters,
    random_cuts,
)
from scrubcheck.model import Context

#: a fence in a container, `{d}` the quoted delimiter: each one is fenced code in
#: CommonMark and none of them is by a rule that knows no containers
CONTAINED: dict[str, str] = {
    "bullet-marker-line": "- ```text\n  {d}\n  ```\n",
    "quote": "> ```\n> {d}\n> ```\n",
    "ordered-four-spaces": "10. Save it as a file:\n\n    ```\n    {d}\n    ```\n",
    "quote-in-item": "1. The log shows:\n\n   > ~~~\n   > {d}\n   > ~~~\n",
}


def _delimiters() -> list[Delimiter]:
    return [*default_delimiters(), *feature_delimiters()]


def build(params: Mapping[str, object]) -> Iterator[Generated]:
    seed = integer(params, "seed", 1)
    layouts = list(CONTAINED)
    for n, d in enumerate(_delimiters()):
        rng = random.Random(f"{seed}:{d.key}")
        topic = rng.choice(TOPICS)
        context = Context(features=(d.feature,) if d.feature else (), delimiters=d.custom)
        layout = layouts[n % len(layouts)]
        s = Stream().answer(f"{topic.lead}\n\n" + CONTAINED[layout].format(d=d.text))
        s.answer(f"\n{topic.tail}")
        yield Generated(
            suffix=f"{d.key}-in-{layout}",
            detail=f"{d.text!r} in a fence in a container ({layout}): literal",
            deltas=random_cuts(s.text, rng, 4), reasoning=(), visible=s.visible,
            context=context)
        tagged = delimiter_stream(d, topic, rng.choice(LAYOUTS))
        left = Stream().answer(f"> ```\n> {d.text}\n")
        left.pieces += tagged.pieces
        yield Generated(
            suffix=f"{d.key}-left",
            detail=f"{d.text!r} quoted in a block quote's fence, then a tag once a line "
                   "without `>` ended the quote and the fence",
            deltas=random_cuts(left.text, rng, 4), reasoning=left.reasoning_strings,
            visible=left.visible, context=context)


FAMILY = Family(
    name="fence-containers",
    summary="every delimiter in a fence inside a list item or block quote, and after "
            "the container's end closed the fence",
    params_schema=params_schema({"seed": {"type": "integer"}}),
    build=build,
)
