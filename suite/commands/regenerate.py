"""`scrubcheck regenerate`: rebuild every committed report and docs quote that is stale.

The committed reports (coverage, the reference run, the compliance matrix, the
gateway audits, the docs pages' tables) must describe the checkout; the tests insist.
This command finds which no longer do (`--check` stops there: exit 1 naming
each) and rebuilds those, running implementations through the result cache, so
that adding a scenario reruns that scenario on every row instead of the whole
corpus. Exit 0 when everything chosen is current at the end, 1 when a target
could not be rebuilt here (a peer or gateway not installed: the message names
the install command) or `--check` found one stale, 2 on usage errors.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from scrubcheck.cachedir import cache_dir
from scrubcheck.commands.options import add_jobs_option, add_progress_option, usage_for
from scrubcheck.corpus import load_corpus
from scrubcheck.regenerate import TARGETS, Context, choose, regenerate
from scrubcheck.regenerate.targets import gateway_cache
from scrubcheck.runner.cache import ResultCache

NAME = "regenerate"
HELP = "rebuild the committed reports and docs tables that no longer match the checkout"
_usage = usage_for(NAME)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--only", action="append", metavar="TARGETS",
                        help="only these targets (comma-separated, repeatable): "
                             + ", ".join(t.name for t in TARGETS))
    parser.add_argument("--check", action="store_true",
                        help="write nothing: say which targets are stale and why; exit 1 "
                             "if any is")
    parser.add_argument("--force", action="store_true",
                        help="rebuild the chosen targets even when they look current")
    parser.add_argument("--no-cache", action="store_true",
                        help="run every row in full, neither reading nor writing the result "
                             "cache (its folder is safe to delete at any time)")
    parser.add_argument("--list", action="store_true", help="list the targets and exit")
    parser.add_argument("--root", type=Path, default=Path("."), metavar="DIR",
                        help="the checkout whose reports/ and docs/ are regenerated "
                             "(default: the current folder)")
    add_jobs_option(parser, "worker processes per run", default=2)
    add_progress_option(parser)


def run(args: argparse.Namespace) -> int:
    if args.list:
        for target in TARGETS:
            print(f"{target.name:10} {target.about}")
        return 0
    names = [n.strip() for group in args.only or () for n in group.split(",") if n.strip()]
    try:
        targets = choose(names)
    except ValueError as exc:
        return _usage(str(exc))
    if args.jobs < 1:
        return _usage("--jobs must be at least 1")
    root = args.root.resolve()
    if not (root / "README.md").is_file() or not (root / "reports").is_dir():
        return _usage(f"{root} holds no README.md and reports/: run it in a scrubcheck "
                      "checkout or pass --root")
    corpus = load_corpus(None)
    if corpus.errors:
        for error in corpus.errors:
            print(error, file=sys.stderr)
        return _usage(f"the corpus has {len(corpus.errors)} errors (scrubcheck lint): the "
                      "committed reports are made from a clean corpus")
    cache = None if args.no_cache else ResultCache()
    ctx = Context(root, corpus, cache, None if args.no_cache else gateway_cache(None),
                  args.jobs, say=lambda line: print(line, flush=True),
                  progress=not args.no_progress, rerun=args.force)
    outcomes = regenerate(ctx, targets, check=args.check, force=args.force)
    print()
    for outcome in outcomes:
        detail = f": {outcome.detail}" if outcome.detail else ""
        print(f"{outcome.target:10} {outcome.state:8} {outcome.seconds:7.1f} s{detail}")
        for path in outcome.written:
            print(f"{'':10} wrote {_shown(path, root)}")
    if cache is not None and not args.check:
        print(f"result cache: {cache.folder} ({cache.reused} results reused, {cache.ran} "
              f"run); safe to delete: {cache_dir() / 'results'}")
    bad = [o for o in outcomes if o.state in ("stale", "cannot")]
    return 1 if bad else 0


def _shown(path: Path, root: Path) -> str:
    try:
        return str(path.resolve().relative_to(root))
    except ValueError:
        return str(path)
