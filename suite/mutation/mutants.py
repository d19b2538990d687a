"""The mutants of a Python package: every site cosmic-ray's operators can change, a seeded
uniform sample of them, and each sampled mutant's code and stable id.

cosmic-ray (https://github.com/sixty-north/cosmic-ray) names the operators and finds
their sites the way its own `cosmic-ray init` does: every operator that takes no
arguments, walked over the parso tree of each file, each site numbered by its
occurrence. Its `mutate_code` makes one mutant's source. (The two operators that need
arguments, VariableReplacer and VariableInserter, model one named cause and effect and
are left out, as `cosmic-ray init` leaves them out without a configuration.)

Sites inside annotations are not mutants of behaviour when the module starts with
`from __future__ import annotations`: its annotations are strings that are never
evaluated, so `str | None` -> `str & None` changes nothing any input can see. They are
left out of the population (and counted), instead of being listed one by one as
equivalent.

A mutant's id must outlive edits elsewhere in its file, because the equivalent mutants
are recorded by it: it is the file, the enclosing function, the operator and a digest of
the lines the mutation changes (before and after), numbered when the same change occurs
more than once in one function. A line number or an occurrence index would move with
every edit above it.
"""

from __future__ import annotations

import difflib
import hashlib
import random
import shutil
import warnings
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import parso
import parso.tree
from parso.python.tree import ClassOrFunc

try:  # the `mutation` extra
    import cosmic_ray.plugins
    from cosmic_ray.ast import ast_nodes, get_ast
    from cosmic_ray.mutating import mutate_code
except ImportError:  # pragma: no cover - exercised by the command's message
    cosmic_ray = None

FUTURE_ANNOTATIONS = "from __future__ import annotations"


class MutationToolMissing(Exception):
    """cosmic-ray is not installed (`pip install 'scrubcheck[mutation]'`)."""


def require_tool() -> None:
    if cosmic_ray is None:
        raise MutationToolMissing(
            "mutation testing needs cosmic-ray: pip install 'scrubcheck[mutation]'")


def operator_names() -> list[str]:
    """cosmic-ray's operators that take no arguments, in a fixed order."""
    require_tool()
    return sorted(name for name in cosmic_ray.plugins.operator_names()
                  if not cosmic_ray.plugins.get_operator(name).arguments())


def short_operator(name: str) -> str:
    """`core/ReplaceComparisonOperator_Lt_LtE` -> `ReplaceComparisonOperator_Lt_LtE`."""
    return name.rpartition("/")[2]


@dataclass(frozen=True)
class Site:
    """One place one operator can change: cosmic-ray's (operator, occurrence) in a file."""

    file: str  # the file's name inside the package
    operator: str
    occurrence: int
    line: int
    column: int
    scope: str  # enclosing class and function names, dotted; "<module>" at the top


@dataclass
class SourceFile:
    """One module of the package under test, parsed once."""

    name: str
    code: str

    @cached_property
    def tree(self) -> parso.tree.BaseNode:
        return get_ast(self.code)

    @cached_property
    def annotation_spans(self) -> list[tuple[tuple[int, int], tuple[int, int]]]:
        """Where the never-evaluated annotations are (none without the future import)."""
        if FUTURE_ANNOTATIONS not in self.code:
            return []
        return [(node.start_pos, node.end_pos) for node in _annotations(self.tree)]

    def in_annotation(self, position: tuple[int, int]) -> bool:
        return any(start <= position < end for start, end in self.annotation_spans)

    def sites(self, operators: Iterable[str]) -> tuple[list[Site], int]:
        """Every site of every operator, and how many were left out as annotations."""
        sites, skipped = [], 0
        nodes = list(ast_nodes(self.tree))
        for name in operators:
            operator = cosmic_ray.plugins.get_operator(name)()
            occurrence = 0
            for node in nodes:
                for start, _end in operator.mutation_positions(node):
                    if self.in_annotation(start):
                        skipped += 1
                    else:
                        sites.append(Site(self.name, name, occurrence, start[0], start[1],
                                          _scope(node)))
                    occurrence += 1
        return sites, skipped

    def lines(self) -> list[str]:
        return self.code.splitlines()


