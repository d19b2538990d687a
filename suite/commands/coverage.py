"""`scrubcheck coverage`: a Markdown report of scenarios per SPEC rule, area and feature.

Exit 1 when a rule has fewer than the minimum number of scenarios, so CI can
insist that every rule is really tested; 2 on corpus errors (printed as
file:line [id]: message, the report still counts what loaded) and when there is
no corpus at all (a mistyped path, a folder without *.yaml files).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from scrubcheck.commands.options import add_corpus_option, add_out_option, usage_for
from scrubcheck.corpus import CorpusUnavailable, default_corpus_dir, load_corpus
from scrubcheck.corpus.coverage import MIN_SCENARIOS, rule_coverage
from scrubcheck.reports.coverage import render

NAME = "coverage"
HELP = "report how many corpus scenarios exercise each SPEC rule, area and feature"
_usage = usage_for(NAME)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="*", type=Path, metavar="PATH",
                        help="corpus files or directories (default: the shipped corpus)")
    add_corpus_option(parser)
    add_out_option(parser, "write the Markdown report here (default: print it)",
                   metavar="FILE")


def run(args: argparse.Namespace) -> int:
    try:
        corpus = load_corpus([*args.paths, *(args.corpus or ())] or [default_corpus_dir()])
    except CorpusUnavailable as exc:
        return _usage(str(exc))
    report = render(corpus)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(report, encoding="utf-8")
    else:
        print(report)
    thin = [c for c in rule_coverage(corpus.scenarios) if not c.enough]
    for c in thin:
        print(f"{c.rule.id} ({c.rule.level}) has {c.count} scenarios, fewer than {MIN_SCENARIOS}",
              file=sys.stderr)
    for error in corpus.errors:
        print(error, file=sys.stderr)
    if corpus.errors:
        print(f"{len(corpus.errors)} corpus errors: the counts above leave those scenarios out "
              "(exit 2)", file=sys.stderr)
        return 2
    return 1 if thin else 0
