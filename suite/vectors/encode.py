"""One scenario as a vector: its streams, its context and everything needed to judge them.

The chunkings are written the way the harness names them (`recorded`, `whole`,
`char`, `fixed-N`, the two-way splits) where a consumer rebuilds them from the
name alone, and as delta lengths where the harness computes them (`tags`, the
seeded `random-I`: a consumer in another language has neither the tag scanner
nor Python's random generator). Where a check needs what only the SPEC model
can say (the removal points of R-WS-1, which truncation cuts must show nothing
under R-SKIP-2), the answer is computed here once and written down; the
reference scrubber is never the yardstick, since it is one of the implementations
the vectors judge.

Positions and lengths count Unicode code points, as Python's `str` does.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from scrubcheck.checks.expected import behaviour_rules
from scrubcheck.chunking import Caps, chunking_by_name, chunking_names, cut_points, seeded_rng
from scrubcheck.model import Context, Scenario
from scrubcheck.spec import RULES
from scrubcheck.specmodel import read_stream, tags_outside_code
from scrubcheck.vocabulary import GENERIC, Vocabulary

#: chunkings rebuilt from their name alone (see docs/vectors.md)
NAMED = frozenset({"recorded", "whole", "recorded+empty", "char"})


class VectorError(ValueError):
    """A scenario that cannot be written as a vector (names the scenario and why)."""


def vocabulary_key(vocabulary: Vocabulary) -> str:
    """A stable name for a vocabulary: its features, and a digest of custom delimiters;
    a conformance class's own vocabulary (SPEC section 12) is `class:NAME`."""
    if vocabulary.conformance_class != GENERIC:
        return f"class:{vocabulary.conformance_class}"
    name = "+".join(sorted(vocabulary.features)) or "default"
    if vocabulary.delimiters:
        raw = json.dumps([d.as_dict() for d in vocabulary.delimiters], sort_keys=True)
        name += "~" + hashlib.sha256(raw.encode()).hexdigest()[:8]
    return name


def vocabulary_tags(vocabulary: Vocabulary) -> list[str]:
    """The vocabulary's tags, ASCII-folded, sorted (what R-TAG-1 looks for)."""
    return sorted(vocabulary.by_folded)


def encode_scenario(
    scenario: Scenario, seed: int, random_count: int, caps: Caps
) -> dict[str, Any]:
    """The vector of `scenario` for a run with `seed` (the dict the schema describes)."""
    context = scenario.context
    vocabulary = context.vocabulary()
    text = scenario.text
    names, capped = chunking_names(scenario, vocabulary, seed, random_count, caps)
    cuts, left_out = cut_points(
        text, vocabulary, seeded_rng(seed, scenario.id, "cuts"), caps, ends=True,
        cost=len(text) + 16 * len(scenario.deltas),
    )
    if left_out:
        capped = {**capped, "truncation": left_out}
    vector: dict[str, Any] = {
        "id": scenario.id,
        "area": scenario.area,
        "rules": list(scenario.rules),
        "description": scenario.description,
        "file": scenario.file,
        "line": scenario.line,
        "deltas": list(scenario.deltas),
        "context": _context(context),
        "requires": list(context.required_keys(text)),
        "vocabulary": vocabulary_key(vocabulary),
        "reasoning": [{"text": r, "at": _first(text, r)} for r in scenario.reasoning if r],
        "expect": _expect(scenario, vocabulary),
        "chunkings": _chunkings(scenario, vocabulary, seed, names),
        "truncation": _truncation(scenario, cuts),
        "rescrub": {"context": _context(context.for_rescrub()),
                    "requires": list(context.for_rescrub().required_keys())},
        "capped": dict(sorted(capped.items())),
    }
    return vector


def _context(context: Context) -> dict[str, Any]:
    kwargs = context.as_kwargs()
    return {**kwargs, "features": list(kwargs["features"])}


def _first(text: str, needle: str) -> int | None:
    index = text.find(needle)
    return None if index < 0 else index


def _expect(scenario: Scenario, vocabulary: Vocabulary) -> dict[str, Any] | None:
    """What must come out, how to compare it, and at which level a mismatch fails."""
    if scenario.visible is None and not scenario.acceptable:
        return None
    rules = behaviour_rules(scenario)
    should = rules[0] if rules and all(RULES[r].level == "SHOULD" for r in rules) else None
    expect: dict[str, Any] = {"should_rule": should}
    outputs: list[str]
    if scenario.visible is not None:
        reading = read_stream(scenario.text, scenario.context)
        # the removal points are trusted only where the SPEC model gives `visible` itself
        trusted = reading.visible == scenario.visible
        expect["visible"] = scenario.visible
        expect["cuts"] = sorted(set(reading.cuts)) if trusted else None
        outputs = [scenario.visible]
    else:
        assert scenario.acceptable is not None
        expect["acceptable"] = list(scenario.acceptable)
        outputs = list(scenario.acceptable)
    for output in outputs:  # a consumer may take an expected output as free of tags
        found = tags_outside_code(output, vocabulary)
        if found:
            raise VectorError(f"{scenario.file}:{scenario.line} [{scenario.id}]: an expected "
                              f"output holds the tag {found[0][1]!r} outside code")
    return expect


def _chunkings(
    scenario: Scenario, vocabulary: Vocabulary, seed: int, names: list[str]
) -> list[dict[str, Any]]:
    """The chunkings the harness runs, in its order; the two-way splits as one entry."""
    out: list[dict[str, Any]] = []
    splits: list[int] = []
    for name in names:
        if name.startswith("split@"):
            if not splits:
                out.append({"kind": "splits", "at": splits})
            splits.append(int(name.removeprefix("split@")))
        elif name in NAMED:
            out.append({"name": name})
        elif name.startswith("fixed-"):
            out.append({"name": name, "size": int(name.removeprefix("fixed-"))})
        else:  # tags, random-I: computed by the harness, written as delta lengths
            deltas = chunking_by_name(scenario, vocabulary, name, seed).deltas
            out.append({"name": name, "lengths": [len(d) for d in deltas]})
    every = list(range(1, len(scenario.text)))
    for entry in out:
        if entry.get("kind") == "splits" and entry["at"] == every:
            entry["at"] = "every"
    return out


def _truncation(scenario: Scenario, cuts: list[int]) -> dict[str, Any]:
    text = scenario.text
    truncated = scenario.context.truncated()
    every = cuts == list(range(len(text) + 1))
    data: dict[str, Any] = {
        "cuts": "every" if every else cuts,
        "context": _context(truncated),
        "requires": list(truncated.required_keys()),
        "requires_after_backtick": list(truncated.required_keys("`")),
        "undecided": None,
    }
    context = scenario.context
    if context.may_skip_reasoning and context.starts_in_reasoning:
        quiet = [cut for cut in cuts if read_stream(text[:cut], truncated).visible == ""]
        data["undecided"] = _ranges(quiet)
    return data


def _ranges(points: list[int]) -> list[list[int]]:
    """Sorted points as [first, last] runs of consecutive integers."""
    runs: list[list[int]] = []
    for point in points:
        if runs and point == runs[-1][1] + 1:
            runs[-1][1] = point
        else:
            runs.append([point, point])
    return runs
