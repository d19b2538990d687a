"""The body `scrubcheck hunt` and `scrubcheck fuzz` share: their common options and what
happens after a search (the findings printed as they come, the summary, the saved
scenarios, the exit code).

The two commands search differently (Hypothesis properties, libFuzzer inputs), but a
user reads their options and their output as one tool's; keeping both here means a new
common option or a change of the summary is made once. Each command passes its own
words (`SearchWords`) and adds its own options at the places `add_search_options`
leaves for them, so each `--help` lists its options in the order it always has.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol, TypeVar

from scrubcheck.adapters import AdapterError
from scrubcheck.checks.linear import LinearMeasurement
from scrubcheck.commands.explain import print_explanation
from scrubcheck.commands.options import (
    add_against_option,
    add_alias,
    add_claim_options,
    add_explain_options,
    add_level_option,
    add_memory_limit_option,
    add_no_linear_option,
    add_out_option,
    add_scrubber_option,
    add_seed_option,
    add_timeout_option,
    usage_for,
)
from scrubcheck.explain import explain_run
from scrubcheck.hunt import Finding
from scrubcheck.hunt.as_scenario import finding_scenario
from scrubcheck.hunt.findings_output import (
    exit_code,
    linear_lines,
    print_finding,
    print_summary,
    save_findings,
)
from scrubcheck.model import GENERIC, Scenario
from scrubcheck.results import Outcome, RunResult
from scrubcheck.runner.judge import blank_result

#: Adds a command's own options at one place among the shared ones.
AddOptions = Callable[[argparse.ArgumentParser], None]


def _nothing(parser: argparse.ArgumentParser) -> None:
    """No option of the command's own at this place."""


@dataclass(frozen=True)
class SearchWords:
    """What the shared options say for one command (its help texts and old spellings)."""

    time_help: str  # --time
    seed_what: str  # what --seed seeds
    timeout_help: str  # --timeout
    timeout_alias: str  # the old spelling of --timeout
    memory_what: str  # what --memory-limit limits
    memory_default: str  # its default, in words


def add_search_options(parser: argparse.ArgumentParser, words: SearchWords, *,
                       after_time: AddOptions = _nothing, after_out: AddOptions = _nothing,
                       after_timeout: AddOptions = _nothing) -> None:
    """The options of a search, in their order, with the command's own at three places."""
    add_scrubber_option(parser)
    add_against_option(parser)
    parser.add_argument("--time", type=float, default=60.0, metavar="S", help=words.time_help)
    after_time(parser)
    add_seed_option(parser, words.seed_what, random_ok=True)
    add_out_option(parser, "write each finding to DIR/<id>.yaml for review", old=("--save",))
    after_out(parser)
    add_no_linear_option(parser)
    timeout = add_timeout_option(parser, 10.0, words.timeout_help)
    add_alias(parser, words.timeout_alias, timeout)
    after_timeout(parser)
    add_memory_limit_option(parser, words.memory_what, words.memory_default)
    add_level_option(parser, "findings")
    add_claim_options(parser)
    parser.add_argument("--no-explain", action="store_true",
                        help="do not group the findings into the bugs behind them")
    add_explain_options(parser)


def print_bugs(spec: str, findings: list[Finding], args: argparse.Namespace) -> None:
    """The findings grouped into the bugs behind them. When the scrubber hung or died in
    this search, its other findings are not rerun to be shrunk (each rerun could cost
    the timeout again): they are listed as not explained, saying how to explain them."""
    run, scenarios = findings_as_run(spec, findings, args.claim)
    if not run.results:
        return
    hostile = [r for r in run.results if r.outcome is not Outcome.FAIL]
    kept = run.results
    if hostile:
        run.results = hostile
    explanation = explain_run(run, scenarios, seconds=args.explain_seconds,
                              budget=args.explain_budget,
                              timeout=args.explain_seconds + args.timeout)
    for result in kept:
        if hostile and result.outcome is Outcome.FAIL:
            explanation.failing += 1
            explanation.unexplained[result.scenario_id] = (
                "the scrubber hung or died in this search, so its findings are not run "
                "again to be shrunk: save them with --out and run `scrubcheck explain` on "
                "a run of them")
    print()
    print_explanation(explanation, spec)


#: the search's findings of a scrubber that hung or died, as the outcome a run gives them
LOST = {"timeout": Outcome.TIMEOUT, "crash": Outcome.ERROR}


def findings_as_run(spec: str, findings: list[Finding],
                    conformance_class: str | None) -> tuple[RunResult, dict[str, Scenario]]:
    """A search's findings as a run of one scenario each (the scenario each would be
    saved as), so that `explain` groups them into bugs as it does a run's failures."""
    scenarios: dict[str, Scenario] = {}
    results = []
    for finding in findings:
        scenario = finding_scenario(finding)
        if scenario is None:  # a linear-time finding: measured once, not shrunk
            continue
        scenarios[scenario.id] = scenario
        violation = finding.violation
        lost = LOST.get(violation.check)
        if lost is not None:  # a hang or a crash: grouped by its message, never rerun
            results.append(blank_result(scenario, lost, violation.detail))
            continue
        result = blank_result(scenario, Outcome.FAIL)
        result.failures = [violation.amended(chunking="recorded", deltas=tuple(scenario.deltas))]
        results.append(result)
    run = RunResult(scrubber=spec, scrubber_kind="", supported_features=[],
                    accepted_context=[], spec_version="", scrubcheck_version="",
                    started_at="", duration_s=0.0,
                    settings={"seed": 0, "conformance_class": conformance_class},
                    results=results)
    return run, scenarios


def class_line(judged: str) -> list[str]:
    """The summary's line naming the conformance class the search drew within."""
    if judged == GENERIC:
        return []
    return [f"conformance class {judged}: streams drawn within it, judged as it reads them "
            "(SPEC section 12)"]


class SearchResult(Protocol):
    """What hunt's and fuzz's results both hold (`HuntResult`, `FuzzResult`)."""

    @property
    def spec(self) -> str: ...
    @property
    def findings(self) -> list[Finding]: ...
    @property
    def seconds(self) -> float: ...
    @property
    def errors(self) -> list[str]: ...
    @property
    def linear(self) -> LinearMeasurement | None: ...


R = TypeVar("R", bound=SearchResult)


def announce(finding: Finding) -> None:
    """A finding printed the moment it is confirmed (a long search shows progress)."""
    print_finding(finding)
    sys.stdout.flush()


def report_search(tool: str, args: argparse.Namespace,
                  search: Callable[[Callable[[Finding], None]], R],
                  lines: Callable[[R], list[str]], *, errors_alone_fail: bool = False) -> int:
    """Run `search` (given `announce`), print its summary with the command's own `lines`,
    save the findings to `--out`, and return the exit code: 2 for a scrubber that does
    not load (and, with `errors_alone_fail`, for harness errors with no finding), else 1
    on findings at `--level`, 0 otherwise."""
    try:
        result = search(announce)
    except AdapterError as exc:
        return usage_for(tool)(f"cannot load scrubber: {exc}")
    print_summary(tool, result.spec, result.findings, result.seconds,
                  [*lines(result), *linear_lines(result.linear)], result.errors)
    if result.findings and not args.no_explain:
        print_bugs(result.spec, result.findings, args)
    if args.out and result.findings:
        for path in save_findings(result.findings, args.out):
            print(f"saved: {path}")
    if errors_alone_fail and result.errors and not result.findings:
        return 2
    return exit_code(result.findings, args.level)
