"""What the matrix says per serving engine: of its registered parsers, how many ran and
how many pass their own class.

An engine's rows (`ENGINE:NAME`, scrubcheck.peers.engines) are many, and most readers
ask one question of them: how does this engine's parser list fare? So its rows are
summed here, once, for the Markdown and HTML writers: the names it registers, those run,
those listed with why (a row of their own, an alias, cannot run here, no format of the
registry), and those whose every scenario within their claim passes. The hand-made
peer folders an engine points at count as its rows.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from scrubcheck.matrix.rows import Matrix, Row
from scrubcheck.matrix.verdicts import ERROR, FAIL, LEAK, SHOULD
from scrubcheck.matrix.within_claim import counts

#: why a registered name is listed, by the start of its reason (peers.engines words them)
LISTED_KINDS = (("has its own row", "its own row"), ("alias of", "alias"),
                ("cannot run here", "cannot run here"),
                ("split none", "no format in the registry"),
                ("split ", "no one class"),
                ("its registered parsers are not listed", "engine not installed"))


@dataclass
class EngineSummary:
    engine: str
    package: str
    registered: int = 0
    ran: list[Row] = field(default_factory=list)
    passed: list[Row] = field(default_factory=list)
    listed: Counter[str] = field(default_factory=Counter)
    listed_rows: list[Row] = field(default_factory=list)

    def sentence(self) -> str:
        kinds = ", ".join(f"{n} {k}" for k, n in sorted(self.listed.items()))
        return (f"{self.engine} ({self.package}): {self.registered} registered parser names; "
                f"{len(self.ran)} run here (with the rows of their own), "
                f"{len(self.passed)} of them pass their own class"
                + (f"; listed, not run: {kinds}" if kinds else ""))


def listed_kind(status: str) -> str:
    return next((kind for start, kind in LISTED_KINDS if status.startswith(start)), "other")


def passes_own_class(row: Row) -> bool:
    t = counts(row.claim, row.verdicts())
    return not (t[LEAK] or t[FAIL] or t[SHOULD] or t[ERROR])


def engine_summaries(matrix: Matrix) -> list[EngineSummary]:
    """One summary per engine with rows in the matrix, in row order."""
    by_name = {r.name: r for r in matrix.rows}
    out: dict[str, EngineSummary] = {}
    for row in matrix.rows:
        if not row.engine:
            continue
        summary = out.setdefault(row.engine, EngineSummary(row.engine, row.package))
        if row.name.endswith(":*"):
            summary.listed[listed_kind(row.status)] += 1
            summary.listed_rows.append(row)
            continue
        summary.registered += 1
        judged = row
        if not row.ran and row.status.startswith("has its own row "):
            own = by_name.get(row.status.removeprefix("has its own row ").strip())
            judged = own if own is not None and own.ran else row
        if judged.ran:
            summary.ran.append(judged)
            if passes_own_class(judged):
                summary.passed.append(judged)
        else:
            summary.listed[listed_kind(row.status)] += 1
            summary.listed_rows.append(row)
    return list(out.values())
