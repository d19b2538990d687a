"""`scrubcheck lint`: validate corpus files and report every problem as file:line [id]: message.

Corpus authors run it before committing; CI runs it so that a broken scenario
cannot silently drop out of the suite.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from scrubcheck.corpus import corpus_files, default_corpus_dir, load_corpus

NAME = "lint"
HELP = "validate corpus YAML files (default: the shipped corpus) and list every error"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="*", type=Path, metavar="PATH",
                        help="corpus files or directories (default: the shipped corpus)")
    parser.add_argument("-q", "--quiet", action="store_true",
                        help="print only the errors, no summary")


def run(args: argparse.Namespace) -> int:
    paths = list(args.paths) or [default_corpus_dir()]
    try:
        corpus_files(paths)
    except FileNotFoundError as exc:
        print(f"scrubcheck lint: {exc}", file=sys.stderr)
        return 2
    corpus = load_corpus(paths)
    for error in corpus.errors:
        print(error)
    if not args.quiet:
        bad_files = len({e.file for e in corpus.errors})
        print(f"{len(corpus.files)} files, {len(corpus.scenarios)} scenarios loaded, "
              f"{len(corpus.errors)} errors" + (f" in {bad_files} files" if bad_files else ""))
    return 1 if corpus.errors else 0
