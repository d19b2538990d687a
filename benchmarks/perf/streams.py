"""Realistic answer streams, deterministic from a seed.

A stream is what a reasoning model sends: sections of answer, each with a
reasoning block first, prose with inline code, a fenced code block (which
quotes a tag literally), a second reasoning block in the middle of a
paragraph and a little markup, and at the end a block that is never closed
(the stream was cut off while the model was thinking again).

Every section has the same structure and exactly SECTION characters (only the
words differ), and the unclosed block is one eighth of the stream. So a 1 KB
stream (one section and its tail) and an 8 MB stream (8192 sections and
theirs) ask the same work per character, and a time ratio between them measures
the scrubber, not a change of mix.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

WORDS = (
    "the a of to and in that is for it with as on be at by this from or have an not but "
    "which they you were all we when there can more if will about up out so what would "
    "meeting Tuesday totals refund policy summary answer report value function returns "
    "list config server request cache user order invoice check result reply dates items"
).split()
CODE_WORDS = ("x", "total", "items", "result", "len(items)", "0", "1", "config['port']",
              "user.name", "cache.get(key)")
NAMES = ("think", "thinking", "reasoning", "thought")
SECTION = 896  # 7/8 of 1 KB: a 1024-character stream is one section and a 128-character tail
SECTIONS = 16  # distinct sections, repeated in order
TAIL_SHARE = 8  # the unclosed block is 1/8 of the stream


def _sentence(rng: random.Random, code: bool = False, words: int = 10) -> str:
    chosen = [rng.choice(WORDS) for _ in range(words)]
    if code:
        chosen.insert(rng.randrange(1, words), f"`{rng.choice(CODE_WORDS)}`")
    text = " ".join(chosen)
    return text[0].upper() + text[1:] + rng.choice(".?!.")


def _filler(rng: random.Random, length: int) -> str:
    words: list[str] = []
    total = 0
    while total < length:
        words.append(rng.choice(WORDS))
        total += len(words[-1]) + 1
    return (" " + " ".join(words))[:length]


def section(rng: random.Random) -> str:
    """One closed stretch of answer, exactly SECTION characters: nothing is left open."""
    first, middle = rng.choice(NAMES), rng.choice(NAMES)
    parts = [
        f"<{first}>{_sentence(rng)} {_sentence(rng)}\n{_sentence(rng)}</{first}>\n\n",
        f"{_sentence(rng, code=True)} {_sentence(rng, code=True)}\n\n",
        "```python\ndef handle(items):\n"
        f"    total = {rng.choice(CODE_WORDS)}\n"
        "    print('<think> stays literal in a fence')\n```\n",
        f"{_sentence(rng)} <{middle}>{_sentence(rng)}</{middle}> {_sentence(rng)} "
        "Markup like <b>bold</b> and a < sign stay.",
    ]
    text = "".join(parts)[: SECTION - 2]
    return text + _filler(rng, SECTION - 2 - len(text)) + "\n\n"


_UNITS: dict[int, tuple[str, ...]] = {}


def sections(seed: int) -> tuple[str, ...]:
    if seed not in _UNITS:
        rng = random.Random(seed)
        _UNITS[seed] = tuple(section(rng) for _ in range(SECTIONS))
    return _UNITS[seed]


def unclosed_tail(seed: int, length: int) -> Iterator[str]:
    """An opened block of `length` characters that the stream ends in, in pieces."""
    rng = random.Random(seed * 7919 + 1)
    head = "<think>"[:length]
    yield head
    left = length - len(head)
    while left > 0:
        piece = (" " + _sentence(rng, words=12))[:left]
        left -= len(piece)
        yield piece


def _layout(length: int) -> tuple[int, int]:
    """(whole sections, tail characters) of a `length`-character stream."""
    count = (length - length // TAIL_SHARE) // SECTION
    return count, length - count * SECTION


def pieces(length: int, seed: int = 0) -> Iterator[str]:
    """The stream in pieces of at most a section, without ever holding the whole."""
    count, tail = _layout(length)
    unit = sections(seed)
    for i in range(count):
        yield unit[i % SECTIONS]
    yield from unclosed_tail(seed, tail)


def realistic_stream(length: int, seed: int = 0) -> str:
    """A stream of exactly `length` characters ending in an unclosed block."""
    return "".join(pieces(length, seed))


def deltas(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


def lazy_deltas(length: int, size: int, seed: int = 0) -> Iterator[str]:
    """The deltas of `realistic_stream(length, seed)`, made on the fly (a few KB held)."""
    carry = ""
    for piece in pieces(length, seed):
        piece = carry + piece
        usable = len(piece) - len(piece) % size
        for i in range(0, usable, size):
            yield piece[i : i + size]
        carry = piece[usable:]
    if carry:
        yield carry
