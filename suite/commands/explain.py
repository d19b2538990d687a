"""`scrubcheck explain REPORT.json`: a run's failures as the few bugs behind them.

It reads a report.json written by `scrubcheck run`, loads the scrubber that ran
(its spec is in the report) and the corpus the run read (`--corpus`, as for `run`),
shrinks each failing scenario's failures to a smallest stream in isolated workers
(`scrubcheck.explain`), and groups them by the wrong decision they show. It prints the
root causes, leaks first, each with its smallest stream and the SPEC rules it breaks;
with `--out DIR` it also writes `explanation.json`, `bugs.md`, one ready-to-file bug
report per root cause (`bugs/bug-N.md`) and the smallest streams as a corpus file
(`bugs.yaml`, to replay with `scrubcheck show ID --corpus DIR/bugs.yaml`).

Exit 0 when the report has no failing scenario, 1 when it has bugs to name, 2 on
usage errors (a report that cannot be read, a scrubber that cannot be loaded).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from scrubcheck.adapters import AdapterError
from scrubcheck.commands.options import (
    add_corpus_option,
    add_explain_options,
    add_jobs_option,
    usage_for,
)
from scrubcheck.corpus import load_corpus
from scrubcheck.explain import Explanation, explain_run, write_explanation
from scrubcheck.reports.bugs import console_lines
from scrubcheck.reports.json_report import read_report
from scrubcheck.runner import RunSettings

NAME = "explain"
HELP = "name the bugs behind a report's failures, each with its smallest stream"
_usage = usage_for(NAME)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("report", type=Path, metavar="REPORT.json",
                        help="a report.json written by `scrubcheck run --out`")
    add_corpus_option(parser)
    add_jobs_option(parser)
    add_explain_options(parser)
    parser.add_argument("--no-cache", action="store_true",
                        help="explain every failure anew (the cache keeps explanations under "
                             "the user cache dir, keyed on the implementation and harness)")
    parser.add_argument("--out", type=Path, default=None, metavar="DIR",
                        help="also write explanation.json, bugs.md, bugs/bug-N.md and "
                             "bugs.yaml there")


def run(args: argparse.Namespace) -> int:
    try:
        report = read_report(args.report)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        return _usage(f"cannot read {args.report}: {exc}")
    if args.explain_seconds <= 0 or args.explain_budget <= 0:
        return _usage("--explain-seconds and --explain-budget must be positive")
    corpus_paths = list(args.corpus) if args.corpus else (
        [Path(p) for p in report.settings.get("corpus_paths") or ()] or None)
    try:
        corpus = load_corpus(corpus_paths)
    except FileNotFoundError as exc:
        return _usage(str(exc))
    for error in corpus.errors:
        print(error, file=sys.stderr)
    try:
        explanation = explain_run(report, corpus.by_id(), jobs=RunSettings(jobs=args.jobs).workers,
                                  seconds=args.explain_seconds, budget=args.explain_budget,
                                  cache=not args.no_cache)
    except AdapterError as exc:
        return _usage(f"cannot load scrubber {report.scrubber}: {exc}")
    print_explanation(explanation, report.scrubber)
    if args.out is not None:
        for path in write_explanation(explanation, report, args.out):
            print(f"wrote: {path}")
    return 1 if explanation.failing else 0


def print_explanation(explanation: Explanation, spec: str, out=None) -> None:
    out = out or sys.stdout
    for line in console_lines(explanation.to_dict(), spec):
        print(line, file=out)

