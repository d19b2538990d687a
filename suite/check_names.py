"""The names of the checks, as evidence, reports and report.json spell them.

Only the names live here, in the bottom layer, so that every check module can name what
it found without importing the registry (`checks.registry`), which imports them, and the
evidence record (`evidence`) can name the checks whose failures are leaks.

The checks scrubcheck ships are members of `Check`. A check added later names itself in
its own module with `CheckName("NAME")`, once, so that adding a check is its module and
its registry line (CONTRIBUTING, recipe 3): whichever way a name is declared, it is a
`str` wherever a check is named, and the registry refuses two checks of one name.
"""

from __future__ import annotations

from enum import StrEnum
from typing import NewType

#: A check's name declared by the module of a check that is not one of `Check`'s
#: (tests/test_check_names.py holds every such declaration to one place).
CheckName = NewType("CheckName", str)


class Check(StrEnum):
    """One check of the harness; `checks.registry.CHECKS` says what each judges."""

    EXCEPTION = "exception"
    TYPE = "type"
    LEAK = "leak"
    TRUNCATION = "truncation"
    TAG = "tag"
    EXPECTED = "expected"
    INVARIANCE = "invariance"
    IDEMPOTENCE = "idempotence"
    REUSE = "reuse"
    HOLDBACK = "holdback"
    LINEAR = "linear"


class Scope(StrEnum):
    """How often a check runs: on each scenario, or once per scrubber (R-ROBUST-2)."""

    SCENARIO = "scenario"
    SCRUBBER = "scrubber"
