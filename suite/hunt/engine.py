"""`hunt`: run the properties with Hypothesis for a time budget and keep each distinct failure.

The budget is spent in batches. Each batch is one Hypothesis run (seeded from
`--seed` and the batch number) over generated cases; a failure's class names
its (property, rule), so Hypothesis shrinks every distinct failure on its own.
A failure found once is "known" from then on and no longer fails, so later
batches look for the others. The scrubber runs in a sandbox child process
(`scrubcheck.hunt.sandbox`), so a case that overruns `timeout` wall-clock
seconds is a `timeout` finding and one that takes the process down a `crash`
finding, each with its case, and the hunt goes on. Timeouts are not shrunk
(each try would cost the whole time limit): the case is kept as found. The
linear-time property is a ratio measured once per hunt (SPEC R-ROBUST-2), in
the sandbox too, not a Hypothesis property.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from hypothesis import HealthCheck, Phase, Verbosity, given, seed, settings
from hypothesis import strategies as st

from scrubcheck.adapters import Adapter
from scrubcheck.checks.linear import LinearMeasurement
from scrubcheck.claims import claimed_class
from scrubcheck.corpus.shard import Shard
from scrubcheck.generate import DrawChooser, Profile
from scrubcheck.hunt.case import Case, build_case, search_key
from scrubcheck.hunt.database import open_database
from scrubcheck.hunt.finding import Finding
from scrubcheck.hunt.sandbox import Sandbox, load_scrubber
from scrubcheck.hunt.violation import PropertyFailure, Violation, property_failure
from scrubcheck.model import GENERIC, Context

#: Past the deadline, a batch that is shrinking gets this long before it is cut short
#: (the smallest failing case seen so far is kept instead of Hypothesis' final one).
SHRINK_GRACE_S = 20.0


@dataclass
class HuntSettings:
    seconds: float = 60.0
    seed: int | None = None  # None: a random seed, printed so the run can be repeated
    database: str | None = None  # None: ~/.cache/scrubcheck/hypothesis; "memory"; a directory
    against: str | None = None
    soup: bool = True
    max_items: int = 6
    timeout: float = 10.0  # wall-clock seconds one case may take: past it, a `timeout`
    memory_limit: int | None = None  # bytes the scrubber's process may allocate
    linear: bool = True
    shrink: bool = True  # False: report failures as first seen (detection only, faster)
    examples: int | None = None  # stop after this many cases, in fixed batches: the same
    #                              cases on every machine (for CI), whatever its speed
    stop: Callable[[Finding], bool] | None = None  # end the hunt early when this says so
    #: one of N hunts that split the search (`--shard K/N`): this one runs the batches
    #: K-1, K-1+N, K-1+2N, ... of the unsharded hunt's seed sequence, and the linear-time
    #: measurement only in shard 1, so N CI jobs search N disjoint seed ranges
    shard: Shard | None = None
    #: the conformance class the cases are drawn within and judged in (SPEC section 12);
    #: None: the class the scrubber claims, else generic
    conformance_class: str | None = None


@dataclass
class HuntResult:
    spec: str
    seed: int
    findings: list[Finding] = field(default_factory=list)
    examples: int = 0
    batches: int = 0
    seconds: float = 0.0
    linear: LinearMeasurement | None = None
    errors: list[str] = field(default_factory=list)  # harness problems, never the scrubber's
    conformance_class: str = GENERIC  # the class the cases were drawn within


class _StopBatch(BaseException):  # noqa: N818 - a control signal, not an error
    """Out of time: ends a Hypothesis run without it counting as a failure."""


def cases(profile: Profile, soup: bool = True) -> st.SearchStrategy[Case]:
    """Hypothesis strategy of hunt cases for a scrubber with `profile`."""

    @st.composite
    def _cases(draw: st.DrawFn) -> Case | None:
        return build_case(DrawChooser(draw), profile, soup=soup)

    return _cases().filter(lambda c: c is not None).map(_present)


def _present(case: Case | None) -> Case:
    """A case the filter let through: never None (map only tells the type checker)."""
    assert case is not None
    return case


class _Hunt:
    def __init__(self, adapter: Adapter, against: Adapter | None, options: HuntSettings,
                 on_finding: Callable[[Finding], None] | None, sandbox: Sandbox) -> None:
        self.adapter = adapter
        self.sandbox = sandbox
        self.against = against
        self.options = options
        self.on_finding = on_finding or (lambda f: None)
        self.base_seed = options.seed if options.seed is not None else random.randrange(2**31)
        judged = claimed_class(adapter.claims, options.conformance_class)
        self.result = HuntResult(adapter.spec, self.base_seed, conformance_class=judged)
        self.known: set[tuple[str, str]] = set()
        self.profile = Profile.of(adapter, *([against] if against else []),
                                  max_items=options.max_items, conformance_class=judged)
        key = search_key(adapter.spec, against.spec if against else None, judged)
        self.database = open_database(key, options.database)
        self.start = time.monotonic()
        self.deadline = self.start + options.seconds
        self.stopped = False
        self.first_seen: dict[tuple[str, str], float] = {}

    def elapsed(self) -> float:
        return time.monotonic() - self.start

    def record(self, violation: Violation, case: Case) -> None:
        if violation.signature in self.known:
            return
        self.known.add(violation.signature)
        now = round(self.elapsed(), 2)
        seen = self.first_seen.get(violation.signature, now)
        finding = Finding(violation, case, "hunt", self.adapter.spec, seen, self.base_seed,
                          self.against.spec if self.against else None, confirmed=now)
        self.result.findings.append(finding)
        self.on_finding(finding)
        if self.options.stop is not None and self.options.stop(finding):
            self.stopped = True

    def global_batch(self) -> int:
        """The number of the next batch in the unsharded hunt's sequence (its seed)."""
        shard = self.options.shard
        if shard is None:
            return self.result.batches
        return self.result.batches * shard.count + shard.index - 1

    def run(self) -> HuntResult:
        shard = self.options.shard
        if self.options.linear and (shard is None or shard.owns_run_checks):
            self.measure_linearity()
        size = 50 if self.options.examples is None else 100
        while not self.stopped and time.monotonic() < self.deadline:
            if self.options.examples is not None:
                left = self.options.examples - self.result.examples
                if shard is not None:  # this shard's batches of 100 of the unsharded cases
                    left = self.options.examples - self.global_batch() * 100
                if left <= 0:
                    break
                size = min(size, left)
            began = time.monotonic()
            examples = self.batch(size)
            spent = time.monotonic() - began
            self.result.batches += 1
            if examples and spent > 0 and self.options.examples is None:
                size = max(10, min(2000, int(examples * 5.0 / spent)))  # batches of about 5 s
        self.result.seconds = round(self.elapsed(), 2)
        return self.result

    def measure_linearity(self) -> None:
        """R-ROBUST-2, measured in the sandbox."""
        self.result.linear, violation = self.sandbox.linear(self.options.timeout)
        if violation is not None:
            self.record(violation, Case(Context(), (), (), 0))

    def batch(self, size: int) -> int:
        """One Hypothesis run; returns how many cases it tried."""
        count = 0
        failing = False
        smallest: dict[tuple[str, str], tuple[int, Violation, Case]] = {}
        known = frozenset(self.known)
        options = self.options

        @settings(max_examples=size, deadline=None, database=self.database,
                  derandomize=False, report_multiple_bugs=True, verbosity=Verbosity.quiet,
                  suppress_health_check=list(HealthCheck),
                  phases=(Phase.explicit, Phase.reuse, Phase.generate)
                  + ((Phase.shrink,) if options.shrink else ()))
        @given(cases(self.profile, options.soup))
        def properties(case: Case) -> None:
            nonlocal count, failing
            now = time.monotonic()
            if now > self.deadline + (SHRINK_GRACE_S if failing else 0.0):
                raise _StopBatch
            count += 1
            timeout = options.timeout
            if ("timeout", "R-ROBUST-1") in self.known:  # found already: waste less on the rest
                timeout = min(timeout, 1.0)
            violation = self.sandbox.check(case, known, timeout)
            if violation is None:
                return
            self.first_seen.setdefault(violation.signature, round(self.elapsed(), 2))
            if violation.check == "timeout":  # never shrunk: each try costs the time limit
                self.record(violation, case)
                return
            failing = True
            size_now = len(case.text)
            best = smallest.get(violation.signature)
            if best is None or size_now < best[0]:
                smallest[violation.signature] = (size_now, violation, case)
            error = property_failure(violation)
            error.case = case
            raise error

        run = seed(self.base_seed * 1_000_003 + self.global_batch())(properties)
        try:
            run()
        except _StopBatch:
            pass
        except KeyboardInterrupt:
            raise
        except BaseException as exc:  # noqa: BLE001 - sorted out below
            failures = list(_property_failures(exc))
            for failure in failures:
                assert isinstance(failure.case, Case)
                smallest.pop(failure.violation.signature, None)
                self.record(failure.violation, failure.case)
            if not failures:
                self.result.errors.append(f"{type(exc).__name__}: {exc}")
        for _, violation, case in sorted(smallest.values(), key=lambda t: t[0]):
            self.record(violation, case)  # cut short while shrinking: the smallest seen
        self.result.examples += count
        return count


def _property_failures(exc: BaseException) -> Iterator[PropertyFailure]:
    """Every PropertyFailure in `exc`, looking inside exception groups (Hypothesis
    reports several distinct failures, or a flaky one, as a group)."""
    if isinstance(exc, PropertyFailure):
        yield exc
    for inner in getattr(exc, "exceptions", ()):
        yield from _property_failures(inner)


def hunt(spec: str | Adapter, options: HuntSettings | None = None,
         on_finding: Callable[[Finding], None] | None = None) -> HuntResult:
    """Hunt `spec` (a scrubber spec or a loaded Adapter) for `options.seconds` seconds."""
    options = options or HuntSettings()
    adapter = spec if isinstance(spec, Adapter) else \
        load_scrubber(spec, options.timeout, options.memory_limit)
    against = load_scrubber(options.against, options.timeout, options.memory_limit) \
        if options.against else None
    with Sandbox(adapter, against, options.memory_limit) as sandbox:
        return _Hunt(adapter, against, options, on_finding, sandbox).run()