def _annotations(tree: parso.tree.BaseNode) -> Iterator[parso.tree.NodeOrLeaf]:
    for node in ast_nodes(tree):
        if node.type == "param" and node.annotation is not None:
            yield node.annotation
        elif node.type == "funcdef" and node.annotation is not None:
            yield node.annotation
        elif node.type == "annassign":
            yield node.children[1]


def _scope(node: parso.tree.NodeOrLeaf) -> str:
    names = []
    parent = node.parent
    while parent is not None:
        if isinstance(parent, ClassOrFunc) and parent.type in ("funcdef", "classdef"):
            names.append(parent.name.value)
        parent = parent.parent
    return ".".join(reversed(names)) or "<module>"


@dataclass(frozen=True)
class Mutant:
    """A sampled site made concrete: its code, the lines it changes and its stable id."""

    site: Site
    code: str  # the whole mutated file
    original: tuple[str, ...]  # the changed lines, stripped, before ...
    mutated: tuple[str, ...]  # ... and after
    ordinal: int = 0  # numbers the same change in the same scope (0 for the first)
    diff: str = field(default="", compare=False)

    @property
    def id(self) -> str:
        return mutant_id(self.site.file, self.site.scope, self.site.operator, self.original,
                         self.mutated, self.ordinal)

    def problem(self, source: str) -> str | None:
        """Why this is no mutant of behaviour, or None: it does not compile, or its code
        is the source's."""
        if self.code == source:
            return "the mutated source reads the same"
        try:
            with warnings.catch_warnings():  # `x is not 0` warns; the run will judge it
                warnings.simplefilter("ignore", SyntaxWarning)
                compile(self.code, self.site.file, "exec")
        except SyntaxError as exc:
            return f"does not compile: {exc.msg} (line {exc.lineno})"
        return None

    @property
    def change(self) -> str:
        """`original -> mutated`, one line each side."""
        return f"{' ⏎ '.join(self.original)} → {' ⏎ '.join(self.mutated)}"


def mutant_id(file: str, scope: str, operator: str, original: Iterable[str],
              mutated: Iterable[str], ordinal: int = 0) -> str:
    digest = hashlib.sha256("\0".join(
        [file, scope, operator, "\n".join(original), "\n".join(mutated), str(ordinal)]
    ).encode("utf-8")).hexdigest()[:8]
    return f"{file}:{scope}:{short_operator(operator)}:{digest}"


@dataclass
class Sample:
    mutants: list[Mutant]
    passed_over: list[tuple[Site, str]]  # drawn, but not a mutant of behaviour: why


