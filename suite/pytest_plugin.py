"""pytest plugin: `pytest --scrubber mypkg:MyScrubber` runs the scrubcheck corpus as tests.

Every scenario becomes one test, `scrubcheck::<area>::<scenario-id>`, that runs
the scenario under every chunking and fails with the same text as the
Markdown report (smallest failing chunking, expected vs got, replay command).
The scrubber-wide linear-time check (R-ROBUST-2) is a test of its own,
`scrubcheck::scrubber::linear-time`.

The scrubber is imported in the pytest process (so that a bad spec fails
collection with one line) only after a child process survived importing it
(`runner.preflight`: a module that hangs or crashes at import fails collection
instead of pytest, and what it prints then stays off the console), and it is
never run there: results come from the worker processes of `scrubcheck run`
(see `plugin_runs`), so a scrubber that hangs, crashes, exits or floods stdout
fails its own test (TIMEOUT or ERROR, with the reason, its captured output and
the replay command) and the session still ends with its summary.

This module is loaded by every pytest run on a machine where scrubcheck is
installed, so it imports nothing beyond pytest, the standard library and the
small `option_names` until `--scrubber` is given: the runner, the corpus loader,
yaml and jsonschema are imported inside the functions that need them.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from _pytest._code.code import TerminalRepr, TracebackStyle

from scrubcheck.option_names import OptionNames

ROOT_NAME = "scrubcheck"
SCRUBBER_AREA = "scrubber"  # the collector of the once-per-scrubber checks
#: The plugin's spelling of the options that the runner's messages advise: a TIMEOUT of
#: the linear-time check says "raise --scrubcheck-timeout", not `run`'s "--timeout".
OPTIONS = OptionNames(timeout="--scrubcheck-timeout", memory_limit="--scrubcheck-memory-limit",
                      skip_linear='-k "not linear-time"')


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
    group.addoption("--scrubcheck-no-explain", action="store_true", default=False,
                    help="do not explain the failing scenarios as bugs in the summary")
    group.addoption("--scrubcheck-jobs", metavar="N", type=int, default=None,
                    help="worker processes running the scrubber (default: all cores)")
    group.addoption(OPTIONS.timeout, metavar="S", type=float, default=60.0,
                    help="seconds per scenario, and for the linear-time check, before the "
                         "scrubber is killed and the test fails as TIMEOUT (default 60)")
    group.addoption(OPTIONS.memory_limit, metavar="SIZE", default=None,
                    help="memory each worker process may allocate, e.g. 512M or 2G; "
                         "a scenario that hits it fails as ERROR (default: no limit)")
    group.addoption("--scrubcheck-claim", metavar="CLASS", default=None,
                    help="the conformance class to judge (SPEC section 12): generic or a "
                         "format's name; default: what the scrubber claims, else generic. "
                         "Scenarios beyond it are skipped as BEYOND CLAIM (counted, shown)")
    group.addoption("--scrubcheck-formats", metavar="FILE", action="append", default=[],
                    help="a format file (or folder) that is not shipped (repeatable)")


def pytest_configure(config: pytest.Config) -> None:
    """Refuse bad scrubcheck options before anything is collected (exit 4, one line)."""
    if not _active(config):
        return
    jobs = config.getoption("scrubcheck_jobs")
    if jobs is not None and jobs < 1:
        raise pytest.UsageError("--scrubcheck-jobs must be at least 1")
    if not config.getoption("scrubcheck_timeout") > 0:
        raise pytest.UsageError(f"{OPTIONS.timeout} must be positive")
    _memory_limit(config)
    _claim(config)


def _claim(config: pytest.Config) -> str | None:
    """Register --scrubcheck-formats, then check --scrubcheck-claim names a class."""
    from scrubcheck.claims import UnknownClass, check_class
    from scrubcheck.formats import FormatsUnavailable
    from scrubcheck.vocabulary import register_formats

    formats = [Path(p) for p in config.getoption("scrubcheck_formats") or []]
    try:
        if formats:
            register_formats(formats)
    except FormatsUnavailable as exc:
        raise pytest.UsageError(f"--scrubcheck-formats:\n{exc}") from None
    claim = config.getoption("scrubcheck_claim")
    if claim is None:
        return None
    try:
        return check_class(claim)
    except UnknownClass as exc:
        raise pytest.UsageError(f"--scrubcheck-claim: {exc.args[0]}") from None


def _memory_limit(config: pytest.Config) -> int | None:
    """--scrubcheck-memory-limit in bytes (None: no limit)."""
    text = config.getoption("scrubcheck_memory_limit")
    if text is None:
        return None
    from scrubcheck.runner.settings import parse_size

    try:
        return parse_size(text)
    except ValueError as exc:
        raise pytest.UsageError(f"{OPTIONS.memory_limit}: {exc}") from None


def _active(config: pytest.Config) -> bool:
    return bool(config.getoption("scrubber", default=None))


@dataclass
class _State:
    """Per-session state, built at collection once --scrubber is known."""

    runs: Any  # plugin_runs.IsolatedRuns
    level: str
    xfail_ids: frozenset[str] = frozenset()
    xfail_file: str = ""
    listed_but_passing: list[str] = field(default_factory=list)
    order: list[Any] = field(default_factory=list)  # the scenarios pytest will run, in order
    positions: dict[str, int] = field(default_factory=dict)  # scenario id -> index in order


_STATE = pytest.StashKey[_State]()


def pytest_report_header(config: pytest.Config) -> list[str] | None:
    if not _active(config):
        return None
    corpus = ", ".join(config.getoption("scrubcheck_corpus") or ["shipped corpus"])
    seed = config.getoption("scrubcheck_seed")
    jobs = config.getoption("scrubcheck_jobs")
    memory = config.getoption("scrubcheck_memory_limit")
    return [f"scrubcheck: scrubber {config.getoption('scrubber')}, corpus {corpus}, "
            f"level {config.getoption('scrubcheck_level')}"
            + (f", seed {seed}" if seed is not None else "")
            + f", timeout {config.getoption('scrubcheck_timeout'):g} s"
            + (f", {jobs} jobs" if jobs is not None else "")
            + (f", memory limit {memory} per worker" if memory else "")]


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
    """The whole corpus: loads it, the scrubber and the settings, yields the
    scrubber-wide checks, then one collector per area."""

    def collect(self):
        from scrubcheck.corpus import load_corpus, select
        from scrubcheck.runner import LINEAR_ID

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
        known = {s.id for s in corpus.scenarios} | {LINEAR_ID}
        state.xfail_ids, state.xfail_file = self._xfail(known)
        config.stash[_STATE] = state
        if scenarios:  # first, as in `scrubcheck run`: timed before anything competes
            yield ScrubberChecks.from_parent(self, name=SCRUBBER_AREA)
        by_area: dict[str, list] = {}
        for scenario in scenarios:
            by_area.setdefault(scenario.area, []).append(scenario)
        for area, members in by_area.items():
            yield Area.from_parent(self, name=area, scenarios=members)

    def _state(self, corpus_paths: list[str]) -> _State:
        from scrubcheck.adapters import AdapterError
        from scrubcheck.plugin_runs import IsolatedRuns
        from scrubcheck.runner import RunSettings, load_scrubber

        config = self.config
        spec = config.getoption("scrubber")
        try:  # fail collection now, with one clear line, as `run` does (exit 2)
            load_scrubber(spec, timeout_s=config.getoption("scrubcheck_timeout"),
                          memory_limit=_memory_limit(config), options=OPTIONS)
        except AdapterError as exc:  # a bad spec, or one that hangs or crashes on import
            raise CollectionProblem(f"cannot load scrubber {spec!r}: {exc}") from exc
        except Exception as exc:  # anything else: a bug of scrubcheck's, named as such
            raise CollectionProblem(f"cannot load scrubber {spec!r}: "
                                    f"{type(exc).__name__}: {exc}") from exc
        level = config.getoption("scrubcheck_level")
        options: dict[str, Any] = {"level": level, "corpus_paths": tuple(corpus_paths),
                                   "timeout_s": config.getoption("scrubcheck_timeout"),
                                   "jobs": config.getoption("scrubcheck_jobs"),
                                   "memory_limit": _memory_limit(config),
                                   "conformance_class": config.getoption("scrubcheck_claim")}
        seed = config.getoption("scrubcheck_seed")
        if seed is not None:
            options["seed"] = seed
        runs = IsolatedRuns.for_jobs(spec, RunSettings(**options), options=OPTIONS,
                                     ahead=not hasattr(config, "workerinput"))  # xdist worker
        return _State(runs=runs, level=level)

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

    def repr_failure(  # pytest's Collector takes no style; its base Node does
        self, excinfo: pytest.ExceptionInfo[BaseException], style: TracebackStyle | None = None,
    ) -> str | TerminalRepr:
        if isinstance(excinfo.value, CollectionProblem):
            return str(excinfo.value)
        return super().repr_failure(excinfo)


def _with_xfail(item: pytest.Item, test_id: str) -> pytest.Item:
    state = item.config.stash[_STATE]
    if test_id in state.xfail_ids:
        item.add_marker(pytest.mark.xfail(reason=f"listed in {state.xfail_file}", strict=False))
    return item


class ScrubberChecks(pytest.Collector):
    """The checks run once per scrubber rather than per scenario: linear time."""

    def collect(self):
        from scrubcheck.runner import LINEAR_ID

        yield _with_xfail(LinearTimeItem.from_parent(self, name=LINEAR_ID), LINEAR_ID)


class Area(pytest.Collector):
    """One corpus area: its scenarios, in corpus order."""

    def __init__(self, *, scenarios: list, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.scenarios = scenarios

    def collect(self):
        for scenario in self.scenarios:
            yield _with_xfail(ScenarioItem.from_parent(self, name=scenario.id, scenario=scenario),
                              scenario.id)


class _ResultItem(pytest.Item):
    """A test judged from one runner result, at the chosen level."""

    def result(self) -> Any:
        """The ScenarioResult this test reports (computed in the worker processes)."""
        raise NotImplementedError

    def runtest(self) -> None:
        from scrubcheck.reports.failure_text import scenario_text
        from scrubcheck.results import Outcome

        state = self.config.stash[_STATE]
        result = self.result()
        self.user_properties.append(("scrubcheck_outcome", result.outcome.value))
        if result.outcome in (Outcome.UNSUPPORTED, Outcome.SKIPPED, Outcome.BEYOND_CLAIM):
            pytest.skip(f"{result.outcome.value}: {result.reason or 'no reason given'}")
        if result.fails_at(state.level):
            raise ScenarioFailed(scenario_text(result))
        if result.outcome is Outcome.FAIL:  # SHOULD failures while judging MUST only
            self.add_report_section("call", "scrubcheck SHOULD failures", scenario_text(result))
        if self.name in state.xfail_ids:
            state.listed_but_passing.append(self.name)

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, ScenarioFailed):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style)


class LinearTimeItem(_ResultItem):
    """R-ROBUST-2: time linear in the stream length, measured once, in a worker."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.extra_keyword_matches.add("R-ROBUST-2")

    def result(self) -> Any:
        return self.config.stash[_STATE].runs.linear_result()

    def reportinfo(self):
        return Path(self.config.rootpath, ROOT_NAME, SCRUBBER_AREA), None, \
            f"{SCRUBBER_AREA}::{self.name}"


