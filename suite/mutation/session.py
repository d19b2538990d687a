"""One mutation session: sample the reference's mutants, judge each by the corpus run,
sort them into killed, survived and equivalent.

The sample is drawn before anything is known about the mutants, and the equivalents
list is consulted only afterwards, so that it can never steer which mutants are tried.
"""

from __future__ import annotations

import importlib
import inspect
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from scrubcheck.adapters.resolve import registered_names
from scrubcheck.mutation.equivalents import Equivalent
from scrubcheck.mutation.mutants import Mutant, Population, Site
from scrubcheck.mutation.oracle import MutantFate, Oracle

REFERENCE = "reference"

#: categories of a judged mutant, in report order
KILLED, SURVIVED, EQUIVALENT, CONTRADICTED = (
    "killed", "survived", "equivalent", "listed equivalent but killed")


def reference_package() -> tuple[Path, str]:
    """The folder of the registered reference scrubber's package, and its class name."""
    target = registered_names().get(REFERENCE, "scrubcheck.scrubbers.reference:ReferenceScrubber")
    module_name, _, attr = target.partition(":")
    module = importlib.import_module(module_name)
    source = inspect.getsourcefile(module)
    if source is None or Path(source).name != "__init__.py":
        raise ValueError(f"{module_name} is not a package with source files")
    return Path(source).parent, attr


@dataclass
class Judged:
    mutant: Mutant
    verdict: MutantFate
    equivalent: Equivalent | None = None

    @property
    def category(self) -> str:
        if self.verdict.killed:
            return CONTRADICTED if self.equivalent else KILLED
        return EQUIVALENT if self.equivalent else SURVIVED


@dataclass
class Session:
    population: Population
    seed: int
    oracle: Oracle
    passed_over: list[tuple[Site, str]] = field(default_factory=list)
    baseline: MutantFate | None = None
    judged: list[Judged] = field(default_factory=list)
    stale: list[Equivalent] = field(default_factory=list)  # listed, not in the source now
    wall_s: float = 0.0

    def count(self, *categories: str) -> int:
        return sum(1 for j in self.judged if j.category in categories)

    @property
    def non_equivalent(self) -> int:
        return self.count(KILLED, SURVIVED, CONTRADICTED)

    @property
    def kill_rate(self) -> float | None:
        """Killed over non-equivalent mutants (None when there is none)."""
        total = self.non_equivalent
        return self.count(KILLED, CONTRADICTED) / total if total else None


Say = Callable[[str], None]


def run_session(population: Population, mutants: list[Mutant], oracle: Oracle, *,
                seed: int, equivalents: dict[str, Equivalent],
                attr: str, passed_over: list[tuple[Site, str]] | None = None,
                say: Say = print) -> Session:
    """Judge each mutant after a baseline run of the unmutated reference."""
    session = Session(population, seed, oracle, list(passed_over or ()))
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="scrubcheck-mutants-") as workdir:
        say(f"baseline: the unmutated reference against {len(oracle.scenarios)} scenarios ...")
        session.baseline = oracle.baseline(population.package, attr, Path(workdir))
        say(f"baseline: passed in {session.baseline.seconds:.1f} s")
        for number, mutant in enumerate(mutants, 1):
            verdict = oracle.judge(population.package, {mutant.site.file: mutant.code}, attr,
                                   Path(workdir), name=f"scrubcheck_mutant_{number}")
            oracle.note_kill(verdict)
            judged = Judged(mutant, verdict, equivalents.get(mutant.id))
            session.judged.append(judged)
            say(progress_line(number, len(mutants), judged))
    judged_ids = {j.mutant.id for j in session.judged}
    unseen = [e for e in equivalents.values() if e.id not in judged_ids]
    if unseen:
        present = population.find(e.id for e in unseen)
        session.stale = [e for e in unseen if e.id not in present]
    session.wall_s = round(time.monotonic() - started, 1)
    return session


def progress_line(number: int, total: int, judged: Judged) -> str:
    m, v = judged.mutant, judged.verdict
    where = f"{m.site.file}:{m.site.line} {m.site.operator.rpartition('/')[2]}"
    how = f" ({v.how}{': ' + v.scenario if v.scenario else ''})" if v.killed else ""
    return (f"[{number}/{total}] {where}: {judged.category}{how}, {v.scenarios_run} scenarios, "
            f"{v.seconds:.1f} s")
