"""Collecting findings into the failures of one scenario.

A check that fails under many chunkings is reported once, at the chunking
with the fewest deltas (the easiest replay), with how many others failed the
same way in `Failure.similar`. Failures keep their deltas and texts for the
reports unless they are huge; the replay command rebuilds them in any case.
"""

from __future__ import annotations

from collections.abc import Callable

from scrubcheck.checks import Finding
from scrubcheck.results import Failure

MAX_KEPT_CHARS = 200_000
CHECK_ORDER = ("exception", "type", "leak", "truncation", "tag", "expected", "invariance",
               "idempotence", "reuse", "holdback")
SHOWN_SIMILAR = 5


class FailureCollector:
    def __init__(self, replay: Callable[[str], str]) -> None:
        self.replay = replay  # chunking name -> replay command
        self.collected: dict[tuple[str, str], list[tuple[tuple[int, int], Failure]]] = {}
        self.order = 0

    def add(self, name: str, deltas: int, finding: Finding | None) -> None:
        """Collect a finding under chunking `name` (`deltas`: how many, for ranking)."""
        if finding is None:
            return
        failure = Failure(
            check=finding.check, rule=finding.rule, level=finding.level, chunking=name,
            deltas=[], detail=finding.detail, expected=clip(finding.expected),
            got=clip(finding.got), step=finding.step, replay=self.replay(name),
        )
        self.collected.setdefault((finding.check, finding.rule), []).append(
            ((deltas, self.order), failure))
        self.order += 1

    def failures(self, deltas_of: Callable[[str], tuple[str, ...]]) -> list[Failure]:
        """One failure per (check, rule), MUST first, in check order."""
        failures = []
        for entries in self.collected.values():
            entries.sort(key=lambda entry: entry[0])
            first = entries[0][1]
            others = list(dict.fromkeys(
                f.chunking for _, f in entries[1:] if f.chunking != first.chunking))
            if others:
                first.similar = len(others)
                shown = ", ".join(others[:SHOWN_SIMILAR])
                more = (f", … ({len(others) - SHOWN_SIMILAR} more)"
                        if len(others) > SHOWN_SIMILAR else "")
                first.detail += f" [same check also fails under: {shown}{more}]"
            _attach_deltas(first, deltas_of(first.chunking))
            failures.append(first)
        failures.sort(key=lambda f: (f.level != "MUST", CHECK_ORDER.index(f.check)
                                     if f.check in CHECK_ORDER else len(CHECK_ORDER)))
        return failures


def _attach_deltas(failure: Failure, deltas: tuple[str, ...]) -> None:
    size = sum(map(len, deltas))
    if size <= MAX_KEPT_CHARS:
        failure.deltas = list(deltas)
    else:
        failure.detail += (f" (deltas not stored: {len(deltas)} deltas, {size} characters; "
                           "the replay command rebuilds them)")


def clip(text: str | None) -> str | None:
    if text is None or len(text) <= MAX_KEPT_CHARS:
        return text
    return text[:MAX_KEPT_CHARS] + f"… [clipped: {len(text)} characters in all]"
