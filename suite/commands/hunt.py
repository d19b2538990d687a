"""`scrubcheck hunt`: search for inputs that break a scrubber with Hypothesis properties.

Each distinct failure (one per property and rule) is shrunk by Hypothesis to a
minimal stream and printed as a corpus scenario; `--save DIR` writes them as
YAML files for review. The scrubber runs in a child process: a case that takes
more than `--timeout` wall-clock seconds is a `timeout` finding, one that ends
the process (a segfault, `os._exit`) a `crash` finding, and what it prints is
captured, never shown on this console. Exit 0 when nothing fails at `--level`,
1 on findings, 2 on usage errors.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from scrubcheck.adapters import AdapterError
from scrubcheck.commands.options import add_alias, add_shard_option, size_argument
from scrubcheck.hunt import Finding, HuntSettings, hunt
from scrubcheck.hunt.report import (
    exit_code,
    linear_lines,
    print_finding,
    print_summary,
    save_findings,
)
from scrubcheck.hunt.violation import PROPERTIES

NAME = "hunt"
HELP = "search for minimal failing streams with Hypothesis properties"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--scrubber", default="reference", metavar="SPEC",
                        help="module:attr, path/file.py:attr, a registered name (optionally "
                             "prefixed batch: or splitter:) or peer:NAME (default: reference)")
    parser.add_argument("--against", metavar="SPEC",
                        help="differential mode: also report where the two scrubbers disagree")
    parser.add_argument("--time", type=float, default=60.0, metavar="S",
                        help="seconds to hunt (approximate: a batch being shrunk finishes; "
                             "default 60)")
    parser.add_argument("--seed", type=int, default=None, metavar="N",
                        help="seed of the search (default: random, printed)")
    parser.add_argument("--save", type=Path, metavar="DIR",
                        help="write each finding to DIR/<id>.yaml for review")
    parser.add_argument("--database", metavar="DIR",
                        help="Hypothesis example database (default: ~/.cache/scrubcheck/"
                             "hypothesis; 'memory' keeps nothing between runs)")
    parser.add_argument("--no-soup", action="store_true",
                        help="structured streams only (no token soup)")
    parser.add_argument("--no-linear", action="store_true",
                        help="skip the linear-time measurement (R-ROBUST-2)")
    timeout = parser.add_argument(
        "--timeout", type=float, default=10.0, metavar="S",
        help="wall-clock seconds one case may take before the scrubber's process is killed "
             "and the case reported as a timeout; also the linear-time measurement's budget "
             "(default 10)")
    add_alias(parser, "--example-timeout", timeout)
    parser.add_argument("--max-examples", type=int, default=None, metavar="N",
                        help="stop after N cases, in fixed batches: the same cases on every "
                             "machine for one --seed (default: as many as --time allows)")
    parser.add_argument("--memory-limit", type=size_argument, metavar="SIZE",
                        help="memory the scrubber's process may allocate, e.g. 512M or 2G "
                             "(default: no limit); past it an allocation raises MemoryError "
                             "in the scrubber, an R-ROBUST-1 finding")
    parser.add_argument("--level", choices=("must", "should"), default="must",
                        help="which findings make the exit code 1 (default: must)")
    add_shard_option(parser, help=(
        "one of N hunts splitting one search (needs --seed): this one runs the Hypothesis "
        "batches K-1, K-1+N, ... of the seed sequence, so N jobs search disjoint seed ranges "
        "(with --max-examples E, together the E cases of the unsharded hunt); the linear-time "
        "measurement runs in shard 1"))
    parser.epilog = "properties: " + "; ".join(f"{k}: {v}" for k, v in PROPERTIES.items())


def run(args: argparse.Namespace) -> int:
    if args.time <= 0 or args.timeout <= 0:
        return _usage("--time and --timeout must be positive")
    if args.max_examples is not None and args.max_examples < 1:
        return _usage("--max-examples must be at least 1")
    if args.shard is not None and args.seed is None:
        return _usage("--shard needs --seed: the N shards split the search of one seed")
    options = HuntSettings(
        seconds=args.time, seed=args.seed, database=args.database, against=args.against,
        soup=not args.no_soup, timeout=args.timeout, linear=not args.no_linear,
        examples=args.max_examples, memory_limit=args.memory_limit, shard=args.shard,
    )

    def announce(finding: Finding) -> None:
        print_finding(finding)
        sys.stdout.flush()

    try:
        result = hunt(args.scrubber, options, on_finding=announce)
    except AdapterError as exc:
        return _usage(f"cannot load scrubber: {exc}")
    print_summary("hunt", result.spec, result.findings, result.seconds, [
        f"{result.examples:,} cases in {result.batches} Hypothesis runs, seed {result.seed}"
        + (f", shard {args.shard}" if args.shard else ""),
        *linear_lines(result.linear),
    ], result.errors)
    if args.save and result.findings:
        for path in save_findings(result.findings, args.save):
            print(f"saved: {path}")
    return exit_code(result.findings, args.level)


def _usage(message: str) -> int:
    print(f"scrubcheck hunt: {message}", file=sys.stderr)
    return 2
