"""`scrubcheck lint`: validate corpus and format files and report every problem as
file:line [id]: message.

Corpus authors run it before committing; CI runs it so that a broken scenario
cannot silently drop out of the suite. Exit 0 when every file is clean, 2 on
corpus errors (as for `scrubcheck run`) and when there is no corpus to lint: a
mistyped path or a folder without *.yaml files must not pass as "0 errors".
The shipped format registry is always checked; `--formats FILE` checks a user's
format files too (schema, delimiter rules, and that they can join the registry).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from scrubcheck.commands.options import add_corpus_option, usage_for
from scrubcheck.corpus import CorpusUnavailable, default_corpus_dir, load_corpus
from scrubcheck.formats import FormatError, shipped_format_dir
from scrubcheck.formats.registry import read_formats
from scrubcheck.vocabulary import format_problems

NAME = "lint"
HELP = ("validate corpus YAML files (default: the shipped corpus) and format files, and "
        "list every error; exit 2 on any error")
_usage = usage_for(NAME)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="*", type=Path, metavar="PATH",
                        help="corpus files or directories (default: the shipped corpus)")
    add_corpus_option(parser)
    parser.add_argument("--formats", metavar="FILE", type=Path, action="append", default=[],
                        help="format files or folders to check besides the shipped registry "
                             "(repeatable)")
    parser.add_argument("-q", "--quiet", action="store_true",
                        help="print only the errors, no summary")


def run(args: argparse.Namespace) -> int:
    missing = [p for p in args.formats if not p.exists()]
    if missing:
        return _usage(f"no such format file or folder: {', '.join(map(str, missing))}")
    try:
        corpus = load_corpus([*args.paths, *(args.corpus or ())] or [default_corpus_dir()])
    except CorpusUnavailable as exc:
        return _usage(str(exc))
    format_errors, format_count = lint_formats([shipped_format_dir(), *args.formats])
    for error in [*corpus.errors, *format_errors]:
        print(error)
    if not args.quiet:
        bad_files = len({e.file for e in corpus.errors})
        print(f"{len(corpus.files)} files, {len(corpus.scenarios)} scenarios loaded, "
              f"{len(corpus.errors)} errors" + (f" in {bad_files} files" if bad_files else ""))
        if args.formats or format_errors or not (args.paths or args.corpus):
            print(f"{format_count} formats loaded, {len(format_errors)} errors")
    return 2 if corpus.errors or format_errors else 0


def lint_formats(paths: list[Path]) -> tuple[list[FormatError], int]:
    """Every problem of the format files under `paths`, and how many formats loaded."""
    formats, errors = read_formats(paths)
    for fmt in formats:
        errors += [FormatError(fmt.file, fmt.line, p) for p in format_problems(fmt)]
    return errors, len(formats)
