"""long-stream: 64 KiB to 1 MiB answers with code, many blocks and an unclosed one at the end.

Quadratic buffering (re-scanning everything held on each delta) is invisible on
short scenarios and fatal on long ones (R-ROBUST-2); long deltas and long
streams also exercise R-ROBUST-1. The text is built from a seed, so the
scenario is reproducible without shipping megabytes of YAML.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping
from functools import lru_cache

from scrubcheck.corpus.family_base import Family, Generated, params_schema
from scrubcheck.corpus.fields import integer, integers, mappings
from scrubcheck.corpus.prose import answer_sentence, reasoning_note
from scrubcheck.corpus.streams import ANSWER, REASONING, TAG, Stream, cut
from scrubcheck.vocabulary import FAMILY_NAMES

_FENCE = "```text\nexample: <think>this line is code, not reasoning</think>\n```\n\n"


def _notes(rng: random.Random, serial: list[int], count: int) -> str:
    lines = []
    for _ in range(count):
        serial[0] += 1
        lines.append(reasoning_note(rng, serial[0]))
    return "\n".join(lines)


@lru_cache(maxsize=4)
def long_stream(size: int, seed: int, block_every: int) -> Stream:
    """A stream of exactly `size` characters: opening block, prose with code, mid-line
    blocks of rotating names about every `block_every` characters, then an unclosed block."""
    rng = random.Random(f"long:{seed}:{size}")
    serial = [0]
    s = Stream()
    length = 0

    def add(role: str, text: str) -> None:
        nonlocal length
        s.pieces.append((role, text))
        length += len(text)

    add(TAG, "<think>")
    add(REASONING, f"\n{_notes(rng, serial, 6)}\n")
    add(TAG, "</think>")
    add(ANSWER, "\n\n")
    next_block = length + block_every
    while length < size - 2048:
        if rng.random() < 0.04:
            add(ANSWER, _FENCE)
        count = rng.randint(3, 6)
        for i in range(count):
            add(ANSWER, answer_sentence(rng, with_code=rng.random() < 0.3,
                                        literal_tag=rng.random() < 0.03))
            if i == count - 1:
                break
            add(ANSWER, " ")
            if length >= next_block:
                name = FAMILY_NAMES[serial[0] % len(FAMILY_NAMES)]
                add(TAG, f"<{name}>")
                add(REASONING, _notes(rng, serial, rng.randint(1, 4)))
                add(TAG, f"</{name}>")
                next_block = length + block_every
        add(ANSWER, "\n\n")
    add(ANSWER, "Final check below.\n")
    add(TAG, "<think>")
    notes = _notes(rng, serial, (size - length) // 40 + 2)
    add(REASONING, notes[: size - length])
    return s


def _chunk(text: str, size: int, rng: random.Random) -> tuple[str, ...]:
    """Deltas of about `size` characters (+-50%), like a real token stream."""
    offsets: list[int] = []
    at = 0
    low, high = max(1, size // 2), max(1, size + size // 2)
    while True:
        at += rng.randint(low, high)
        if at >= len(text):
            return cut(text, offsets)
        offsets.append(at)


_STREAMS = ({"size": 65536, "delta_sizes": [1, 7]},
            {"size": 262144, "delta_sizes": [7, 512]},
            {"size": 1048576, "delta_sizes": [16, 4096]})


def build(params: Mapping[str, object]) -> Iterator[Generated]:
    seed = integer(params, "seed", 1)
    block_every = integer(params, "block_every", 8192)
    streams = mappings(params, "streams", _STREAMS)
    for spec in streams:
        size = integer(spec, "size")
        stream = long_stream(size, seed, block_every)
        label = f"{size // 1048576}m" if size % 1048576 == 0 else f"{size // 1024}k"
        for delta_size in integers(spec, "delta_sizes"):
            rng = random.Random(f"long-chunks:{seed}:{size}:{delta_size}")
            yield Generated(
                suffix=f"{label}-d{delta_size}",
                detail=f"{size} characters in deltas of about {delta_size}",
                deltas=_chunk(stream.text, delta_size, rng),
                reasoning=stream.reasoning_strings,
                visible=stream.visible,
                labels=("long",),
            )


FAMILY = Family(
    name="long-stream",
    summary="long realistic streams (64 KiB to 1 MiB) ending in an unclosed block",
    params_schema=params_schema({
        "seed": {"type": "integer"},
        "block_every": {"type": "integer", "minimum": 256},
        "streams": {
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["size", "delta_sizes"],
                "properties": {
                    "size": {"type": "integer", "minimum": 4096},
                    "delta_sizes": {"type": "array", "minItems": 1,
                                    "items": {"type": "integer", "minimum": 1}},
                },
            },
        },
    }),
    build=build,
)
