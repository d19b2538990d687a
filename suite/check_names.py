"""The names of the checks, as evidence, reports and report.json spell them.

Only the names live here, in the bottom layer, so that every check module can name what
it found without importing the registry (`checks.registry`), which imports them, and the
evidence record (`evidence`) can name the checks whose failures are leaks.
"""

from __future__ import annotations

from enum import StrEnum


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