@dataclass
class Population:
    """Every site of a package's files, in a fixed order (file, operator, occurrence)."""

    package: Path
    files: dict[str, SourceFile]
    sites: list[Site]
    annotation_sites: dict[str, int]  # per file: sites left out as annotations

    def per_file(self) -> dict[str, int]:
        counts = dict.fromkeys(self.files, 0)
        for site in self.sites:
            counts[site.file] += 1
        return counts

    def sample(self, size: int, seed: int) -> Sample:
        """`size` mutants drawn uniformly without replacement from the sites whose mutant
        is a program that differs from the source: the sites are taken in a seeded
        random order and a site whose mutant does not compile (cosmic-ray replaces the
        bare `*` of a parameter list, for one) or reads the same as the source is passed
        over and counted. The same seed and sources give the same sample, in population
        order."""
        order = list(range(len(self.sites)))
        random.Random(seed).shuffle(order)
        taken: list[tuple[int, Mutant]] = []
        passed_over: list[tuple[Site, str]] = []
        for index in order:
            if len(taken) == size:
                break
            site = self.sites[index]
            mutant = self.mutant(site)
            problem = mutant.problem(self.files[site.file].code)
            if problem:
                passed_over.append((site, problem))
            else:
                taken.append((index, mutant))
        return Sample([m for _, m in sorted(taken, key=lambda t: t[0])], passed_over)

    def mutant(self, site: Site) -> Mutant:
        """The concrete mutant of one site (about 0.1 s for a large file)."""
        source = self.files[site.file]
        operator = cosmic_ray.plugins.get_operator(site.operator)()
        code = mutate_code(source.code, operator, site.occurrence)
        if code is None:
            raise ValueError(f"{site.file}: {site.operator} has no occurrence {site.occurrence}")
        original, mutated = changed_lines(source.code, code)
        ordinal = sum(1 for other in self.same_change_before(site, original, mutated))
        diff = "".join(difflib.unified_diff(
            source.code.splitlines(keepends=True), code.splitlines(keepends=True),
            fromfile=f"a/{site.file}", tofile=f"b/{site.file}", n=2))
        return Mutant(site, code, original, mutated, ordinal, diff)

    def same_change_before(self, site: Site, original: tuple[str, ...],
                           mutated: tuple[str, ...]) -> Iterator[Site]:
        """Earlier sites of the same operator and scope whose lines read the same and that
        change them the same way (so that each gets its own id)."""
        source = self.files[site.file]
        lines = source.lines()
        first = original[0] if original else ""
        for other in self.sites:
            if other == site:
                return
            if (other.file, other.operator, other.scope) != (site.file, site.operator,
                                                              site.scope):
                continue
            if lines[other.line - 1].strip() != first:
                continue
            other_code = mutate_code(source.code, cosmic_ray.plugins.get_operator(
                other.operator)(), other.occurrence)
            if other_code is not None and changed_lines(source.code, other_code) == (
                    original, mutated):
                yield other

    def chosen(self, mutant_ids: list[str]) -> list[Mutant]:
        """The mutants with these ids, in the order asked for; LookupError names any id
        the current sources do not have."""
        found = self.find(mutant_ids)
        missing = [i for i in mutant_ids if i not in found]
        if missing:
            raise LookupError(f"no such mutant in the current sources: {', '.join(missing)}")
        return [found[i] for i in mutant_ids]

    def find(self, mutant_ids: Iterable[str]) -> dict[str, Mutant]:
        """The mutants with these ids, searched only where an id can be (file, scope and
        operator are spelled out in it)."""
        wanted = set(mutant_ids)
        found: dict[str, Mutant] = {}
        keys = {tuple(i.split(":")[:3]) for i in wanted}
        for site in self.sites:
            if (site.file, site.scope, short_operator(site.operator)) in keys:
                mutant = self.mutant(site)
                if mutant.id in wanted:
                    found[mutant.id] = mutant
        return found


@contextmanager
def package_copy(package: Path, changed: dict[str, str], target: Path) -> Iterator[Path]:
    """`package` copied to `target` with the `changed` files (name -> code) written over,
    removed again on exit: a mutant as a package of its own, imported by `target`'s name
    from its parent folder, beside the reference and every other mutant."""
    shutil.copytree(package, target, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    try:
        for file, code in changed.items():
            (target / file).write_text(code, encoding="utf-8")
        yield target
    finally:
        shutil.rmtree(target, ignore_errors=True)


def changed_lines(before: str, after: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The lines a mutation changed, stripped of indentation, before and after."""
    a, b = before.splitlines(), after.splitlines()
    old: list[str] = []
    new: list[str] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag != "equal":
            old += [line.strip() for line in a[i1:i2]]
            new += [line.strip() for line in b[j1:j2]]
    return tuple(old), tuple(new)


def package_files(package: Path, names: Iterable[str] | None = None) -> dict[str, SourceFile]:
    """The package's modules to mutate: `names`, or every module but `__init__.py` (which
    only re-exports and wraps the scrubber for batch callers the corpus run does not use)."""
    if names:
        chosen = list(names)
        missing = [n for n in chosen if not (package / n).is_file()]
        if missing:
            available = ", ".join(sorted(p.name for p in package.glob("*.py")))
            raise FileNotFoundError(f"not in {package}: {', '.join(missing)} "
                                    f"(available: {available})")
    else:
        chosen = sorted(p.name for p in package.glob("*.py") if p.name != "__init__.py")
    return {n: SourceFile(n, (package / n).read_text(encoding="utf-8")) for n in chosen}


def population(package: Path, names: Iterable[str] | None = None) -> Population:
    require_tool()
    files = package_files(package, names)
    operators = operator_names()
    sites: list[Site] = []
    skipped: dict[str, int] = {}
    for name, source in files.items():
        found, skipped[name] = source.sites(operators)
        sites += found
    return Population(package, files, sites, skipped)
