"""`scrubcheck run`: run a scrubber against the corpus and say where it leaks or loses text.

When scenarios fail, their failures are explained as the bugs behind them
(`scrubcheck.explain`: each shrunk to a smallest stream and grouped by the SPEC decision
it gets wrong), printed first, and written beside the reports (`explanation.json`,
`bugs.md`, `bugs/`, `bugs.yaml`); `--no-explain` leaves that out.

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
from scrubcheck.commands.options import (
    add_claim_options,
    add_dask_options,
    add_explain_options,
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
    apply_claim_options,
    usage_for,
)
from scrubcheck.corpus import load_corpus, select
from scrubcheck.distributed.dask_runner import DaskError
from scrubcheck.explain import explain_run, write_explanation
from scrubcheck.explain.conduct import FAILING
from scrubcheck.reports.console import print_summary
from scrubcheck.results import RunResult
from scrubcheck.runner import RunSettings
from scrubcheck.runner.shard import run_selection

NAME = "run"
HELP = "run a scrubber against the corpus and the generated chunkings"
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
    parser.add_argument("--no-explain", action="store_true",
                        help="do not explain the failures as bugs (see `scrubcheck explain`)")
    add_explain_options(parser)


def run(args: argparse.Namespace) -> int:
    failed = apply_claim_options(args, NAME)
    if failed is not None:
        return failed
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
    explanation = None
    if not args.no_explain and not result.interrupted and any(
            r.outcome in FAILING for r in result.results):
        try:
            explanation = explain_run(result, {s.id: s for s in scenarios},
                                      jobs=RunSettings(jobs=args.jobs).workers,
                                      seconds=args.explain_seconds, budget=args.explain_budget,
                                      timeout=args.explain_seconds + args.timeout)
            result.explanation = explanation.to_dict()
        except Exception as exc:  # the run's own verdict and reports stand without it
            print(f"scrubcheck run: the failures could not be explained as bugs (a harness "
                  f"error, not the scrubber's): {type(exc).__name__}: {exc}; the reports "
                  "below are the run's, without bugs", file=sys.stderr)
    print_summary(result, args.level)
    if args.out is not None:
        report_dir = Path(args.out or Path("reports") / slug(args.scrubber))
        paths = write_all(result, report_dir)
        if explanation is not None:
            paths += write_explanation(explanation, result, report_dir, summary=False)
        for path in paths:
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
