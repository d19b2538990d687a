"""Typed labels of the stream runs a scenario's checks read.

A run is named in reports and replay commands by a string (`split@3`,
`trunc@12`, `reuse:open-fence`); this module is the one place that reads and
writes those strings, so the runner, `show` and the checks' registry speak of
runs by kind instead of by prefix. A chunking keeps its own name (`recorded`,
`whole`, `char`, `split@k`, `fixed-N`, `tags`, `random-I`, ...): the chunking
module owns that family.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

TRUNC_PREFIX = "trunc@"
REUSE_PREFIX = "reuse:"


class RunKind(StrEnum):
    """What kind of stream run a check needs (`checks.registry.CheckEntry.needs`)."""

    CHUNKING = "chunking"  # the scenario under one chunking of the matrix, fresh session
    RESCRUB = "rescrub"  # a clean output scrubbed again, one delta, default context
    TRUNCATION = "truncation"  # the recorded deltas cut at a position, finish_reason length
    REUSE = "reuse"  # a poison stream, flush, then the recorded deltas on one object
    OWN = "own"  # a run a check plans itself (`checks.registry.CheckEntry.runs`)


@dataclass(frozen=True)
class StreamLabel:
    """One run: its kind and what picks it (a chunking's name, a cut or a poison)."""

    kind: RunKind
    chunking: str = ""  # CHUNKING (RESCRUB: the chunking re-scrubbed; OWN: the run's name)
    cut: int = 0  # for TRUNCATION
    poison: str = ""  # for REUSE

    def __str__(self) -> str:
        if self.kind is RunKind.TRUNCATION:
            return f"{TRUNC_PREFIX}{self.cut}"
        if self.kind is RunKind.REUSE:
            return f"{REUSE_PREFIX}{self.poison}"
        return self.chunking

    @classmethod
    def parse(cls, name: str) -> StreamLabel:
        """The label a replay name spells (anything else names a chunking).
        ValueError for a `trunc@` whose cut is not a number."""
        if name.startswith(TRUNC_PREFIX):
            return cls(RunKind.TRUNCATION, cut=int(name.removeprefix(TRUNC_PREFIX)))
        if name.startswith(REUSE_PREFIX):
            return cls(RunKind.REUSE, poison=name.removeprefix(REUSE_PREFIX))
        return cls(RunKind.CHUNKING, chunking=name)


def chunking_label(name: str) -> StreamLabel:
    return StreamLabel(RunKind.CHUNKING, chunking=name)


def truncation_label(cut: int) -> StreamLabel:
    return StreamLabel(RunKind.TRUNCATION, cut=cut)


def reuse_label(poison: str) -> StreamLabel:
    return StreamLabel(RunKind.REUSE, poison=poison)


def own_label(name: str) -> StreamLabel:
    """A run a check plans itself, named `name` in reports (no chunking may share it)."""
    return StreamLabel(RunKind.OWN, chunking=name)
