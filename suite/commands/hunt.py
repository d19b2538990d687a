"""`scrubcheck hunt`: search for inputs that break a scrubber with Hypothesis properties.

Each distinct failure (one per property and rule) is shrunk by Hypothesis to a
minimal stream and printed as a corpus scenario; `--save DIR` writes them as
YAML files for review. Exit 0 when nothing fails at `--level`, 1 on findings, 2
on usage errors.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from scrubcheck.adapters import AdapterError
from scrubcheck.hunt import Finding, HuntSettings, hunt
from scrubcheck.hunt.report import exit_code, print_finding, print_summary, save_findings
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
    parser.add_argument("--example-timeout", type=float, default=10.0, metavar="S",
                        help="seconds one case may take before it is reported as a hang")
    parser.add_argument("--level", choices=("must", "should"), default="must",
                        help="which findings make the exit code 1 (default: must)")
    parser.epilog = "properties: " + "; ".join(f"{k}: {v}" for k, v in PROPERTIES.items())


def run(args: argparse.Namespace) -> int:
    if args.time <= 0:
        return _usage("--time must be positive")
    options = HuntSettings(
        seconds=args.time, seed=args.seed, database=args.database, against=args.against,
        soup=not args.no_soup, example_timeout=args.example_timeout, linear=not args.no_linear,
    )

    def announce(finding: Finding) -> None:
        print_finding(finding)
        sys.stdout.flush()

    try:
        result = hunt(args.scrubber, options, on_finding=announce)
    except AdapterError as exc:
        return _usage(f"cannot load scrubber: {exc}")
    print_summary("hunt", result.spec, result.findings, result.seconds, [
        f"{result.examples:,} cases in {result.batches} Hypothesis runs, seed {result.seed}",
        *_linear_lines(result.linear),
    ], result.errors)
    if args.save and result.findings:
        for path in save_findings(result.findings, args.save):
            print(f"saved: {path}")
    return exit_code(result.findings, args.level)


def _linear_lines(linear) -> list[str]:  # type: ignore[no-untyped-def]
    if linear is None:
        return []
    ratios = ", ".join(f"{k} {v:g}" for k, v in linear.metrics.items() if k.startswith("ratio"))
    verdict = "FAIL" if linear.finding else "ok"
    return [f"linear time (R-ROBUST-2): {verdict} — time ratio n -> 8n: {ratios} (limit 12)"]


def _usage(message: str) -> int:
    print(f"scrubcheck hunt: {message}", file=sys.stderr)
    return 2
