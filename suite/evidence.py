"""The one record of a rule broken, with its evidence: what every tool reports.

A check returns one (`scrubcheck.checks`), the runner completes it with the
chunking, the deltas and the replay command (`runner.collect`), the hunt and
the fuzzer name the property that showed it, and the reports, the matrix and
`scrubcheck diff` read it back from report.json. It is frozen: whoever adds to
it makes a new one with `dataclasses.replace` (`amended`), so a record handed
on can never change under its reader.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from enum import IntEnum
from typing import Any

from scrubcheck.check_names import Check
from scrubcheck.spec import RULES, Level

#: Checks every failure of which shows reasoning, whatever rule it reports: the leak
#: windows and the cut streams (a cut stream showing a pre-fill still undecided, R-SKIP-2,
#: shows reasoning too). The evidence itself, read back from any report, answers "is this
#: a leak".
LEAK_CHECKS: frozenset[str] = frozenset({Check.LEAK, Check.TRUNCATION})


def shows_reasoning(check: str, rule: str) -> bool:
    """Whether a failure of `check` under `rule` showed reasoning to the user: a leak
    check's failure, or one under a rule SPEC marks as a leak (`spec.Rule.leak`); a hunt
    property names its check by its rule."""
    known = RULES.get(rule)
    return check in LEAK_CHECKS or (known is not None and known.leak)


class Severity(IntEnum):
    """How bad a failure or a scenario result is, worst first: the one order every
    listing of problems follows (reports, console, matrix, mutation oracle).

    A leak comes first whatever else happened; then a broken MUST rule; then the results
    the harness could not judge (an error, then a timeout); then a broken SHOULD rule;
    NONE is a result with nothing wrong.
    """

    LEAK = 0
    MUST = 1
    ERROR = 2
    TIMEOUT = 3
    SHOULD = 4
    NONE = 5

    @classmethod
    def of_failure(cls, leak: bool, level: str) -> Severity:
        """A failure's severity from its leak flag and its rule's level."""
        if leak:
            return cls.LEAK
        return cls.MUST if level == Level.MUST else cls.SHOULD


@dataclass(frozen=True)
class Evidence:
    """One violated rule: which check (or hunt property) saw it, where, and how to replay it.

    The field order is report.json's (`report_dict`) and the positional order; past
    `rule`, name the fields. `other_output` exists only for the hunt's differential
    property and is never written to report.json.
    """

    check: str  # a `checks.names.Check`, or a hunt property (`hunt.violation.PROPERTIES`)
    rule: str  # SPEC rule id violated
    level: str = ""  # MUST or SHOULD; empty: the rule's own level (SPEC section 11 may differ)
    chunking: str = ""  # e.g. recorded, whole, char, split@12, fixed-3, tags, random-4
    deltas: tuple[str, ...] = ()  # the stream that shows it (what a scenario records)
    detail: str = ""
    expected: str | None = None
    got: str | None = None
    step: int | None = None  # index of the feed() after which it showed (None: at flush)
    replay: str = ""
    similar: int = 0  # further chunkings that failed the same check and rule (not listed)
    other_output: str | None = None  # the --against scrubber's output (hunt, differential)

    def __post_init__(self) -> None:
        if not self.level:
            object.__setattr__(self, "level", RULES[self.rule].level)
        if not isinstance(self.deltas, tuple):  # report.json gives lists
            object.__setattr__(self, "deltas", tuple(self.deltas))

    @property
    def leak(self) -> bool:
        """Whether this failure showed reasoning to the user (`shows_reasoning`)."""
        return shows_reasoning(self.check, self.rule)

    @property
    def severity(self) -> Severity:
        return Severity.of_failure(self.leak, self.level)

    @property
    def signature(self) -> tuple[str, str]:
        """What makes two records the same failure: the check (or property) and the rule."""
        return self.check, self.rule

    def amended(self, *, prefix: str = "", suffix: str = "", **changes: Any) -> Evidence:
        """A copy with `changes`, its detail wrapped in `prefix` and `suffix`."""
        return replace(self, detail=prefix + changes.pop("detail", self.detail) + suffix,
                       **changes)

    def report_dict(self) -> dict[str, Any]:
        """The record as report.json stores a failure (without `other_output`)."""
        data = asdict(self)
        del data["other_output"]
        data["deltas"] = list(self.deltas)
        return data
