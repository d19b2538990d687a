"""`scrubcheck site`: the compliance site, static pages built from matrix.json files.

    scrubcheck site --out site reports/matrix.json
    scrubcheck site --out site --history reports/history.json old/matrix.json new/matrix.json
    scrubcheck site --lint-triage [FILE]

Reads the matrices (several: side by side, e.g. one per release of a peer) and
today's corpus, the triage file (default: the shipped scrubbers/peers/triage.toml)
and, with --history, a history file that the matrices are appended to (a run
already there is not added twice). Runs no scrubber. Exit 0 when the site was
written, 2 on bad input (the message names the file, and the line for triage).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from scrubcheck.commands.options import add_out_option, usage_for
from scrubcheck.corpus import load_corpus
from scrubcheck.peers import ManifestError, shipped_rows
from scrubcheck.site import SiteError, build_site, load_site_data
from scrubcheck.site.history import HistoryError, entries_of, merged, read_history, write_history
from scrubcheck.site.triage import lint_triage, shipped_triage_file

NAME = "site"
HELP = "build the static compliance site from matrix.json files"
_usage = usage_for(NAME)
DEFAULT_BASE = "https://OWNER.github.io/REPO"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("matrices", nargs="*", type=Path, metavar="MATRIX_JSON",
                        help="matrix.json files written by `scrubcheck matrix`; rows of "
                             "several files are shown side by side (name a release's rows "
                             "NAME@VERSION)")
    add_out_option(parser, "the folder to write the site into (created; a site written "
                   "there before is replaced)")
    parser.add_argument("--triage", type=Path, metavar="FILE",
                        help="the triage file (default: the shipped scrubbers/peers/triage.toml)")
    parser.add_argument("--history", type=Path, metavar="FILE",
                        help="a history file: the matrices are appended to it (created if "
                             "missing) and the trend page shows all of it")
    parser.add_argument("--base-url", default=DEFAULT_BASE, metavar="URL",
                        help="where the site will be served, for the badge snippets "
                             f"(default: {DEFAULT_BASE})")
    parser.add_argument("--lint-triage", action="store_true",
                        help="only check the triage file (every error with file:line); "
                             "exit 2 on any")


def _shown(path: Path) -> str:
    """A path as the pages name it: relative to the working folder when under it."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def _implementations() -> list[str]:
    return [m.name for m in shipped_rows()] + ["reference"]


def run(args: argparse.Namespace) -> int:
    triage_file = args.triage or shipped_triage_file()
    try:
        names = _implementations()
    except ManifestError as exc:
        return _usage(f"cannot read the peer manifests: {exc}")
    entries, errors = lint_triage(triage_file, names)
    if args.lint_triage:
        for error in errors:
            print(error, file=sys.stderr)
        print(f"{triage_file}: {len(entries)} entries, {len(errors)} errors")
        return 2 if errors else 0
    if errors:
        for error in errors:
            print(error, file=sys.stderr)
        return _usage(f"{triage_file}: {len(errors)} errors (fix them, or pass another "
                      "--triage)")
    if not args.matrices:
        return _usage("give at least one MATRIX_JSON")
    if args.out is None:
        return _usage("--out DIR is required")
    corpus = load_corpus()
    try:
        site = load_site_data(list(args.matrices), corpus.scenarios)
        new = entries_of(site)
        if args.history is not None:
            history, added = merged(read_history(args.history), new)
            write_history(args.history, history)
            print(f"{args.history}: {added} runs appended, {len(history)} in all")
            history_name = str(args.history)
        else:
            history, history_name = new, "the matrices given (no --history file)"
        built = build_site(site, Path(args.out), entries, history, triage_file=_shown(triage_file),
                           history_file=history_name, base_url=args.base_url)
    except (SiteError, HistoryError) as exc:
        return _usage(str(exc))
    print(f"wrote {args.out}/index.html ({built.index_bytes / 1024:.0f} KB) and "
          f"{built.pages - 1} more pages: {len(site.impls)} implementations, {len(site.ids)} "
          f"scenarios; bugs within claims: "
          + ", ".join(f"{n} {what}" for what, n in built.bugs.items())
          + f"; failure classes: {built.triaged} triaged, {built.untriaged} untriaged")
    return 0