class ScenarioItem(_ResultItem):
    """One scenario, run with every check in a worker process."""

    def __init__(self, *, scenario: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.scenario = scenario
        self.extra_keyword_matches.update(scenario.rules)

    def result(self) -> Any:
        state = self.config.stash[_STATE]
        position = state.positions.get(self.scenario.id, len(state.order))
        return state.runs.scenario_result(self.scenario, islice(state.order, position + 1, None))

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


def pytest_collection_finish(session: pytest.Session) -> None:
    """Note the scenarios pytest will run, in order (after -k and deselection), so that
    each window of results judged ahead holds only tests that will ask for them."""
    state = session.config.stash.get(_STATE, None)
    if state is None:
        return
    state.order = [item.scenario for item in session.items if isinstance(item, ScenarioItem)]
    state.positions = {scenario.id: i for i, scenario in enumerate(state.order)}


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    """Point a skipped scenario's report at its YAML line, not at this plugin."""
    report = yield
    if isinstance(item, ScenarioItem) and report.skipped and isinstance(report.longrepr, tuple):
        message = report.longrepr[2]
        report.longrepr = (item.scenario.file, item.scenario.line, message)
    return report


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    """The bugs behind the failing scenarios, each with its smallest stream: what a
    maintainer acts on, above pytest's list of failed tests (`scrubcheck.explain`)."""
    state = config.stash.get(_STATE, None)
    if state is None or config.getoption("scrubcheck_no_explain"):
        return
    from scrubcheck.explain import explain_run
    from scrubcheck.explain.conduct import FAILING
    from scrubcheck.reports.bugs import console_lines

    run = state.runs.as_run()
    if not any(r.outcome in FAILING for r in run.results):
        return
    settings = state.runs.settings
    explanation = explain_run(run, {s.id: s for s in state.order}, jobs=settings.workers,
                              timeout=5.0 + settings.timeout_s)
    terminalreporter.section("scrubcheck: the bugs behind the failures")
    for line in console_lines(explanation.to_dict(), run.scrubber):
        terminalreporter.write_line(line)


def pytest_sessionfinish(session: pytest.Session) -> None:
    """Name the listed-as-failing scenarios that passed, so the list is kept honest."""
    state = session.config.stash.get(_STATE, None)
    if state is None or not state.listed_but_passing:
        return
    ids = sorted(set(state.listed_but_passing))
    warnings.warn(ScrubcheckWarning(
        f"{state.xfail_file}: {len(ids)} listed id(s) now pass, remove them: {', '.join(ids)}"),
        stacklevel=1)
