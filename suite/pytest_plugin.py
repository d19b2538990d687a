"""pytest plugin: `pytest --scrubber mypkg:MyScrubber` runs the scrubcheck corpus as tests.

Every scenario becomes one test, `scrubcheck::<area>::<scenario-id>`, that runs
the scenario under every chunking and fails with the same text as the
Markdown report (smallest failing chunking, expected vs got, replay command).

This module is loaded by every pytest run on a machine where scrubcheck is
installed, so it imports nothing beyond pytest and the standard library until
`--scrubber` is given: the runner, the corpus loader, yaml and jsonschema are
imported inside the functions that need them.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

ROOT_NAME = "scrubcheck"


class ScrubcheckWarning(pytest.PytestWarning):
    """Stale entries in the expected-failures file (unknown ids, listed but passing)."""


class ScenarioFailed(Exception):
    """A scenario failed at the chosen level; the message is the report text."""


class CollectionProblem(Exception):
    """The corpus or the scrubber could not be loaded; the message says where."""


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("scrubcheck", "scrubcheck: reasoning-scrubber conformance")
    group.addoption("--scrubber", metavar="SPEC", default=None,
                    help="run the scrubcheck corpus against this scrubber "
                         "(module:attr, path.py:attr or a registered name)")
    group.addoption("--scrubcheck-corpus", metavar="PATH", action="append", default=None,
                    help="corpus file or directory (repeatable; default: the shipped corpus)")
    group.addoption("--scrubcheck-area", metavar="AREA", action="append", default=None,
                    help="only scenarios of this area (repeatable, globs allowed)")
    group.addoption("--scrubcheck-rule", metavar="RULE", action="append", default=None,
                    help="only scenarios naming this SPEC rule (repeatable, e.g. 'R-CODE-*')")
    group.addoption("--scrubcheck-level", choices=("must", "should"), default="must",
                    help="fail on MUST violations only (default) or on SHOULD ones too")
    group.addoption("--scrubcheck-seed", metavar="N", type=int, default=None,
                    help="seed of the random chunkings (default: the runner's)")
    group.addoption("--scrubcheck-xfail", metavar="FILE", default=None,
                    help="expected failures: one scenario id per line, # comments")


def _active(config: pytest.Config) -> bool:
    return bool(config.getoption("scrubber", default=None))


@dataclass
class _State:
    """Per-session state, built at collection once --scrubber is known."""

    adapter: Any
    settings: Any
    level: str
    xfail_ids: frozenset[str] = frozenset()
    xfail_file: str = ""
    listed_but_passing: list[str] = field(default_factory=list)


_STATE = pytest.StashKey[_State]()


def pytest_report_header(config: pytest.Config) -> list[str] | None:
    if not _active(config):
        return None
    corpus = ", ".join(config.getoption("scrubcheck_corpus") or ["shipped corpus"])
    seed = config.getoption("scrubcheck_seed")
    return [f"scrubcheck: scrubber {config.getoption('scrubber')}, corpus {corpus}, "
            f"level {config.getoption('scrubcheck_level')}"
            + (f", seed {seed}" if seed is not None else "")]


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(collector: pytest.Collector):
    """Add the corpus to the session's top-level collectors when --scrubber is given,
    so scenarios are collected, counted, selected (-k) and reported like any test."""
    report = yield
    if isinstance(collector, pytest.Session) and _active(collector.config) and report.passed:
        report.result.append(Corpus.from_parent(collector, name=ROOT_NAME, nodeid=ROOT_NAME))
    return report


def read_xfail_file(path: Path) -> list[str]:
    """Scenario ids of an expected-failures file: one per line, `#` starts a comment,
    an `area::id` test id is accepted too."""
    ids = []
    for line in path.read_text(encoding="utf-8").splitlines():
        entry = line.split("#", 1)[0].strip()
        if entry:
            ids.append(entry.rsplit("::", 1)[-1])
    return ids


class Corpus(pytest.Collector):
    """The whole corpus: loads it, the scrubber and the settings, yields one
    collector per area."""

    def collect(self):
        from scrubcheck.corpus import load_corpus, select

        config = self.config
        paths = config.getoption("scrubcheck_corpus")
        try:
            corpus = load_corpus([Path(p) for p in paths] if paths else None)
        except (FileNotFoundError, OSError) as exc:
            raise CollectionProblem(f"cannot load the scrubcheck corpus: {exc}") from exc
        if corpus.errors:
            raise CollectionProblem(
                f"{len(corpus.errors)} scrubcheck corpus error(s):\n"
                + "\n".join(str(e) for e in corpus.errors))
        scenarios = select(corpus.scenarios, areas=config.getoption("scrubcheck_area"),
                           rules=config.getoption("scrubcheck_rule"))
        state = self._state(paths or [])
        state.xfail_ids, state.xfail_file = self._xfail({s.id for s in corpus.scenarios})
        config.stash[_STATE] = state
        by_area: dict[str, list] = {}
        for scenario in scenarios:
            by_area.setdefault(scenario.area, []).append(scenario)
        for area, members in by_area.items():
            yield Area.from_parent(self, name=area, scenarios=members)

    def _state(self, corpus_paths: list[str]) -> _State:
        from scrubcheck.adapters import load_adapter
        from scrubcheck.runner import RunSettings

        config = self.config
        spec = config.getoption("scrubber")
        try:
            adapter = load_adapter(spec)
        except Exception as exc:  # any import or attribute error of the user's code
            raise CollectionProblem(f"cannot load scrubber {spec!r}: "
                                    f"{type(exc).__name__}: {exc}") from exc
        level = config.getoption("scrubcheck_level")
        options: dict[str, Any] = {"level": level, "corpus_paths": tuple(corpus_paths)}
        seed = config.getoption("scrubcheck_seed")
        if seed is not None:
            options["seed"] = seed
        return _State(adapter=adapter, settings=RunSettings(**options), level=level)

    def _xfail(self, known: set[str]) -> tuple[frozenset[str], str]:
        name = self.config.getoption("scrubcheck_xfail")
        if not name:
            return frozenset(), ""
        try:
            ids = read_xfail_file(Path(name))
        except OSError as exc:
            raise CollectionProblem(f"cannot read the xfail file {name}: {exc}") from exc
        unknown = [i for i in dict.fromkeys(ids) if i not in known]
        if unknown:
            warnings.warn(ScrubcheckWarning(
                f"{name}: {len(unknown)} stale id(s) not in the corpus: {', '.join(unknown)}"),
                stacklevel=1)
        return frozenset(ids), name

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, CollectionProblem):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style)


class Area(pytest.Collector):
    """One corpus area: its scenarios, in corpus order."""

    def __init__(self, *, scenarios: list, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.scenarios = scenarios

    def collect(self):
        state = self.config.stash[_STATE]
        for scenario in self.scenarios:
            item = ScenarioItem.from_parent(self, name=scenario.id, scenario=scenario)
            if scenario.id in state.xfail_ids:
                item.add_marker(pytest.mark.xfail(
                    reason=f"listed in {state.xfail_file}", strict=False))
            yield item


class ScenarioItem(pytest.Item):
    """One scenario run with `run_scenario`, judged at the chosen level."""

    def __init__(self, *, scenario: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.scenario = scenario
        self.extra_keyword_matches.update(scenario.rules)

    def runtest(self) -> None:
        from scrubcheck.reports.scenario import scenario_text
        from scrubcheck.results import Outcome
        from scrubcheck.runner import run_scenario

        state = self.config.stash[_STATE]
        result = run_scenario(state.adapter, self.scenario, state.settings)
        self.user_properties.append(("scrubcheck_outcome", result.outcome.value))
        if result.outcome in (Outcome.UNSUPPORTED, Outcome.SKIPPED):
            pytest.skip(f"{result.outcome.value}: {result.reason or 'no reason given'}")
        if result.fails_at(state.level):
            raise ScenarioFailed(scenario_text(result))
        if result.outcome is Outcome.FAIL:  # SHOULD failures while judging MUST only
            self.add_report_section("call", "scrubcheck SHOULD failures", scenario_text(result))
        if self.scenario.id in state.xfail_ids:
            state.listed_but_passing.append(self.scenario.id)

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, ScenarioFailed):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style)

    def reportinfo(self):
        """The scenario's YAML file and line when it lies in the project, so editors
        can jump to it; a short stand-in path for the installed corpus."""
        file = Path(self.scenario.file)
        try:
            inside = file.exists() and file.resolve().is_relative_to(self.config.rootpath)
        except OSError:
            inside = False
        domain = f"{self.scenario.area}::{self.scenario.id}"
        if inside:
            return file, max(self.scenario.line - 1, 0), domain
        return Path(self.config.rootpath, ROOT_NAME, self.scenario.area), None, domain


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    """Point a skipped scenario's report at its YAML line, not at this plugin."""
    report = yield
    if isinstance(item, ScenarioItem) and report.skipped and isinstance(report.longrepr, tuple):
        message = report.longrepr[2]
        report.longrepr = (item.scenario.file, item.scenario.line, message)
    return report


def pytest_sessionfinish(session: pytest.Session) -> None:
    """Name the listed-as-failing scenarios that passed, so the list is kept honest."""
    state = session.config.stash.get(_STATE, None)
    if state is None or not state.listed_but_passing:
        return
    ids = sorted(set(state.listed_but_passing))
    warnings.warn(ScrubcheckWarning(
        f"{state.xfail_file}: {len(ids)} listed id(s) now pass, remove them: {', '.join(ids)}"),
        stacklevel=1)
