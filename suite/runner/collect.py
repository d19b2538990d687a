"""Collecting findings into the failures of one scenario.

A check that fails under many chunkings is reported once, at the chunking
with the fewest deltas (the easiest replay), with how many others failed the
same way in `Failure.similar`. Failures keep their deltas and texts for the
reports unless they are huge; the replay command rebuilds them in any case.
"""

from __future__ import annotations

from collections.abc import Callable

from scrubcheck.checks.registry import check_order
from scrubcheck.evidence import Evidence

MAX_KEPT_CHARS = 200_000
SHOWN_SIMILAR = 5


class FailureCollector:
    def __init__(self, replay: Callable[[str], str]) -> None:
        self.replay = replay  # chunking name -> replay command
        self.collected: dict[tuple[str, str], list[tuple[tuple[int, int], Evidence]]] = {}
        self.order = 0

    def add(self, name: str, deltas: int, finding: Evidence | None) -> None:
        """Collect a finding under chunking `name` (`deltas`: how many, for ranking)."""
        if finding is None:
            return
        failure = finding.amended(chunking=name, expected=clip(finding.expected),
                                  got=clip(finding.got), replay=self.replay(name))
        self.collected.setdefault(finding.signature, []).append(((deltas, self.order), failure))
        self.order += 1

    def failures(self, deltas_of: Callable[[str], tuple[str, ...]]) -> list[Evidence]:
        """One failure per (check, rule), MUST first, in the registry's check order."""
        failures = []
        for entries in self.collected.values():
            entries.sort(key=lambda entry: entry[0])
            first = entries[0][1]
            others = list(dict.fromkeys(
                f.chunking for _, f in entries[1:] if f.chunking != first.chunking))
            if others:
                shown = ", ".join(others[:SHOWN_SIMILAR])
                more = (f", … ({len(others) - SHOWN_SIMILAR} more)"
                        if len(others) > SHOWN_SIMILAR else "")
                first = first.amended(similar=len(others),
                                      suffix=f" [same check also fails under: {shown}{more}]")
            failures.append(_with_deltas(first, deltas_of(first.chunking)))
        failures.sort(key=lambda f: (f.level != "MUST", check_order(f.check)))
        return failures


def _with_deltas(failure: Evidence, deltas: tuple[str, ...]) -> Evidence:
    """The failure with its deltas, unless they are too big to keep (then a note why)."""
    size = sum(map(len, deltas))
    if size <= MAX_KEPT_CHARS:
        return failure.amended(deltas=tuple(deltas))
    return failure.amended(suffix=f" (deltas not stored: {len(deltas)} deltas, {size} "
                                  "characters; the replay command rebuilds them)")


def clip(text: str | None) -> str | None:
    if text is None or len(text) <= MAX_KEPT_CHARS:
        return text
    return text[:MAX_KEPT_CHARS] + f"… [clipped: {len(text)} characters in all]"
