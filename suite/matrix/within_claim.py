"""Each row judged within the conformance class it claims (SPEC section 12).

The matrix runs every implementation in the generic class, so that one run answers both
questions: how it fares on the whole SPEC, and how it fares on what it claims. A generic
verdict is the verdict within a class wherever the class judges the scenario the same
way: the scenario is within the class and its expectation is the generic one (the
stream sent is then the same too: a peer fixed to a format's mode gets that format
enabled either way). Where the class's expectation differs (`Placement.reread`) the
generic verdict says nothing about the class; such scenarios are counted as not judged
in the class, never guessed. Scenarios beyond the claim are counted apart.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from functools import lru_cache

from scrubcheck.claims import place
from scrubcheck.corpus import load_corpus
from scrubcheck.model import Scenario
from scrubcheck.peers import ManifestError, find_manifest

BEYOND = "BEYOND CLAIM"
NOT_JUDGED = "NOT JUDGED"  # within the class, whose expectation differs from generic's


def row_claim(name: str) -> str:
    """The class a row claims: its peer manifest's first claim (a release row NAME@VERSION
    claims what NAME does), `generic` for the reference and for scrubbers without one."""
    if name == "reference":
        return "generic"
    try:
        claims = find_manifest(name.split("@", 1)[0]).claims
    except ManifestError:
        return "generic"
    return claims[0] if claims else "generic"


@lru_cache(maxsize=1)
def _corpus() -> dict[str, Scenario]:
    return {s.id: s for s in load_corpus(None).scenarios}


@lru_cache(maxsize=64)
def placements(claim: str, ids: tuple[str, ...]) -> dict[str, str | None]:
    """For each id: None within the class (the generic verdict stands), else BEYOND or
    NOT_JUDGED. An id the shipped corpus does not hold is NOT_JUDGED."""
    corpus = _corpus()
    out: dict[str, str | None] = {}
    for scenario_id in ids:
        scenario = corpus.get(scenario_id)
        if scenario is None:
            out[scenario_id] = NOT_JUDGED
            continue
        placed = place(scenario, claim)
        out[scenario_id] = BEYOND if placed.scenario is None else (
            NOT_JUDGED if placed.reread else None)
    return out


def within_claim(claim: str, verdicts: dict[str, str]) -> dict[str, str]:
    """Each scenario's verdict within `claim`: the generic verdict, BEYOND or NOT_JUDGED."""
    if claim == "generic":
        return dict(verdicts)
    placed = placements(claim, tuple(verdicts))
    return {i: placed[i] or v for i, v in verdicts.items()}


def counts(claim: str, verdicts: dict[str, str]) -> Counter:
    return Counter(within_claim(claim, verdicts).values())


def claims_in(claims: Iterable[str]) -> list[str]:
    """The classes some row claims (each row's `claim`), in first-seen order."""
    return list(dict.fromkeys(claims))
