"""`scrubcheck run`: run a scrubber against the corpus and say where it leaks or loses text.

Exit 0 when nothing fails at `--level`, 1 on failures (ERROR and TIMEOUT
included), 2 on usage errors, an unloadable scrubber or corpus errors (which
are printed as file:line [id]: message; the rest of the corpus still runs),
130 when interrupted (Ctrl-C: the summary and the reports then cover what
finished, the rest counted as not run).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from scrubcheck.adapters import AdapterError
from scrubcheck.adapters.resolve import spec_slug as slug
from scrubcheck.checks.linear import ratios_text
from scrubcheck.claims import UnknownClass, check_class
from scrubcheck.commands.options import (
    add_claim_options,
    add_dask_options,
    add_jobs_option,
    add_level_option,
    add_memory_limit_option,
    add_no_linear_option,
    add_out_option,
    add_progress_option,
    add_scrubber_option,
    add_seed_option,
    add_selection_options,
    add_shard_option,
    add_timeout_option,
    apply_formats,
    usage_for,
)
from scrubcheck.corpus import load_corpus, select
from scrubcheck.distributed.dask_runner import DaskError
from scrubcheck.evidence import Severity
from scrubcheck.reports.text import output_excerpt
from scrubcheck.results import Outcome, RunResult, ScenarioResult
from scrubcheck.runner import RunSettings
from scrubcheck.runner.shard import run_selection

NAME = "run"
HELP = "run a scrubber against the corpus and the generated chunkings"
SHOWN_FAILURES = 40
_usage = usage_for(NAME)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_scrubber_option(parser)
    add_out_option(parser, "write the reports there (--out alone: reports/<scrubber>/)",
                   optional=True, old=("--report-dir",))
    add_selection_options(parser)
    add_jobs_option(parser)
    add_seed_option(parser)
    add_timeout_option(parser, 60.0, "wall-clock seconds per scenario, and for the "
                       "linear-time check, before the scrubber is killed (default 60)")
    add_memory_limit_option(parser)
    add_level_option(parser)
    parser.add_argument("--random-chunkings", type=int, default=8, metavar="N",
                        help="seeded random chunkings per scenario (default 8)")
    add_no_linear_option(parser)
    add_progress_option(parser)
    add_shard_option(parser)
    add_dask_options(parser)
    add_claim_options(parser)


def run(args: argparse.Namespace) -> int:
    failed = apply_formats(args, NAME)
    if failed is not None:
        return failed
    if args.claim is not None:
        try:
            check_class(args.claim)
        except UnknownClass as exc:
            return _usage(exc.args[0])
    if args.jobs is not None and args.jobs < 1:
        return _usage("--jobs must be at least 1")
    if args.timeout <= 0:
        return _usage("--timeout must be positive")
    try:
        corpus = load_corpus(list(args.corpus) if args.corpus else None)
    except FileNotFoundError as exc:
        return _usage(str(exc))
    for error in corpus.errors:
        print(error, file=sys.stderr)
    scenarios = select(corpus.scenarios, areas=args.area, rules=args.rule,
                       features=args.feature, ids=args.id)
    if not corpus.scenarios:  # not a selection that matched nothing: nothing loaded
        return _usage("the corpus holds no scenario" + (
            f" that loaded ({len(corpus.errors)} corpus errors above)"
            if corpus.errors else ""))
    if not scenarios:
        return _usage(f"no scenario matches the selection ({len(corpus.scenarios)} loaded)")
    settings = RunSettings(
        seed=args.seed, timeout_s=args.timeout, level=args.level, jobs=args.jobs,
        random_count=args.random_chunkings, linear_check=not args.no_linear,
        corpus_paths=tuple(str(p) for p in args.corpus or ()),
        memory_limit=args.memory_limit, conformance_class=args.claim,
    )
    if args.shard is not None:
        print(f"shard {args.shard}: {len(args.shard.pick(scenarios))} of the "
              f"{len(scenarios)} selected scenarios"
              + ("; the linear-time check runs in shard 1" if not args.shard.owns_run_checks
                 and settings.linear_check else ""))
    try:
        if args.dask:
            result = _on_dask(args, scenarios, settings)
        else:
            result = run_selection(args.scrubber, scenarios, settings, shard=args.shard,
                                   progress=not args.no_progress,
                                   corpus_errors=[str(e) for e in corpus.errors])
    except AdapterError as exc:
        return _usage(f"cannot load scrubber: {exc}")
    except DaskError as exc:  # the Dask cluster cannot run it
        return _usage(str(exc))
    print_summary(result, args.level)
    if args.out is not None:
        report_dir = Path(args.out or Path("reports") / slug(args.scrubber))
        for path in write_all(result, report_dir):
            print(f"report: {path}")
    return result.exit_code(args.level)


def _on_dask(args: argparse.Namespace, scenarios: list, settings: RunSettings) -> RunResult:
    """The run as shards on the Dask cluster at --dask, merged (scrubcheck.distributed)."""
    from scrubcheck.distributed.dask_runner import dask_run
    from scrubcheck.distributed.job import Selection

    if args.shard is not None:
        raise DaskError("--dask splits the run into shards itself; drop --shard")
    selection = Selection.of(args.corpus, args.area, args.rule, args.feature, args.id)
    return dask_run(args.dask, args.dask_shards, args.scrubber, selection, scenarios, settings)


def write_all(result: RunResult, report_dir: Path) -> list[Path]:
    """Every report format; the JSON alone when the report writers are not installed."""
    try:
        from scrubcheck.reports import write_reports
    except ImportError:
        report_dir.mkdir(parents=True, exist_ok=True)
        path = report_dir / "run.json"
        path.write_text(json.dumps(result.to_dict(), indent=1, ensure_ascii=False) + "\n",
                        encoding="utf-8")
        return [path]
    return write_reports(result, report_dir)


def _plural(count: int, word: str) -> str:
    return f"{count:,} {word}" + ("" if count == 1 else "s")


def print_summary(result: RunResult, level: str, out=None) -> None:
    """The console summary: totals, counts per outcome, and each failing scenario with its
    first failure and replay command."""
    out = out or sys.stdout
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
