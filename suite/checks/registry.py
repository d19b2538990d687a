"""The registry of checks: each check once, with everything the tools derive from it.

The runner orders a scenario's failures by `order`, the hunt and the fuzz target name their
properties by `prop`, `checks.expected` and the hunt's scenarios take SPEC
section 8's invariants from `invariant`. Whether a failure is a leak is the
evidence's to say (`Evidence.leak`, from the rule's and the check's flags in the
bottom layer), so a report read back from report.json needs no registry to say it.

A check that judges one finished output (`on_output`: called with a `Subject`
and the output) is run by the runner on every chunking's output and by the hunt
on its case, both looping over `OUTPUT_CHECKS`: such a check for a new rule is
its module (which names it) and one entry here. A check that needs
stream runs of its own (`runs`: the runs it asks for, each a label, a context and
deltas; `on_runs`: its judgement of their traces) is run by the runner's conductor
(`runner.judge`), and so by `run`, `show` and the pytest plugin, and by the hunt
on its case (`hunt.properties`): such a check is also its module and one entry
here (`extended` adds one for a while, as a test does with a throwaway check). A new
check's name is declared in its module (`checks.names.CheckName`), so no third file
changes; `_index` refuses a second check of a name.
Every entry says which kinds of run it reads (`needs`), so the conductor makes
each run once whatever reads it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from scrubcheck.adapters.drive import Trace
from scrubcheck.adapters.labels import RunKind, StreamLabel
from scrubcheck.checks.expected import check_expected
from scrubcheck.checks.holdback import measure_holdback
from scrubcheck.checks.idempotence import check_idempotence
from scrubcheck.checks.invariance import check_invariance
from scrubcheck.checks.leaks import check_leak
from scrubcheck.checks.linear import measure_linearity
from scrubcheck.checks.names import Check, CheckName, Scope
from scrubcheck.checks.reuse import check_reuse
from scrubcheck.checks.robust import check_exception, check_types
from scrubcheck.checks.tags import check_tags
from scrubcheck.checks.truncation import check_truncation
from scrubcheck.evidence import LEAK_CHECKS, Evidence
from scrubcheck.model import Context, Scenario
from scrubcheck.vocabulary import Vocabulary


@dataclass(frozen=True)
class Subject:
    """What an output check knows of the stream whose output it judges."""

    scenario: Scenario  # the hunt's case as a scenario: its expected output, its rules
    vocabulary: Vocabulary
    cuts: list[int] | None  # the reference's removal points in `visible` (None: unknown)


#: A check of one finished output: None when the rule holds.
OutputCheck = Callable[[Subject, str], Evidence | None]


@dataclass(frozen=True)
class PlannedRun:
    """A stream run a check asks for: the conductor opens a fresh session with
    `context`, feeds `deltas` and flushes; `label` names it in reports."""

    label: StreamLabel
    context: Context
    deltas: tuple[str, ...]


#: The runs a stream check needs for one scenario (none: it does not judge this one).
RunPlanner = Callable[[Subject], tuple[PlannedRun, ...]]
#: A stream check's judgement of its runs' traces (those that ran to the end):
#: one (label, evidence or None) per judgement, None when the rule holds.
StreamCheck = Callable[[Subject, Mapping[StreamLabel, Trace]],
                       Iterable[tuple[StreamLabel, Evidence | None]]]


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

    name: Check | CheckName  # shipped checks: a `Check`; a new one: its module's CheckName
    rules: tuple[str, ...]  # the rules it exists for (first: the one it reports by default)
    run: Callable[..., Any]  # the function that judges
    invariant: bool = False  # its rules are SPEC section 8 whole-stream invariants
    scope: Scope = Scope.SCENARIO
    prop: str | None = None  # the hunt/fuzz property that runs it (None: not searched)
    says: str = ""  # what the property checks, in words (`scrubcheck hunt --help`)
    also: tuple[str, ...] = ()  # other rules it may report (not its own)
    on_output: OutputCheck | None = None  # set for a check of one finished output
    applies: Callable[[Subject], bool] = _always  # whether it judges this stream at all
    needs: frozenset[RunKind] = frozenset()  # the kinds of run it reads
    runs: RunPlanner | None = None  # set for a check with stream runs of its own
    on_runs: StreamCheck | None = None  # its judgement of those runs

    @property
    def leak(self) -> bool:
        """A failure means reasoning reached the user: the worst kind (`LEAK_CHECKS`)."""
        return self.name in LEAK_CHECKS

    @property
    def order(self) -> int:
        """Its place among a scenario's failures of one level (the registry's order)."""
        return ORDER[self.name]

    def judge(self, subject: Subject, output: str) -> Evidence | None:
        """Run an output check on `output` (only for an entry with `on_output`)."""
        assert self.on_output is not None, f"{self.name} does not judge one output"
        return self.on_output(subject, output)


_CHUNKINGS = frozenset({RunKind.CHUNKING})
_CUTS = frozenset({RunKind.TRUNCATION})

CHECKS: tuple[CheckEntry, ...] = (
    CheckEntry(Check.EXCEPTION, ("R-ROBUST-1",), check_exception, prop="robust",
               needs=_CHUNKINGS,  # and it judges every other run that is made
               says="feed() and flush() return str and never raise (R-ROBUST-1)"),
    CheckEntry(Check.TYPE, ("R-ROBUST-1",), check_types, prop="robust", needs=_CHUNKINGS),
    CheckEntry(Check.LEAK, ("R-LEAK-1",), check_leak, invariant=True,
               prop="no-leak", needs=_CHUNKINGS,
               says="no canary of the reasoning shows at any point of the stream (R-LEAK-1)"),
    CheckEntry(Check.TRUNCATION, ("R-TRUNC-1",), check_truncation, invariant=True,
               prop="truncation", also=("R-SKIP-2",), needs=_CUTS,
               says="the stream cut at a random point leaks nothing (R-TRUNC-1)"),
    CheckEntry(Check.TAG, ("R-TAG-1",), check_tags, prop="no-tag", on_output=_tags,
               needs=_CHUNKINGS,
               says="no tag of the active vocabulary outside code in the output (R-TAG-1)"),
    CheckEntry(Check.EXPECTED, ("R-FID-1", "R-WS-1"), check_expected, invariant=True,
               prop="answer", on_output=_expected, applies=_has_expectation,
               needs=_CHUNKINGS,
               says="the answer comes out exactly as the stream's structure says "
                    "(R-FID-1, R-WS-1)"),
    CheckEntry(Check.INVARIANCE, ("R-CHUNK-1",), check_invariance, invariant=True,
               prop="chunking", needs=_CHUNKINGS,
               says="two partitions of the stream give the same output (R-CHUNK-1)"),
    CheckEntry(Check.IDEMPOTENCE, ("R-IDEM-1",), check_idempotence, invariant=True,
               prop="idempotence", needs=frozenset({RunKind.CHUNKING, RunKind.RESCRUB}),
               says="scrubbing the output again changes nothing (R-IDEM-1)"),
    CheckEntry(Check.REUSE, ("R-REUSE-1",), check_reuse, invariant=True,
               needs=frozenset({RunKind.CHUNKING, RunKind.REUSE})),
    CheckEntry(Check.HOLDBACK, ("R-STREAM-1", "R-STREAM-2"), measure_holdback,
               prop="holdback", needs=frozenset({RunKind.CHUNKING, RunKind.TRUNCATION}),
               says="decided text comes out without delay (R-STREAM-1/2, SHOULD)"),
    CheckEntry(Check.LINEAR, ("R-ROBUST-2",), measure_linearity, scope=Scope.SCRUBBER,
               prop="linear", says="time grows linearly with the stream (R-ROBUST-2)"),
)

ORDER: dict[str, int] = {}
BY_NAME: dict[str, CheckEntry] = {}
#: The checks of one finished output, in order (the runner and the hunt loop over them).
OUTPUT_CHECKS: tuple[CheckEntry, ...] = ()
#: SPEC section 8, whole-stream invariants with checks of their own.
INVARIANT_RULES: set[str] = set()
#: hunt/fuzz property -> what it checks, in the registry's order (one per property).
CHECK_PROPERTIES: dict[str, str] = {}


def _index(checks: tuple[CheckEntry, ...]) -> None:
    """Fill the tables every tool reads from `checks`, in place (so that a module that
    imported a table sees an entry `extended` adds)."""
    global CHECKS, OUTPUT_CHECKS
    _refuse_clashes(checks)
    CHECKS = checks
    OUTPUT_CHECKS = tuple(e for e in checks if e.on_output is not None)
    tables: list[tuple[Any, Any]] = [
        (ORDER, {entry.name: index for index, entry in enumerate(checks)}),
        (BY_NAME, {entry.name: entry for entry in checks}),
        (INVARIANT_RULES, {rule for e in checks if e.invariant for rule in e.rules}),
        (CHECK_PROPERTIES, {e.prop: e.says for e in checks if e.prop and e.says}),
    ]
    for table, content in tables:
        table.clear()
        table.update(content)


def _refuse_clashes(checks: tuple[CheckEntry, ...]) -> None:
    """Two checks of one name would share their failures' signatures and their place in
    the order: a mistake in a new entry, refused when the registry is built."""
    names = [entry.name for entry in checks]
    twice = sorted({str(name) for name in names if names.count(name) > 1})
    if twice:
        raise ValueError(f"two checks in the registry are named {', '.join(map(repr, twice))}"
                         ": each check needs a name of its own")


_index(CHECKS)


@contextmanager
def extended(*entries: CheckEntry) -> Iterator[None]:
    """The registry with `entries` after its own while the block runs: how a new check
    is tried without editing this file (the recipe's test adds a throwaway check)."""
    before = CHECKS
    _index(before + entries)
    try:
        yield
    finally:
        _index(before)


@contextmanager
def without(*names: str) -> Iterator[None]:
    """The registry without the checks `names` while the block runs (a test's view of
    what the conductor does when no check reads a kind of run)."""
    before = CHECKS
    _index(tuple(entry for entry in before if entry.name not in names))
    try:
        yield
    finally:
        _index(before)


def needed_kinds() -> frozenset[RunKind]:
    """The kinds of run some check reads: the conductor makes no run of another kind."""
    return frozenset(kind for entry in CHECKS for kind in entry.needs)


def stream_checks(subject: Subject) -> tuple[tuple[CheckEntry, tuple[PlannedRun, ...]], ...]:
    """The checks with stream runs of their own that judge `subject`, each with its runs."""
    found = []
    for entry in CHECKS:
        if entry.runs is not None and entry.on_runs is not None and entry.applies(subject):
            planned = entry.runs(subject)
            if planned:
                found.append((entry, planned))
    return tuple(found)


def output_checks(subject: Subject) -> tuple[CheckEntry, ...]:
    """The output checks that judge `subject`'s outputs, in order."""
    return tuple(entry for entry in OUTPUT_CHECKS if entry.applies(subject))


def check_order(check: str) -> int:
    """A check's place in the order; after every check for a name not in the registry."""
    return ORDER.get(check, len(CHECKS))
