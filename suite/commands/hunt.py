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

from scrubcheck.commands.options import add_shard_option, apply_claim_options, usage_for
from scrubcheck.commands.search import (
    SearchWords,
    add_search_options,
    class_line,
    report_search,
)
from scrubcheck.hunt import HuntSettings, hunt
from scrubcheck.hunt.engine import HuntResult
from scrubcheck.hunt.violation import PROPERTIES

NAME = "hunt"
HELP = "search for minimal failing streams with Hypothesis properties"
_usage = usage_for(NAME)
WORDS = SearchWords(
    time_help="seconds to hunt (approximate: a batch being shrunk finishes; default 60)",
    seed_what="the search",
    timeout_help="wall-clock seconds one case may take before the scrubber's process is "
    "killed and the case reported as a timeout; also the linear-time measurement's budget "
    "(default 10)",
    timeout_alias="--example-timeout",
    memory_what="the scrubber's process",
    memory_default="(default: no limit); past it an allocation raises MemoryError in the "
    "scrubber, an R-ROBUST-1 finding")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_search_options(parser, WORDS, after_out=_soup, after_timeout=_examples)
    add_shard_option(parser, help=(
        "one of N hunts splitting one search (needs a fixed --seed): this one runs the Hypothesis "
        "batches K-1, K-1+N, ... of the seed sequence, so N jobs search disjoint seed ranges "
        "(with --max-examples E, together the E cases of the unsharded hunt); the linear-time "
        "measurement runs in shard 1"))
    parser.epilog = "properties: " + "; ".join(f"{k}: {v}" for k, v in PROPERTIES.items())


def _soup(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--database", metavar="DIR",
                        help="Hypothesis example database (default: ~/.cache/scrubcheck/"
                             "hypothesis; 'memory' keeps nothing between runs)")
    parser.add_argument("--no-soup", action="store_true",
                        help="structured streams only (no token soup)")


def _examples(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--max-examples", type=int, default=None, metavar="N",
                        help="stop after N cases, in fixed batches: the same cases on every "
                             "machine for one --seed (default: as many as --time allows)")


def run(args: argparse.Namespace) -> int:
    if args.time <= 0 or args.timeout <= 0:
        return _usage("--time and --timeout must be positive")
    if args.max_examples is not None and args.max_examples < 1:
        return _usage("--max-examples must be at least 1")
    if args.shard is not None and args.seed is None:
        return _usage("--shard needs a fixed --seed, not random: the N shards split the "
                      "search of one seed")
    failed = apply_claim_options(args, NAME)
    if failed is not None:
        return failed
    options = HuntSettings(
        seconds=args.time, seed=args.seed, database=args.database, against=args.against,
        soup=not args.no_soup, timeout=args.timeout, linear=not args.no_linear,
        examples=args.max_examples, memory_limit=args.memory_limit, shard=args.shard,
        conformance_class=args.claim,
    )

    def lines(result: HuntResult) -> list[str]:
        return [f"{result.examples:,} cases in {result.batches} Hypothesis runs, seed "
                f"{result.seed}" + (f", shard {args.shard}" if args.shard else ""),
                *class_line(result.conformance_class)]

    return report_search(NAME, args, lambda found: hunt(args.scrubber, options,
                                                        on_finding=found), lines)
