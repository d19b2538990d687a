"""The behaviours observed in real scrubbers, gathered from the peers' manifests.

Each claim lives with the peer it is about (`[[observed]]` in its peer.toml;
claims about every peer in scrubbers/peers/observed.toml). The matrix shows,
for every claim, the verdict the named peer got on the named scenarios in this
run, so a reader can trace each claim to a scenario id and a replay command
instead of taking it on trust.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from scrubcheck.peers.manifest import shared_observations, shipped_manifests
from scrubcheck.peers.observed import Observation

EVERY_PEER = "*"


@dataclass(frozen=True)
class Observed:
    """One claim and whom it is about: a peer's name, or EVERY_PEER."""

    peer: str
    claim: Observation


@lru_cache(maxsize=1)
def shipped_observed() -> tuple[Observed, ...]:
    """Every shipped claim: per peer in manifest order, then the claims about every peer."""
    per_peer = [Observed(m.name, claim) for m in shipped_manifests() for claim in m.observed]
    return (*per_peer, *(Observed(EVERY_PEER, claim) for claim in shared_observations()))
