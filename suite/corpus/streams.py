"""Composing a stream from known pieces, so that generated expectations follow from structure.

A generated scenario is built as a sequence of answer text, removed tags and
reasoning; the expected visible output is then just the answer pieces joined
(SPEC trims nothing), and the reasoning strings are the block contents.
"""

from __future__ import annotations

from dataclasses import dataclass, field

ANSWER, TAG, REASONING = "answer", "tag", "reasoning"


@dataclass
class Stream:
    """An ordered list of (role, text) pieces; role is answer, tag or reasoning."""

    pieces: list[tuple[str, str]] = field(default_factory=list)

    def answer(self, text: str) -> Stream:
        self.pieces.append((ANSWER, text))
        return self

    def tag(self, text: str) -> Stream:
        self.pieces.append((TAG, text))
        return self

    def reasoning(self, text: str) -> Stream:
        self.pieces.append((REASONING, text))
        return self

    def block(self, open_tag: str, content: str, close_tag: str | None) -> Stream:
        """A block; `close_tag=None` leaves it unclosed."""
        self.tag(open_tag).reasoning(content)
        if close_tag is not None:
            self.tag(close_tag)
        return self

    @property
    def text(self) -> str:
        return "".join(text for _, text in self.pieces)

    @property
    def visible(self) -> str:
        return "".join(text for role, text in self.pieces if role == ANSWER)

    @property
    def reasoning_strings(self) -> tuple[str, ...]:
        """Each block's content without surrounding whitespace, skipping empty ones."""
        found = []
        for role, text in self.pieces:
            stripped = text.strip()
            if role == REASONING and stripped and stripped not in found:
                found.append(stripped)
        return tuple(found)

    def offset(self, index: int) -> int:
        """Where piece `index` starts in `text`."""
        return sum(len(text) for _, text in self.pieces[:index])

    def index_of(self, role: str, text: str) -> int:
        """The index of the first piece with this role and text."""
        for i, piece in enumerate(self.pieces):
            if piece == (role, text):
                return i
        raise ValueError(f"no {role} piece {text!r}")


def cut(text: str, offsets: list[int]) -> tuple[str, ...]:
    """`text` split at the given offsets (sorted, each inside 0..len)."""
    bounds = [0, *sorted(offsets), len(text)]
    return tuple(text[a:b] for a, b in zip(bounds, bounds[1:], strict=False))


def slug(text: str, fallback: str = "") -> str:
    """An id-safe rendering of `text`, [a-z0-9]+(-[a-z0-9]+)*: the corpus ids made of tag
    names ('scratch_pad' -> 'scratch-pad') and of gateway captures; `fallback` when
    nothing of `text` is left. (Scrubber specs become file names by
    `adapters.resolve.spec_slug`, which keeps their case and dots.)"""
    out = "".join(c.lower() if c.isascii() and c.isalnum() else "-" for c in text)
    return "-".join(part for part in out.split("-") if part) or fallback
