"""`scrubcheck lint`: validate corpus files and report every problem as file:line [id]: message.

Corpus authors run it before committing; CI runs it so that a broken scenario
cannot silently drop out of the suite. Exit 0 when every file is clean, 2 on
corpus errors (as for `scrubcheck run`) and when there is no corpus to lint: a
mistyped path or a folder without *.yaml files must not pass as "0 errors".
"""

from __future__ import annotations

import argparse
from pathlib import Path

from scrubcheck.commands.options import add_corpus_option, usage_for
from scrubcheck.corpus import CorpusUnavailable, default_corpus_dir, load_corpus

NAME = "lint"
HELP = ("validate corpus YAML files (default: the shipped corpus) and list every error; "
        "exit 2 on any error")
_usage = usage_for(NAME)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="*", type=Path, metavar="PATH",
                        help="corpus files or directories (default: the shipped corpus)")
    add_corpus_option(parser)
    parser.add_argument("-q", "--quiet", action="store_true",
                        help="print only the errors, no summary")


def run(args: argparse.Namespace) -> int:
    try:
        corpus = load_corpus([*args.paths, *(args.corpus or ())] or [default_corpus_dir()])
    except CorpusUnavailable as exc:
        return _usage(str(exc))
    for error in corpus.errors:
        print(error)
    if not args.quiet:
        bad_files = len({e.file for e in corpus.errors})
        print(f"{len(corpus.files)} files, {len(corpus.scenarios)} scenarios loaded, "
              f"{len(corpus.errors)} errors" + (f" in {bad_files} files" if bad_files else ""))
    return 2 if corpus.errors else 0
