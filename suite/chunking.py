"""The chunking matrix: every way the harness splits a scenario's text into deltas.

Scenario authors record one chunking; real streams split anywhere. The harness
owns the rest (SPEC R-CHUNK-1): the whole text, one character per delta, every
two-way split, fixed sizes, tag-aligned deltas (what a token-based parser sees)
and seeded random partitions. Every chunking has a name from which
`chunking_by_name` rebuilds it, so one printed command replays a failure.

Long inputs cap the quadratic families (split points, and truncation cuts in
the runner) by a budget of characters to process; the number of variants left
out is returned in `ChunkingPlan.capped` so that a cap is always visible in
results. The runner builds chunkings one at a time from their names
(`chunking_names`), so a 1 MiB scenario never holds its whole matrix in memory.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field

from scrubcheck.model import Scenario
from scrubcheck.vocabulary import Vocabulary, fold

FIXED_SIZES = tuple(range(2, 9))


@dataclass(frozen=True)
class Chunking:
    """One named way to split a text into deltas."""

    name: str
    deltas: tuple[str, ...]

    @property
    def family(self) -> str:
        """'split' for split@12, 'fixed' for fixed-3, 'random' for random-2, else the name."""
        return re.split(r"[@-]", self.name, maxsplit=1)[0]


@dataclass(frozen=True)
class Caps:
    """Where the quadratic families stop for long inputs (all counted when they apply)."""

    long_input: int = 2000  # texts longer than this get sampled split and cut points:
    tag_window: int = 12  # ... points within this distance of a tag boundary
    sample: int = 64  # ... plus this many seeded others
    budget_chars: int = 4_000_000  # ... at most budget_chars // cost variants in all
    min_variants: int = 16  # ... but never fewer than this
    max_deltas: int = 65536  # a chunking of more deltas is not run (e.g. `char` over 64 Ki)

    def max_variants(self, cost: int) -> int:
        """Variants of a quadratic family for an input costing `cost` characters to run."""
        return max(self.min_variants, self.budget_chars // max(1, cost))


@dataclass
class ChunkingPlan:
    chunkings: list[Chunking]
    capped: dict[str, int] = field(default_factory=dict)  # family -> variants left out


def tag_spans(text: str, vocabulary: Vocabulary) -> list[tuple[int, int]]:
    """(start, end) of each tag occurrence, ASCII case-insensitive, leftmost-longest,
    not overlapping. Code is not considered: this is about where delimiters *could* be."""
    folded = fold(text)
    by_first: dict[str, list[str]] = {}
    for tag in sorted(vocabulary.by_folded, key=len, reverse=True):
        by_first.setdefault(tag[0], []).append(tag)
    spans = []
    i = 0
    while i < len(folded):
        for tag in by_first.get(folded[i], ()):
            if folded.startswith(tag, i):
                spans.append((i, i + len(tag)))
                i += len(tag)
                break
        else:
            i += 1
    return spans


def cut_points(
    text: str,
    vocabulary: Vocabulary,
    rng: random.Random,
    caps: Caps,
    *,
    ends: bool,
    cost: int | None = None,
) -> tuple[list[int], int]:
    """Positions to split or cut at, and how many were left out by the long-input cap.

    `ends` includes 0 and len(text) (truncation cuts); without it only interior
    points (two-way splits with two non-empty halves). `cost` is what one variant
    costs to run, in characters (default: the text's length).
    """
    low, high = (0, len(text)) if ends else (1, len(text) - 1)
    if high < low:
        return [], 0
    every = range(low, high + 1)
    if len(text) <= caps.long_input:
        return list(every), 0
    near_tags: set[int] = set()
    for start, end in tag_spans(text, vocabulary):
        for boundary in (start, end):
            near_tags.update(range(boundary - caps.tag_window, boundary + caps.tag_window + 1))
    near = sorted(p for p in near_tags if low < p < high)
    room = caps.max_variants(cost or len(text)) - 2  # the two ends are always cut
    randoms = min(caps.sample, max(room // 4, room - len(near)))
    if len(near) > room - randoms:
        near = sorted(rng.sample(near, room - randoms))
    chosen = {low, high, *near}
    rest = [p for p in every if p not in chosen]
    chosen.update(rng.sample(rest, min(randoms, len(rest))))
    points = sorted(chosen)
    return points, len(every) - len(points)


def random_partition(text: str, rng: random.Random, max_size: int) -> tuple[str, ...]:
    """A random split into deltas of 1..max_size characters, with the odd empty delta."""
    deltas = []
    i = 0
    while i < len(text):
        if rng.random() < 0.05:
            deltas.append("")
        size = rng.randint(1, max_size)
        deltas.append(text[i : i + size])
        i += size
    return tuple(deltas)


def seeded_rng(seed: int, scenario_id: str, purpose: str) -> random.Random:
    """The generator for one purpose of one scenario: same seed, same variants."""
    # A string seed hashes with SHA-512: stable across processes and PYTHONHASHSEED.
    return random.Random(f"{seed}:{scenario_id}:{purpose}")


_RANDOM_MAX_SIZES = (3, 8, 24, 64)


def _expected_random_deltas(text: str, index: int) -> int:
    max_size = _RANDOM_MAX_SIZES[(index - 1) % len(_RANDOM_MAX_SIZES)]
    return len(text) * 2 // (1 + max_size)


def _random(scenario: Scenario, seed: int, index: int) -> Chunking:
    rng = seeded_rng(seed, scenario.id, f"random-{index}")
    max_size = _RANDOM_MAX_SIZES[(index - 1) % len(_RANDOM_MAX_SIZES)]
    return Chunking(f"random-{index}", random_partition(scenario.text, rng, max_size))


def _fixed(text: str, size: int) -> tuple[str, ...]:
    return tuple(text[i : i + size] for i in range(0, len(text), size))


def _split(text: str, k: int) -> Chunking:
    return Chunking(f"split@{k}", (text[:k], text[k:]))


def _tags(text: str, vocabulary: Vocabulary) -> tuple[str, ...]:
    deltas = []
    last = 0
    for start, end in tag_spans(text, vocabulary):
        if start > last:
            deltas.append(text[last:start])
        deltas.append(text[start:end])
        last = end
    if last < len(text) or not deltas:
        deltas.append(text[last:])
    return tuple(deltas)


def _with_empties(deltas: tuple[str, ...]) -> tuple[str, ...]:
    out = [""]
    for delta in deltas:
        out.extend((delta, ""))
    return tuple(out)


def chunking_names(
    scenario: Scenario,
    vocabulary: Vocabulary,
    seed: int,
    random_count: int = 8,
    caps: Caps | None = None,
) -> tuple[list[str], dict[str, int]]:
    """The names of every chunking of the matrix, and the variants capped per family."""
    caps = caps or Caps()
    text = scenario.text
    names = ["recorded", "whole"]
    capped: dict[str, int] = {}
    points, left_out = cut_points(
        text, vocabulary, seeded_rng(seed, scenario.id, "split-sample"), caps, ends=False
    )
    if left_out:
        capped["split"] = left_out
    candidates = [
        ("recorded+empty", 2 * len(scenario.deltas) + 1),
        ("char", len(text)),
        *((f"split@{k}", 2) for k in points),
        *((f"fixed-{n}", -(-len(text) // n)) for n in FIXED_SIZES),
        ("tags", 0),
        *((f"random-{i}", _expected_random_deltas(text, i)) for i in range(1, random_count + 1)),
    ]
    for name, deltas in candidates:
        if deltas <= caps.max_deltas:
            names.append(name)
        else:  # linear, but millions of calls: counted, and replayable by name
            family = Chunking(name, ()).family
            capped[family] = capped.get(family, 0) + 1
    return names, capped


def chunking_plan(
    scenario: Scenario,
    vocabulary: Vocabulary,
    seed: int,
    random_count: int = 8,
    caps: Caps | None = None,
) -> ChunkingPlan:
    """Every chunking of the matrix for `scenario`, built, with the caps that applied."""
    names, capped = chunking_names(scenario, vocabulary, seed, random_count, caps)
    built = [chunking_by_name(scenario, vocabulary, name, seed) for name in names]
    return ChunkingPlan(built, capped)


def chunkings(
    scenario: Scenario, vocabulary: Vocabulary, seed: int, random_count: int = 8
) -> list[Chunking]:
    """The chunking matrix for `scenario` (see `chunking_plan` for the caps)."""
    return chunking_plan(scenario, vocabulary, seed, random_count).chunkings


_NAME = re.compile(r"(?P<family>split@|fixed-|random-)(?P<n>\d+)")


def chunking_by_name(scenario: Scenario, vocabulary: Vocabulary, name: str, seed: int) -> Chunking:
    """Rebuild the chunking called `name` (as printed in a replay command).

    Works for every name, including variants a long-input cap left out of a run.
    """
    text = scenario.text
    simple = {
        "recorded": lambda: tuple(scenario.deltas),
        "whole": lambda: (text,),
        "char": lambda: tuple(text),
        "tags": lambda: _tags(text, vocabulary),
        "recorded+empty": lambda: _with_empties(tuple(scenario.deltas)),
    }
    if name in simple:
        return Chunking(name, simple[name]())
    match = _NAME.fullmatch(name)
    if match:
        n = int(match["n"])
        family = match["family"]
        if family == "split@" and 0 < n < len(text):
            return _split(text, n)
        if family == "fixed-" and n >= 1:
            return Chunking(name, _fixed(text, n))
        if family == "random-" and n >= 1:
            return _random(scenario, seed, n)
    raise ValueError(
        f"unknown chunking {name!r} for a text of {len(text)} characters; expected one of "
        "recorded, whole, recorded+empty, char, tags, split@K (0<K<len), fixed-N, random-I"
    )
