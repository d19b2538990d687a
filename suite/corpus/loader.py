"""Loading the corpus: every file, every scenario, every error with its exact line.

A corpus with one broken file or scenario is still useful (the rest runs), so
problems are collected as CorpusError values instead of raised. Only a corpus
that cannot be found at all (a mistyped path, a folder without corpus files)
raises, as CorpusUnavailable: running "all 0 scenarios" would pass silently.

Reading is bounded: a file over the size limit is refused before it is read
(the shipped files are at most ~25 KB; a 1 MiB file of small scenarios takes
about 6 s and 110 MB to load), and yamlsource refuses anchors and aliases.
"""

from __future__ import annotations

import difflib
import importlib.util
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from scrubcheck.corpus import families
from scrubcheck.corpus.scenario_builder import scenario_from
from scrubcheck.corpus.schema import validate_item
from scrubcheck.corpus.semantics import check_scenario
from scrubcheck.model import Scenario
from scrubcheck.schema_words import Problem, describe_type
from scrubcheck.yamlsource import (
    DEFAULT_MAX_BYTES,
    MAX_BYTES_ENV,
    LineDict,
    LineList,
    YamlSyntaxError,
    line_of,
    parse_yaml,
    read_text_within,
)

CORPUS_SUFFIXES = (".yaml", ".yml")


class CorpusUnavailable(FileNotFoundError):
    """No corpus to load: a path that does not exist, a folder without corpus files, or
    an unusable size limit.

    A FileNotFoundError, so that every entry point that already turns a missing path into
    a usage error (exit 2) treats an empty folder the same way.
    """


@dataclass(frozen=True)
class CorpusError:
    """One problem, located: `file:line [id]: message`."""

    file: str
    line: int
    scenario_id: str | None
    message: str

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}"
        if self.scenario_id is not None:
            where += f" [{self.scenario_id}]"
        return f"{where}: {self.message}"


@dataclass
class Corpus:
    """The scenarios that loaded cleanly and the errors of everything that did not."""

    scenarios: list[Scenario] = field(default_factory=list)
    errors: list[CorpusError] = field(default_factory=list)
    files: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.errors

    def by_id(self) -> dict[str, Scenario]:
        return {s.id: s for s in self.scenarios}


def default_corpus_dir() -> Path:
    """The shipped corpus: the `scrubcheck.corpora` package data, else the checkout's corpora/."""
    for candidate in _package_corpus_dirs():
        if any(candidate.glob("*.yaml")):
            return candidate
    return Path(__file__).resolve().parents[2] / "corpora"


def _package_corpus_dirs() -> list[Path]:
    try:
        root = resources.files("scrubcheck.corpora")
    except (ModuleNotFoundError, TypeError):
        return []
    if isinstance(root, Path):
        return [root]
    spec = importlib.util.find_spec("scrubcheck.corpora")  # a namespace package
    locations = spec.submodule_search_locations if spec else None
    return [Path(p) for p in locations or ()]


def max_file_bytes() -> int:
    """The size limit per corpus file: SCRUBCHECK_CORPUS_MAX_BYTES, else 1 MiB."""
    raw = os.environ.get(MAX_BYTES_ENV, "").strip()
    if not raw:
        return DEFAULT_MAX_BYTES
    try:
        value = int(raw)
    except ValueError:
        value = 0
    if value < 1:
        raise CorpusUnavailable(f"{MAX_BYTES_ENV} must be a positive number of bytes, "
                                f"not {raw!r}")
    return value


def corpus_files(paths: Iterable[Path]) -> list[Path]:
    """The YAML files named by `paths` (a directory means its *.yaml and *.yml files,
    sorted).

    Raises CorpusUnavailable for a path that does not exist, a directory holding no
    corpus file, or no path at all.
    """
    files: list[Path] = []
    seen: set[Path] = set()
    for path in paths:
        path = Path(path)
        if path.is_dir():
            found = sorted(p for p in path.iterdir() if p.suffix in CORPUS_SUFFIXES)
            if not found:
                raise CorpusUnavailable(f"no corpus files (*.yaml, *.yml) in directory: {path}")
        elif path.exists():
            found = [path]
        else:
            raise CorpusUnavailable(f"no such corpus file or directory: {path}{_hint(path)}")
        for file in found:
            key = file.resolve()
            if key not in seen:
                seen.add(key)
                files.append(file)
    if not files:
        raise CorpusUnavailable("no corpus path given")
    return files


