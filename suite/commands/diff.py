"""`scrubcheck diff OLD.json NEW.json`: regressions and fixes between two runs.

For CI on a scrubber's own repository: keep the last report.json (or a
matrix.json), run again, diff. Exit 1 when any scenario got worse (new leaks
are listed first), 0 otherwise, 2 when a file cannot be read or is not a run
(never 1: a broken artifact must not read as a regression).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from scrubcheck.commands.options import usage_error
from scrubcheck.matrix.rundiff import NotARun, diff_runs, load_verdicts, render_diff

NAME = "diff"
HELP = "list regressions (new leaks first) and fixes between two report.json or matrix.json"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("old", type=Path, metavar="OLD.json")
    parser.add_argument("new", type=Path, metavar="NEW.json")


def run(args: argparse.Namespace) -> int:
    runs, refused = [], []
    for path in (args.old, args.new):
        try:
            runs.append(load_verdicts(path))
        except NotARun as exc:
            refused.append(str(exc))
    for message in refused:
        usage_error(NAME, message)
    if refused:
        return 2
    old, new = runs
    diffs = diff_runs(old, new)
    only_in = sorted(set(old) ^ set(new)) if len(old) > 1 or len(new) > 1 else []
    sys.stdout.write(render_diff(diffs, only_in))
    return 1 if any(d.regressions for d in diffs) else 0
