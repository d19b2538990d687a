"""The console summary of a run: what `scrubcheck run` and `scrubcheck merge` print.

It is a report like the others, read from the same `RunResult`, so it lives with the
report writers rather than in a command: totals, counts per outcome, and each failing
scenario in `Severity` order with its first failure and replay command.
"""

from __future__ import annotations

import sys

from ..checks.linear import ratios_text
from ..evidence import Severity
from ..results import Outcome, RunResult, ScenarioResult
from .bugs import console_lines
from .text import output_excerpt

SHOWN_FAILURES = 40


def _plural(count: int, word: str) -> str:
    return f"{count:,} {word}" + ("" if count == 1 else "s")


def print_summary(result: RunResult, level: str, out=None) -> None:
    """The console summary: the bugs behind the failures (when the run was explained),
    totals, counts per outcome, and each failing scenario with its first failure and
    replay command."""
    out = out or sys.stdout
    if result.explanation:  # the bugs first: what the reader acts on
        for line in console_lines(result.explanation, result.scrubber):
            print(line, file=out)
        print(file=out)
    rows = result.results
    chunkings = sum(r.chunkings_run for r in rows)
    checks = sum(r.checks_run for r in [*rows, *result.scrubber_checks])
    print(f"scrubber {result.scrubber} ({result.scrubber_kind}; context: "
          f"{', '.join(result.accepted_context) or 'none'}; features: "
          f"{', '.join(result.supported_features) or 'none'})", file=out)
    print(f"{_plural(len(rows), 'scenario')} × {_plural(chunkings, 'chunking')} × "
          f"{_plural(checks, 'check')} run in {result.duration_s:.1f} s "
          f"({result.settings.get('jobs')} jobs, seed {result.settings.get('seed')}, "
          f"SPEC {result.spec_version})", file=out)
    counts = result.counts()
    print("  ".join(f"{o.value} {counts.get(o.value, 0)}" for o in Outcome
                    if counts.get(o.value, 0) or o in (Outcome.PASS, Outcome.FAIL)), file=out)
    leaks = sum(1 for r in rows if r.severity is Severity.LEAK)
    print(f"leaks: {_plural(leaks, 'scenario')} "
          f"{'shows' if leaks == 1 else 'show'} reasoning to the user", file=out)
    should_only = sum(1 for r in rows if r.outcome is Outcome.FAIL and r.worst_level == "SHOULD")
    if should_only:
        print(f"  of the FAILs, {should_only} fail only SHOULD rules "
              f"({'counted' if level == 'should' else 'not counted'} at --level {level})", file=out)
    capped = [r for r in rows if r.capped]
    if capped:
        families: dict[str, int] = {}
        for r in capped:
            for family, count in r.capped.items():
                families[family] = families.get(family, 0) + count
        print(f"capped: {_plural(len(capped), 'scenario')}, variants not run: "
              + ", ".join(f"{family} {count:,}" for family, count in sorted(families.items())),
              file=out)
    for check in result.scrubber_checks:
        ratios = ratios_text(check.metrics)
        print(f"{check.scenario_id} ({', '.join(check.rules)}): {check.outcome.value}"
              + (f" — {ratios}" if ratios else "")
              + (f" — {check.reason}" if check.reason else ""), file=out)
        for failure in check.failures:
            print(f"    {failure.detail}", file=out)
    _print_problems(rows, level, out)
    wrote = [r for r in [*rows, *result.scrubber_checks] if r.captured_output]
    if wrote:
        print(f"\nthe scrubber wrote to stdout/stderr in {_plural(len(wrote), 'scenario')}: "
              "captured per scenario (head and tail kept), never printed here; see the "
              "failing scenarios above and the reports", file=out)
    if result.corpus_errors:
        print(f"corpus errors: {len(result.corpus_errors)} (printed above; exit 2)", file=out)
    code = result.exit_code(level)
    if result.interrupted:
        not_run = sum(1 for r in rows if r.outcome is Outcome.SKIPPED)
        print(f"\ninterrupted (Ctrl-C): {len(rows) - not_run} of {len(rows)} scenarios "
              f"finished, {not_run} not run", file=out)
        print(f"result: {result.verdict(level)} (exit {code})", file=out)
        return
    print(f"result: {result.verdict(level)} at level {level} (exit {code})", file=out)


def _print_problems(rows: list[ScenarioResult], level: str, out) -> None:
    problems = sorted((r for r in rows if r.outcome in (Outcome.FAIL, Outcome.ERROR,
                                                       Outcome.TIMEOUT)),
                      key=lambda r: r.severity)
    unsupported = [r for r in rows if r.outcome is Outcome.UNSUPPORTED]
    if problems:
        print(f"\nfailing scenarios ({len(problems)}; leaks first, then MUST failures, errors "
              "and timeouts, SHOULD failures):", file=out)
    for r in problems[:SHOWN_FAILURES]:
        _print_problem(r, out)
    if len(problems) > SHOWN_FAILURES:
        print(f"  … {len(problems) - SHOWN_FAILURES} more (see the reports: --out)",
              file=out)
    if unsupported:
        reasons: dict[str, int] = {}
        for r in unsupported:
            reason = (r.reason or "").split(": ", 1)[-1]
            reasons[reason] = reasons.get(reason, 0) + 1
        print(f"\nunsupported ({len(unsupported)}, never counted as passed):", file=out)
        for reason, count in sorted(reasons.items(), key=lambda kv: -kv[1]):
            print(f"  {count:4} {reason}", file=out)


def _print_problem(r: ScenarioResult, out) -> None:
    """One failing scenario: what failed, where, the replay command, what it printed."""
    where = f"{r.file}:{r.line}"
    leak = " [leak]" if r.severity is Severity.LEAK else ""
    if r.outcome is Outcome.FAIL and r.failures:
        first = r.failures[0]
        more = f" (+{len(r.failures) - 1} more checks)" if len(r.failures) > 1 else ""
        print(f"  {r.outcome.value:7} {r.scenario_id}{leak}  ({where})  {first.level} "
              f"{first.rule} {first.check} under {first.chunking}{more}", file=out)
        print(f"      {first.detail.splitlines()[0][:300]}", file=out)
        replay = first.replay
    else:
        reason, _, replay = (r.reason or "no reason given").partition("; replay: ")
        print(f"  {r.outcome.value:7} {r.scenario_id}{leak}  ({where})\n      {reason}", file=out)
        if not replay and r.failures:  # e.g. an ERROR from a raising scrubber
            replay = r.failures[0].replay
    if replay:
        print(f"      replay: {replay}", file=out)
    if r.captured_output:
        if r.outcome is Outcome.FAIL:
            print(f"      scrubber output: {output_excerpt(r.captured_output)[0]}", file=out)
        else:
            print("      scrubber output:", file=out)
            for line in output_excerpt(r.captured_output, head=2, tail=4):
                print(f"        | {line}", file=out)
