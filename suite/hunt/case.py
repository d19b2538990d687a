"""One input for the properties: a stream, two partitions of it and a cut point.

A case is built from a `Chooser` like the streams themselves, so Hypothesis
shrinks all of it together and a fuzz input decodes into the same thing.
About one case in four is token soup (no known structure, invariants only).
"""

from __future__ import annotations

from dataclasses import dataclass

from scrubcheck.claims import text_beyond
from scrubcheck.generate import (
    Chooser,
    Profile,
    RenderedStream,
    build_stream,
    choose_context,
    choose_partition,
    choose_soup,
    shape_rules,
)
from scrubcheck.model import GENERIC, Context


@dataclass(frozen=True)
class Case:
    context: Context
    deltas: tuple[str, ...]
    other: tuple[str, ...]  # a second partition of the same text (R-CHUNK-1)
    cut: int  # where the truncated run stops (R-TRUNC-1)
    stream: RenderedStream | None = None  # None: token soup, no known structure

    @property
    def text(self) -> str:
        return "".join(self.deltas)

    @property
    def expected(self) -> str | None:
        return self.stream.expected if self.stream is not None else None

    @property
    def reasoning(self) -> tuple[str, ...]:
        return self.stream.reasoning if self.stream is not None else ()

    @property
    def cuts(self) -> list[int]:
        return list(self.stream.cuts) if self.stream is not None else []

    @property
    def rules(self) -> tuple[str, ...]:
        return shape_rules(self.stream) if self.stream is not None else ()

    @property
    def shape(self) -> str:
        return "soup" if self.stream is None else ", ".join(self.stream.labels) or "plain"


def search_key(spec: str, against: str | None, conformance_class: str) -> str:
    """What a search's saved state (Hypothesis' database, a fuzz work directory) is kept
    under: the scrubber, the one it is compared with, and the class it draws within (an
    input means another stream in another class)."""
    key = spec + (f"--against-{against}" if against else "")
    return key + (f"--claim-{conformance_class}" if conformance_class != GENERIC else "")


def build_case(ch: Chooser, profile: Profile, *, soup: bool = True) -> Case | None:
    """A case from `ch`, or None when the structured stream drawn is not one the model
    can vouch for, or (in a format's class) holds a delimiter beyond the class
    (generators discard those)."""
    if soup and ch.below(4) == 3:
        context = choose_context(ch, profile)
        text = choose_soup(ch, context.vocabulary())
        if text_beyond(text, profile.conformance_class):
            return None
        return Case(context, choose_partition(ch, text), choose_partition(ch, text),
                    ch.below(len(text) + 1))
    stream = build_stream(ch, profile)
    if not stream.ok or text_beyond(stream.text, profile.conformance_class):
        return None
    ranges = stream.tag_ranges()
    deltas = choose_partition(ch, stream.text, ranges)
    other = choose_partition(ch, stream.text, ranges)
    return Case(stream.context, deltas, other, ch.below(len(stream.text) + 1), stream)
