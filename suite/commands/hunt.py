"""`scrubcheck hunt`: search for inputs that break a scrubber with Hypothesis properties.

Each distinct failure (one per property and rule) is shrunk by Hypothesis to a
minimal stream and printed as a corpus scenario; `--out DIR` writes them as
YAML files for review. The scrubber runs in a child process: a case that takes
more than `--timeout` wall-clock seconds is a `timeout` finding, one that ends
the process (a segfault, `os._exit`) a `crash` finding, and what it prints is
captured, never shown on this console. Exit 0 when nothing fails at `--level`,
1 on findings, 2 on usage errors.
"""

from __future__ import annotations

import argparse
import sys

from scrubcheck.adapters import AdapterError
from scrubcheck.commands.options import (
    add_against_option,
    add_alias,
    add_level_option,
    add_memory_limit_option,
    add_no_linear_option,
    add_out_option,
    add_scrubber_option,
    add_seed_option,
    add_shard_option,
    add_timeout_option,
    usage_for,
)
from scrubcheck.hunt import Finding, HuntSettings, hunt
from scrubcheck.hunt.findings_output import (
    exit_code,
    linear_lines,
    print_finding,
    print_summary,
    save_findings,
)
from scrubcheck.hunt.violation import PROPERTIES

NAME = "hunt"
HELP = "search for minimal failing streams with Hypothesis properties"
_usage = usage_for(NAME)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_scrubber_option(parser)
    add_against_option(parser)
    parser.add_argument("--time", type=float, default=60.0, metavar="S",
                        help="seconds to hunt (approximate: a batch being shrunk finishes; "
                             "default 60)")
    add_seed_option(parser, "the search", random_ok=True)
    add_out_option(parser, "write each finding to DIR/<id>.yaml for review", old=("--save",))
    parser.add_argument("--database", metavar="DIR",
                        help="Hypothesis example database (default: ~/.cache/scrubcheck/"
                             "hypothesis; 'memory' keeps nothing between runs)")
    parser.add_argument("--no-soup", action="store_true",
                        help="structured streams only (no token soup)")
    add_no_linear_option(parser)
    timeout = add_timeout_option(
        parser, 10.0, "wall-clock seconds one case may take before the scrubber's process is "
        "killed and the case reported as a timeout; also the linear-time measurement's budget "
        "(default 10)")
    add_alias(parser, "--example-timeout", timeout)
    parser.add_argument("--max-examples", type=int, default=None, metavar="N",
                        help="stop after N cases, in fixed batches: the same cases on every "
                             "machine for one --seed (default: as many as --time allows)")
    add_memory_limit_option(parser, "the scrubber's process",
                            "(default: no limit); past it an allocation raises MemoryError "
                            "in the scrubber, an R-ROBUST-1 finding")
    add_level_option(parser, "findings")
    add_shard_option(parser, help=(
        "one of N hunts splitting one search (needs a fixed --seed): this one runs the Hypothesis "
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
        return _usage("--shard needs a fixed --seed, not random: the N shards split the "
                      "search of one seed")
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
    if args.out and result.findings:
        for path in save_findings(result.findings, args.out):
            print(f"saved: {path}")
    return exit_code(result.findings, args.level)
