"""The registry of checks: each check once, with everything the tools derive from it.

The runner orders a scenario's failures by `order`, the reports and the matrix
call a failure a leak by `leak`, the hunt and the fuzz target name their
properties by `prop`, `checks.expected` and the hunt's scenarios take SPEC
section 8's invariants from `invariant`, and the self-test's leak rules come
from here too.

A check that judges one finished output (`on_output`: called with a `Subject`
and the output) is run by the runner on every chunking's output and by the hunt
on its case, both looping over `OUTPUT_CHECKS`: such a check for a new rule is
its module, its name in `checks.names` and one entry here. The other checks need
runs of their own (a cut stream, a re-scrub, a reused session), which the runner
and the hunt make where they make them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from scrubcheck.checks.expected import check_expected
from scrubcheck.checks.holdback import measure_holdback
from scrubcheck.checks.idempotence import check_idempotence
from scrubcheck.checks.invariance import check_invariance
from scrubcheck.checks.leaks import check_leak
from scrubcheck.checks.linear import measure_linearity
from scrubcheck.checks.names import Check, Scope
from scrubcheck.checks.reuse import check_reuse
from scrubcheck.checks.robust import check_exception, check_types
from scrubcheck.checks.tags import check_tags
from scrubcheck.checks.truncation import check_truncation
from scrubcheck.evidence import Evidence
from scrubcheck.model import Scenario
from scrubcheck.vocabulary import Vocabulary


@dataclass(frozen=True)
class Subject:
    """What an output check knows of the stream whose output it judges."""

    scenario: Scenario  # the hunt's case as a scenario: its expected output, its rules
    vocabulary: Vocabulary
    cuts: list[int] | None  # the reference's removal points in `visible` (None: unknown)


#: A check of one finished output: None when the rule holds.
OutputCheck = Callable[[Subject, str], Evidence | None]


def _tags(subject: Subject, output: str) -> Evidence | None:
    return check_tags(output, subject.vocabulary)


def _expected(subject: Subject, output: str) -> Evidence | None:
    return check_expected(subject.scenario, output, subject.cuts)


def _has_expectation(subject: Subject) -> bool:
    return subject.scenario.expected_outputs is not None


def _always(subject: Subject) -> bool:
    return True


@dataclass(frozen=True)
class CheckEntry:
    """One check: its name, the SPEC rules it judges and how its failures count."""

    name: Check
    rules: tuple[str, ...]  # the rules it exists for (first: the one it reports by default)
    run: Callable[..., Any]  # the function that judges
    leak: bool = False  # a failure means reasoning reached the user: the worst kind
    invariant: bool = False  # its rules are SPEC section 8 whole-stream invariants
    scope: Scope = Scope.SCENARIO
    prop: str | None = None  # the hunt/fuzz property that runs it (None: not searched)
    says: str = ""  # what the property checks, in words (`scrubcheck hunt --help`)
    also: tuple[str, ...] = ()  # other rules it may report (not its own)
    on_output: OutputCheck | None = None  # set for a check of one finished output
    applies: Callable[[Subject], bool] = _always  # whether it judges this stream at all

    @property
    def order(self) -> int:
        """Its place among a scenario's failures of one level (the registry's order)."""
        return ORDER[self.name]

    def judge(self, subject: Subject, output: str) -> Evidence | None:
        """Run an output check on `output` (only for an entry with `on_output`)."""
        assert self.on_output is not None, f"{self.name} does not judge one output"
        return self.on_output(subject, output)


CHECKS: tuple[CheckEntry, ...] = (
    CheckEntry(Check.EXCEPTION, ("R-ROBUST-1",), check_exception, prop="robust",
               says="feed() and flush() return str and never raise (R-ROBUST-1)"),
    CheckEntry(Check.TYPE, ("R-ROBUST-1",), check_types, prop="robust"),
    CheckEntry(Check.LEAK, ("R-LEAK-1",), check_leak, leak=True, invariant=True,
               prop="no-leak",
               says="no canary of the reasoning shows at any point of the stream (R-LEAK-1)"),
    CheckEntry(Check.TRUNCATION, ("R-TRUNC-1",), check_truncation, leak=True, invariant=True,
               prop="truncation", also=("R-SKIP-2",),
               says="the stream cut at a random point leaks nothing (R-TRUNC-1)"),
    CheckEntry(Check.TAG, ("R-TAG-1",), check_tags, prop="no-tag", on_output=_tags,
               says="no tag of the active vocabulary outside code in the output (R-TAG-1)"),
    CheckEntry(Check.EXPECTED, ("R-FID-1", "R-WS-1"), check_expected, invariant=True,
               prop="answer", on_output=_expected, applies=_has_expectation,
               says="the answer comes out exactly as the stream's structure says "
                    "(R-FID-1, R-WS-1)"),
    CheckEntry(Check.INVARIANCE, ("R-CHUNK-1",), check_invariance, invariant=True,
               prop="chunking", says="two partitions of the stream give the same output "
                                     "(R-CHUNK-1)"),
    CheckEntry(Check.IDEMPOTENCE, ("R-IDEM-1",), check_idempotence, invariant=True,
               prop="idempotence", says="scrubbing the output again changes nothing (R-IDEM-1)"),
    CheckEntry(Check.REUSE, ("R-REUSE-1",), check_reuse, invariant=True),
    CheckEntry(Check.HOLDBACK, ("R-STREAM-1", "R-STREAM-2"), measure_holdback,
               prop="holdback", says="decided text comes out without delay (R-STREAM-1/2, SHOULD)"),
    CheckEntry(Check.LINEAR, ("R-ROBUST-2",), measure_linearity, scope=Scope.SCRUBBER,
               prop="linear", says="time grows linearly with the stream (R-ROBUST-2)"),
)

ORDER: dict[str, int] = {entry.name: index for index, entry in enumerate(CHECKS)}
BY_NAME: dict[str, CheckEntry] = {entry.name: entry for entry in CHECKS}
#: The checks of one finished output, in order (the runner and the hunt loop over them).
OUTPUT_CHECKS: tuple[CheckEntry, ...] = tuple(e for e in CHECKS if e.on_output is not None)
#: Checks whose failure means reasoning reached the user (SPEC R-LEAK-1, R-TRUNC-1).
LEAK_CHECKS = frozenset(entry.name for entry in CHECKS if entry.leak)
#: Their rules: a failure under one of them is a leak whatever check reported it.
LEAK_RULES = frozenset(rule for entry in CHECKS if entry.leak for rule in entry.rules)
#: SPEC section 8, whole-stream invariants with checks of their own.
INVARIANT_RULES = frozenset(rule for entry in CHECKS if entry.invariant for rule in entry.rules)
#: hunt/fuzz property -> what it checks, in the registry's order (one per property).
CHECK_PROPERTIES: dict[str, str] = {
    entry.prop: entry.says for entry in CHECKS if entry.prop and entry.says}


def output_checks(subject: Subject) -> tuple[CheckEntry, ...]:
    """The output checks that judge `subject`'s outputs, in order."""
    return tuple(entry for entry in OUTPUT_CHECKS if entry.applies(subject))


def is_leak(check: str, rule: str) -> bool:
    """Whether a failure of `check` under `rule` showed reasoning to the user."""
    return check in LEAK_CHECKS or rule in LEAK_RULES


def check_order(check: str) -> int:
    """A check's place in the order; after every check for a name not in the registry."""
    return ORDER.get(check, len(CHECKS))