def _hint(path: Path) -> str:
    """' (did you mean …?)' naming a close sibling of a mistyped path, if there is one."""
    parent = path.parent if path.parent.is_dir() else None
    if parent is None:
        return ""
    close = difflib.get_close_matches(path.name, [p.name for p in parent.iterdir()], n=1)
    return f" (did you mean {parent / close[0]}?)" if close else ""


def load_corpus(paths: list[Path] | None = None) -> Corpus:
    """Load and validate the corpus at `paths` (files or directories; None = the shipped one).

    Raises CorpusUnavailable (see corpus_files); every other problem is a CorpusError.
    """
    corpus = Corpus()
    first_seen: dict[str, Scenario] = {}
    limit = max_file_bytes()
    for file in corpus_files(paths if paths is not None else [default_corpus_dir()]):
        name = _display(file)
        corpus.files.append(name)
        for scenario in _load_file(file, name, limit, corpus.errors):
            earlier = first_seen.get(scenario.id)
            if earlier is not None:
                corpus.errors.append(CorpusError(
                    name, scenario.line, scenario.id,
                    f"duplicate id {scenario.id!r}: first defined at {earlier.file}:{earlier.line}",
                ))
                continue
            first_seen[scenario.id] = scenario
            corpus.scenarios.append(scenario)
    order = {name: i for i, name in enumerate(corpus.files)}
    corpus.errors.sort(key=lambda e: (order.get(e.file, len(order)), e.line))
    return corpus


def _load_file(file: Path, name: str, limit: int,
               errors: list[CorpusError]) -> list[Scenario]:
    try:
        text = read_text_within(file, limit)
    except ValueError as exc:
        errors.append(CorpusError(name, 1, None, str(exc)))
        return []
    except OSError as exc:
        errors.append(CorpusError(name, 1, None, f"cannot read: {exc.strerror or exc}"))
        return []
    try:
        data = parse_yaml(text)
    except YamlSyntaxError as exc:
        errors.append(CorpusError(name, exc.line, None, exc.message))
        return []
    if not isinstance(data, LineList):
        line = getattr(data, "line", 1)
        message = f"top level must be a list of scenarios, not {describe_type(data)}"
        errors.append(CorpusError(name, line, None, message))
        return []
    area = file.stem
    scenarios: list[Scenario] = []
    for index, item in enumerate(data):
        line = data.item_lines[index] if index < len(data.item_lines) else data.line
        scenarios.extend(_load_item(item, area, name, line, errors))
    return scenarios


def _load_item(item: object, area: str, name: str, line: int,
               errors: list[CorpusError]) -> list[Scenario]:
    item_id = item.get("id") if isinstance(item, Mapping) else None
    item_id = item_id if isinstance(item_id, str) else None

    def report(problems: list[Problem], scenario_id: str | None = item_id,
               fixed_line: int | None = None) -> None:
        for p in problems:
            at = fixed_line if fixed_line is not None else line_of(item, p.path, line)
            errors.append(CorpusError(name, at, scenario_id, p.message))

    problems = validate_item(item)
    repeats = [CorpusError(name, again, item_id,
                           f"key {key!r} appears twice (first at line {first})")
               for key, first, again in _repeated_keys(item)]
    errors.extend(repeats)
    report(problems)
    if repeats or problems:
        return []
    assert isinstance(item, Mapping)
    if "family" in item:
        generated, entry_problems = families.expand(item, area, name, line)
        if entry_problems:
            report(entry_problems)
            return []
        good = []
        for scenario in generated:
            found = check_scenario(scenario)
            if found:
                report(found, scenario.id, line)
            else:
                good.append(scenario)
        return good
    scenario = scenario_from(item, area, name, line)
    found = check_scenario(scenario)
    if found:
        report(found)
        return []
    return [scenario]


def _repeated_keys(node: object) -> list[tuple[object, int, int]]:
    """(key, first line, repeated line) for every key given twice in a mapping, at any depth."""
    found: list[tuple[object, int, int]] = []
    if isinstance(node, LineDict):
        found.extend((key, node.key_lines.get(key, node.line), again)
                     for key, again in node.repeated_keys)
        for value in node.values():
            found.extend(_repeated_keys(value))
    elif isinstance(node, list):
        for value in node:
            found.extend(_repeated_keys(value))
    return found


def _display(path: Path) -> str:
    """A path relative to the working directory when it lies below it (shorter messages)."""
    try:
        rel = Path(os.path.relpath(path.resolve(), Path.cwd().resolve()))
    except ValueError:
        return str(path)
    return str(rel) if not str(rel).startswith("..") else str(path)
