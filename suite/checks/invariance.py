"""R-CHUNK-1: every chunking gives the identical output."""

from __future__ import annotations

from scrubcheck.checks.findings import Finding
from scrubcheck.checks.render import describe_difference
from scrubcheck.checks.trace import Trace
from scrubcheck.chunking import Chunking


def check_invariance(runs: list[tuple[Chunking, Trace]]) -> list[tuple[Chunking, Finding]]:
    """One finding per chunking whose output differs from the baseline's.

    The baseline is `whole` (one delta: what a batch call would see) when it ran
    cleanly, else the first clean chunking. Each finding names both chunkings.
    """
    clean = [(c, t) for c, t in runs if t.ok]
    if len(clean) < 2:
        return []
    base_chunking, base_trace = next(((c, t) for c, t in clean if c.name == "whole"), clean[0])
    base = base_trace.output
    groups: dict[str, list[Chunking]] = {}
    for chunking, trace in clean:
        if trace.output != base:
            groups.setdefault(trace.output, []).append(chunking)
    findings = []
    for output, members in groups.items():
        first = members[0]
        others = f"; {len(members) - 1} other chunkings give this same output" if (
            len(members) > 1) else ""
        findings.append((first, Finding(
            "invariance", "R-CHUNK-1",
            f"chunking {first.name} ({_deltas(first)}) and chunking "
            f"{base_chunking.name} ({_deltas(base_chunking)}) give different "
            f"outputs: {describe_difference(base, output)}{others}",
            expected=base, got=output,
        )))
    return findings


def _deltas(chunking: Chunking) -> str:
    count = len(chunking.deltas)
    return f"{count} delta" if count == 1 else f"{count} deltas"
