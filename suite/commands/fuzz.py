"""`scrubcheck fuzz`: coverage-guided fuzzing (atheris/libFuzzer) of a scrubber.

Saved crash inputs are replayed first; then `--jobs` fuzzing processes run for
`--time` seconds. Each distinct failure is shrunk and printed as a minimal
corpus scenario (`--out DIR` writes them). The same fuzz target runs on
OSS-Fuzz / ClusterFuzzLite: see fuzz/README.md. Exit 0 when nothing fails at
`--level`, 1 on findings, 2 on usage errors (atheris missing included).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from scrubcheck.commands.options import add_jobs_option, apply_claim_options, usage_for
from scrubcheck.commands.search import (
    SearchWords,
    add_search_options,
    class_line,
    report_search,
)
from scrubcheck.hunt.fuzzing import FuzzResult, FuzzSettings, atheris_problem, fuzz

NAME = "fuzz"
HELP = "coverage-guided fuzzing with atheris; findings become minimal scenarios"
_usage = usage_for(NAME)
WORDS = SearchWords(
    time_help="seconds to fuzz (default 60)",
    seed_what="libFuzzer's search (each process and run derives its own)",
    timeout_help="wall-clock seconds one input may take before it is reported as a "
    "timeout (libFuzzer's -timeout, rounded up to whole seconds; replays and shrinking in "
    "the parent's sandbox process use it exactly); also the linear-time measurement's "
    "budget (default 10)",
    timeout_alias="--input-timeout",
    memory_what="each fuzzing process (libFuzzer's -rss_limit_mb) and the process replaying "
    "its inputs",
    memory_default="(default: 4G for libFuzzer, no limit for the replays)")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_search_options(parser, WORDS, after_time=_jobs, after_out=_inputs)


def _jobs(parser: argparse.ArgumentParser) -> None:
    add_jobs_option(parser, "fuzzing processes in parallel", default=1)


def _inputs(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--work-dir", type=Path, metavar="DIR",
                        help="corpus and crash inputs (default: ~/.cache/scrubcheck/fuzz/<spec>)")
    parser.add_argument("--no-replay", action="store_true",
                        help="do not replay the saved crash inputs first")
    parser.add_argument("--input", action="append", type=Path, metavar="FILE",
                        help="do not fuzz: turn this crash input (from OSS-Fuzz, say) into a "
                             "scenario (repeatable)")


def run(args: argparse.Namespace) -> int:
    if args.time <= 0 or args.jobs < 1 or args.timeout <= 0:
        return _usage("--time and --timeout must be positive and --jobs at least 1")
    missing = [str(p) for p in args.input or () if not p.is_file()]
    if missing:
        return _usage("no such input file: " + ", ".join(missing))
    problem = atheris_problem()
    if problem and not args.input:
        return _usage(problem)
    failed = apply_claim_options(args, NAME)
    if failed is not None:
        return failed
    options = FuzzSettings(seconds=args.time, jobs=args.jobs, seed=args.seed,
                           work_dir=args.work_dir, against=args.against,
                           timeout=args.timeout, memory_limit=args.memory_limit,
                           replay=not args.no_replay, inputs=tuple(args.input or ()),
                           linear=not args.no_linear, conformance_class=args.claim,
                           formats=tuple(p.resolve() for p in args.formats))

    def lines(result: FuzzResult) -> list[str]:
        return [f"{result.executions:,} inputs executed by {result.runs} fuzzing process runs "
                f"({args.jobs} in parallel); {result.replayed} saved crash inputs replayed "
                "first", f"work directory: {result.work_dir}",
                *class_line(result.conformance_class)]

    return report_search(NAME, args, lambda found: fuzz(args.scrubber, options,
                                                         on_finding=found),
                         lines, errors_alone_fail=True)
