"""`scrubcheck fuzz`: coverage-guided fuzzing (atheris/libFuzzer) of a scrubber.

Saved crash inputs are replayed first; then `--jobs` fuzzing processes run for
`--time` seconds. Each distinct failure is shrunk and printed as a minimal
corpus scenario (`--out DIR` writes them). The same fuzz target runs on
OSS-Fuzz / ClusterFuzzLite: see fuzz/README.md. Exit 0 when nothing fails at
`--level`, 1 on findings, 2 on usage errors (atheris missing included).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from scrubcheck.adapters import AdapterError
from scrubcheck.commands.options import (
    add_against_option,
    add_alias,
    add_jobs_option,
    add_level_option,
    add_memory_limit_option,
    add_no_linear_option,
    add_out_option,
    add_scrubber_option,
    add_seed_option,
    add_timeout_option,
    usage_for,
)
from scrubcheck.hunt import Finding
from scrubcheck.hunt.findings_output import (
    exit_code,
    linear_lines,
    print_finding,
    print_summary,
    save_findings,
)
from scrubcheck.hunt.fuzzing import FuzzSettings, atheris_problem, fuzz

NAME = "fuzz"
HELP = "coverage-guided fuzzing with atheris; findings become minimal scenarios"
_usage = usage_for(NAME)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_scrubber_option(parser)
    add_against_option(parser)
    parser.add_argument("--time", type=float, default=60.0, metavar="S",
                        help="seconds to fuzz (default 60)")
    add_jobs_option(parser, "fuzzing processes in parallel", default=1)
    add_seed_option(parser, "libFuzzer's search (each process and run derives its own)",
                    random_ok=True)
    add_out_option(parser, "write each finding to DIR/<id>.yaml for review", old=("--save",))
    parser.add_argument("--work-dir", type=Path, metavar="DIR",
                        help="corpus and crash inputs (default: ~/.cache/scrubcheck/fuzz/<spec>)")
    parser.add_argument("--no-replay", action="store_true",
                        help="do not replay the saved crash inputs first")
    parser.add_argument("--input", action="append", type=Path, metavar="FILE",
                        help="do not fuzz: turn this crash input (from OSS-Fuzz, say) into a "
                             "scenario (repeatable)")
    add_no_linear_option(parser)
    timeout = add_timeout_option(
        parser, 10.0, "wall-clock seconds one input may take before it is reported as a "
        "timeout (libFuzzer's -timeout, rounded up to whole seconds; replays and shrinking in "
        "the parent's sandbox process use it exactly); also the linear-time measurement's "
        "budget (default 10)")
    add_alias(parser, "--input-timeout", timeout)
    add_memory_limit_option(parser, "each fuzzing process (libFuzzer's -rss_limit_mb) and the "
                            "process replaying its inputs", "(default: 4G for libFuzzer, no "
                            "limit for the replays)")
    add_level_option(parser, "findings")


def run(args: argparse.Namespace) -> int:
    if args.time <= 0 or args.jobs < 1 or args.timeout <= 0:
        return _usage("--time and --timeout must be positive and --jobs at least 1")
    missing = [str(p) for p in args.input or () if not p.is_file()]
    if missing:
        return _usage("no such input file: " + ", ".join(missing))
    problem = atheris_problem()
    if problem and not args.input:
        return _usage(problem)
    options = FuzzSettings(seconds=args.time, jobs=args.jobs, seed=args.seed,
                           work_dir=args.work_dir, against=args.against,
                           timeout=args.timeout, memory_limit=args.memory_limit,
                           replay=not args.no_replay, inputs=tuple(args.input or ()),
                           linear=not args.no_linear)

    def announce(finding: Finding) -> None:
        print_finding(finding)
        sys.stdout.flush()

    try:
        result = fuzz(args.scrubber, options, on_finding=announce)
    except AdapterError as exc:
        return _usage(f"cannot load scrubber: {exc}")
    print_summary("fuzz", result.spec, result.findings, result.seconds, [
        f"{result.executions:,} inputs executed by {result.runs} fuzzing process runs "
        f"({args.jobs} in parallel); {result.replayed} saved crash inputs replayed first",
        f"work directory: {result.work_dir}",
        *linear_lines(result.linear),
    ], result.errors)
    if args.out and result.findings:
        for path in save_findings(result.findings, args.out):
            print(f"saved: {path}")
    if result.errors and not result.findings:
        return 2
    return exit_code(result.findings, args.level)
