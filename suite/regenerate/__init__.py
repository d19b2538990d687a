"""`scrubcheck regenerate`: every committed report and docs quote, made current.

See scrubcheck.regenerate.targets for what is rebuilt and how staleness is told,
and scrubcheck.runner.cache for why a rebuild after a corpus change reruns only
the rows × scenarios whose digests changed.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from scrubcheck.regenerate.targets import TARGETS, CannotRegenerate, Context, Target


@dataclass
class Outcome:
    """What regenerate did with one target."""

    target: str
    state: str  # current | stale | rebuilt | cannot
    detail: str
    seconds: float = 0.0
    written: tuple[Path, ...] = ()


def choose(names: Sequence[str] | None) -> list[Target]:
    """The targets named (all when none), in build order; ValueError on an unknown name."""
    if not names:
        return list(TARGETS)
    known = {t.name: t for t in TARGETS}
    unknown = [n for n in names if n not in known]
    if unknown:
        raise ValueError(f"unknown target(s) {', '.join(unknown)}; known: "
                         f"{', '.join(known)}")
    return [t for t in TARGETS if t.name in names]


def regenerate(ctx: Context, targets: list[Target], *, check: bool = False,
               force: bool = False) -> list[Outcome]:
    """Each target checked and, unless `check`, rebuilt when stale (or `force`). A target
    that cannot be rebuilt here is reported and the others still run."""
    outcomes = []
    for target in targets:
        clock = time.monotonic()
        reason = target.stale(ctx)
        if check or (reason is None and not force):
            outcomes.append(Outcome(target.name, "stale" if reason else "current",
                                    reason or "", time.monotonic() - clock))
            continue
        ctx.say(f"{target.name}: {reason or 'rebuilt on request (--force)'}")
        try:
            written = target.build(ctx)
        except CannotRegenerate as exc:
            outcomes.append(Outcome(target.name, "cannot", str(exc),
                                    time.monotonic() - clock))
            continue
        outcomes.append(Outcome(target.name, "rebuilt", reason or "--force",
                                time.monotonic() - clock, tuple(written)))
    return outcomes


__all__ = ["TARGETS", "CannotRegenerate", "Context", "Outcome", "Target", "choose",
           "regenerate"]
