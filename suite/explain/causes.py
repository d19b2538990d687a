"""Root causes: the explained failures of a run, grouped by signature and ordered.

Failures with one signature are one root cause, whichever checks saw them: one bug
seen by the leak, tag, fidelity and truncation checks is one root cause, and two bugs
seen by one check are two. Each root cause keeps the smallest stream among its
failures (the shortest, then the first in scenario order), the scenarios it explains,
the checks and rules that saw it, and the SPEC rules it breaks, quoted from the rule
table.

Root causes are listed leaks first, then losses, then the rest (hold-back, a second
pass, reuse, robustness); within each group, by how many scenarios they explain.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from scrubcheck.evidence import Severity
from scrubcheck.explain.difference import Did
from scrubcheck.explain.failure import Explained
from scrubcheck.explain.field import seen_in_field
from scrubcheck.explain.rules import decision_rules
from scrubcheck.explain.signature import Signature
from scrubcheck.spec import RULES

_KIND_ORDER = {"leak": 0, "loss": 1, "other": 2}


@dataclass
class RootCause:
    """One bug: its signature, its smallest stream and the failures it explains."""

    signature: Signature
    smallest: Explained
    failures: list[Explained] = field(default_factory=list)

    @property
    def name(self) -> str:
        return self.signature.name()

    @property
    def kind(self) -> str:
        """leak, loss or other: the signature's, or for a bug about a kind of delta (whose
        consequences vary), the worst its smallest streams showed."""
        if self.signature.did is not Did.MISHANDLES_DELTA:
            return self.signature.kind
        return min((f.shows for f in self.failures), key=_KIND_ORDER.__getitem__,
                   default="other")

    @property
    def scenarios(self) -> list[str]:
        return sorted({f.scenario_id for f in self.failures})

    @property
    def checks(self) -> list[str]:
        return sorted({f.check for f in self.failures})

    @property
    def rules(self) -> list[str]:
        """The rules that decide the wrong decision (`rules.decision_rules`), then those
        the failures were reported under, worst level first."""
        found = {f.rule for f in self.failures if f.rule in RULES}
        seen = sorted(found, key=lambda r: (RULES[r].level != "MUST", r))
        return list(dict.fromkeys([*decision_rules(self.signature), *seen]))

    @property
    def severity(self) -> Severity:
        worst = min((Severity.of_failure(f.leak, f.level) for f in self.failures),
                    default=Severity.NONE)
        if self.kind == "leak":
            return Severity.LEAK
        if self.signature.did is Did.HANGS:
            return min(worst, Severity.TIMEOUT)
        return worst

    def to_dict(self) -> dict[str, Any]:
        small = self.smallest
        return {
            "name": self.name,
            "kind": self.kind,
            "severity": self.severity.name,
            "signature": {
                "did": self.signature.did.value, "piece": self.signature.piece,
                "family": self.signature.family, "case": self.signature.case,
                "boundary": self.signature.boundary, "needs": list(self.signature.needs),
                "context": list(self.signature.context),
            },
            "rules": self.rules,
            "checks": self.checks,
            "field": seen_in_field(self.signature),
            "scenarios": self.scenarios,
            "smallest": {
                "scenario": small.scenario_id, "deltas": list(small.deltas),
                "context": dict(small.context.as_kwargs()), "expected": small.expected,
                "got": small.got,
                "label": small.label, "complete": small.complete, "replay": small.replay,
            },
        }


def group(explained: Iterable[Explained]) -> tuple[list[RootCause], list[Explained]]:
    """The root causes of `explained`, in the order a reader acts on them, and the
    failures left unexplained: a shrink stopped by its time limit names a bug only when
    a finished shrink named the same (or a wider) one; alone, its stream is still too
    long to say what the bug is."""
    items = list(explained)
    finished = [item for item in items if item.complete or item.check in ("ERROR", "TIMEOUT")]
    causes = _grouped(finished)
    left = []
    for item in items:
        if item in finished:
            continue
        home = next((c for c in causes if c.signature == item.signature
                     or c.signature.covers(item.signature)), None)
        if home is None:
            left.append(item)
        else:
            home.failures.append(item)
    return causes, left


def _grouped(explained: list[Explained]) -> list[RootCause]:
    causes: dict[Signature, RootCause] = {}
    for item in explained:
        cause = causes.get(item.signature)
        if cause is None:
            causes[item.signature] = cause = RootCause(item.signature, item)
        cause.failures.append(item)
        if _smaller(item, cause.smallest):
            cause.smallest = item
    return sorted(_join_unrecognised(_fold_narrower(list(causes.values()))), key=sort_key)


def _join_unrecognised(causes: list[RootCause]) -> list[RootCause]:
    """A delimiter the implementation does not recognise shows where it stands alone and
    hides the answer after it where it should have closed a block: one bug, two faces.
    A delimiter shown and an answer dropped after a delimiter join when they need the
    same particular of it (a letter case, a format, a split), which says it is the
    delimiter that is missed; with no particular in common they stay apart."""
    def particulars(signature: Signature) -> tuple[str, str, str]:
        return signature.case, signature.family, signature.boundary

    shown = {particulars(c.signature): c for c in causes
             if c.signature.did is Did.SHOWS_DELIMITER and any(particulars(c.signature))}
    kept = []
    for cause in causes:
        signature = cause.signature
        home = shown.get(particulars(signature))
        if signature.did is Did.DROPS_ANSWER and signature.piece == "answer text after "\
                "delimiter" and home is not None:
            home.failures.extend(cause.failures)
            continue
        kept.append(cause)
    for cause in shown.values():
        if len({f.signature for f in cause.failures}) > 1:  # it took in a dropped answer
            cause.signature = replace(cause.signature, did=Did.MISSES_DELIMITER,
                                      piece="delimiter")
    return kept


def _fold_narrower(causes: list[RootCause]) -> list[RootCause]:
    """Each root cause whose signature a wider one covers (`Signature.covers`: the same
    decision, needing less) joins the widest such one: its streams hold something the
    bug does not need, a backtick or a setting the shrinker could not take out without
    changing what the check sees."""
    by_width = sorted(causes, key=lambda c: (_width(c.signature), -len(c.scenarios)))
    kept: list[RootCause] = []
    for cause in by_width:
        home = next((k for k in kept if k.signature.covers(cause.signature)), None)
        if home is None:
            kept.append(cause)
            continue
        home.failures.extend(cause.failures)
    return kept


def _width(signature: Signature) -> int:
    """How much a signature asks for: the fewer, the wider it is."""
    return (len(signature.needs) + len(signature.context) + bool(signature.boundary)
            + bool(signature.case) + bool(signature.family))


def _smaller(a: Explained, b: Explained) -> bool:
    if a.complete != b.complete:
        return a.complete
    return (a.size, a.scenario_id) < (b.size, b.scenario_id)


def sort_key(cause: RootCause) -> tuple[int, int, int, str]:
    return (_KIND_ORDER[cause.kind], cause.severity.value, -len(cause.scenarios), cause.name)
