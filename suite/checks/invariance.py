"""R-CHUNK-1: every chunking gives the identical output."""

from __future__ import annotations

from dataclasses import dataclass

from scrubcheck.checks.names import Check
from scrubcheck.checks.render import describe_difference
from scrubcheck.evidence import Evidence


@dataclass(frozen=True)
class StreamOutput:
    """What is kept of one chunking's run: enough to compare, little enough to keep all."""

    name: str
    deltas: int
    ok: bool
    output: str


def check_invariance(runs: list[StreamOutput]) -> list[tuple[StreamOutput, Evidence]]:
    """One finding per distinct output that differs from the baseline's.

    The baseline is `whole` (one delta: what a batch call would see) when it ran
    cleanly, else the first clean chunking. Each finding names both chunkings.
    """
    clean = [r for r in runs if r.ok]
    if len(clean) < 2:
        return []
    base = next((r for r in clean if r.name == "whole"), clean[0])
    groups: dict[str, list[StreamOutput]] = {}
    for run in clean:
        if run.output != base.output:
            groups.setdefault(run.output, []).append(run)
    findings = []
    for output, members in groups.items():
        first = min(members, key=lambda r: r.deltas)
        others = (f"; {len(members) - 1} other chunkings give this same output"
                  if len(members) > 1 else "")
        findings.append((first, Evidence(
            Check.INVARIANCE, "R-CHUNK-1",
            detail=f"chunking {first.name} ({_deltas(first.deltas)}) and chunking {base.name} "
            f"({_deltas(base.deltas)}) give different outputs: "
            f"{describe_difference(base.output, output)}{others}",
            expected=base.output, got=output,
        )))
    return findings


def _deltas(count: int) -> str:
    return f"{count} delta" if count == 1 else f"{count} deltas"
