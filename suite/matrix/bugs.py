"""Each row's bugs within its claim: its failing scenarios there, explained as root causes.

The matrix counts scenarios and failure classes, and a class is a guess at a bug (one
recipe of scenarios, one set of rules). What a maintainer acts on, and what a reader
comparing implementations wants, is how many bugs each has and the smallest stream of
each. So after a row runs, its failing scenarios within the class it claims (the ones
the headline counts: matrix.within_claim) are explained exactly as `scrubcheck run`
explains a run (scrubcheck.explain): rerun against the implementation itself, through
the conductor that judged them, shrunk and grouped by the SPEC decision they get wrong.
The row keeps the explanation as its report would (`Row.bugs`); matrix.json keeps it,
so a re-rendered page and the site say the same.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from scrubcheck.explain import explain_run
from scrubcheck.matrix.rows import Matrix, Row
from scrubcheck.matrix.within_claim import placements
from scrubcheck.model import Scenario
from scrubcheck.results import RunResult


@dataclass(frozen=True)
class Explaining:
    """How the matrix explains its rows: per failing scenario `seconds` of shrinking and
    a worker killed after `timeout` (a scrubber that hangs on a smaller stream), per row
    a `budget`, in `jobs` workers, through the explanation cache unless told not to."""

    seconds: float = 5.0
    budget: float = 300.0
    jobs: int = 2
    cache: bool = True
    timeout: float = 35.0


def within_claim_run(row: Row) -> RunResult:
    """The row's run with only the results the headline counts within its claim."""
    assert row.run is not None
    run = row.run
    placed = placements(row.claim, tuple(r.scenario_id for r in run.results))
    return replace(run, results=[r for r in run.results if placed[r.scenario_id] is None])


def explain_row(row: Row, scenarios: dict[str, Scenario], how: Explaining,
                say: Callable[[str], None] = print) -> None:
    """Fill `row.bugs` with its failures within its claim as root causes."""
    if row.run is None:
        return
    explanation = explain_run(within_claim_run(row), scenarios, jobs=how.jobs,
                              seconds=how.seconds, budget=how.budget, cache=how.cache,
                              timeout=how.timeout)
    row.bugs = explanation.to_dict()
    missing = len(explanation.unexplained)
    say(f"    {row.name}: {explanation.bugs} bug{'s' if explanation.bugs != 1 else ''} "
        f"within {row.claim} explain {explanation.explained:,} of {explanation.failing:,} "
        f"failing scenarios" + (f" ({missing:,} not explained)" if missing else "")
        + f" [{explanation.seconds:.0f} s, {explanation.reused:,} from the cache]")


def real_rows(matrix: Matrix) -> list[Row]:
    """The rows that are released implementations: not the reference, not a model of a
    proposed change."""
    return [row for row in matrix.ran if row.name != "reference" and not row.model_of]


def bugs_sentence(matrix: Matrix) -> str:
    """The matrix's headline in words: how many bugs within their claims over how many
    implementations (and how many rows were not explained)."""
    rows = real_rows(matrix)
    counted = [row for row in rows if row.bug_count() is not None]
    if not counted:
        return ""
    total = sum(row.bug_count() or 0 for row in counted)
    buggy = sum(1 for row in counted if row.bug_count())
    text = (f"{total:,} bug{'s' if total != 1 else ''} within their claims over "
            f"{len(counted)} implementation{'s' if len(counted) != 1 else ''} "
            f"({buggy} with at least one)")
    if len(counted) < len(rows):
        text += f"; {len(rows) - len(counted)} not explained"
    return text
