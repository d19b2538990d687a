"""`scrubcheck matrix`: run the reference and every installed peer, write the matrix.

Writes matrix.md, matrix.html and matrix.json in --out, and each
implementation's full report under --out/peers/<name>/. Exit 0 when the
matrix was written (the peers' failures are its content, not an error), 2 on
usage errors.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from scrubcheck.corpus import load_corpus
from scrubcheck.matrix import run_matrix, write_matrix
from scrubcheck.peers import ManifestError, shipped_manifests
from scrubcheck.runner import RunSettings
from scrubcheck.runner.settings import default_jobs

NAME = "matrix"
HELP = "run every installed peer and the reference; write the compliance matrix"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--peers", action="append", metavar="NAMES",
                        help="only these peers (comma-separated, repeatable; default: all "
                             "installed); the reference always runs")
    parser.add_argument("--out", type=Path, default=Path("reports"), metavar="DIR",
                        help="where to write the matrix (default: reports/)")
    parser.add_argument("--jobs", type=int, default=None, metavar="N",
                        help=f"worker processes per run (default: all cores: {default_jobs()})")
    parser.add_argument("--quick", action="store_true",
                        help="fewer chunkings per scenario (recorded, whole, char, fixed, tags, "
                             "2 random, splits and cuts near tags); recorded in the matrix")
    parser.add_argument("--reuse", action="store_true",
                        help="keep runs already in --out made with the same settings")
    parser.add_argument("--timeout", type=float, default=120.0, metavar="S",
                        help="seconds per scenario (default 120: peers answer over a pipe)")
    parser.add_argument("--seed", type=int, default=0, metavar="N")
    parser.add_argument("--no-progress", action="store_true", help="no progress bars")
    parser.add_argument("--render-from", type=Path, metavar="MATRIX_JSON",
                        help="run nothing: write the pages (and matrix.json) in --out again "
                             "from the runs kept in this matrix.json, with the observed "
                             "claims of today's peer manifests")


def run(args: argparse.Namespace) -> int:
    if args.render_from:
        return render_from(args.render_from, args.out)
    try:
        manifests = shipped_manifests()
    except ManifestError as exc:
        print(f"scrubcheck matrix: {exc}", file=sys.stderr)
        return 2
    requested = {n.strip() for group in args.peers or () for n in group.split(",") if n.strip()}
    known = {m.name for m in manifests}
    unknown = requested - known
    if unknown:
        print(f"scrubcheck matrix: unknown peer(s) {', '.join(sorted(unknown))}",
              file=sys.stderr)
        return 2
    if requested:
        manifests = [m for m in manifests if m.name in requested]
    corpus = load_corpus(None)
    for error in corpus.errors:
        print(error, file=sys.stderr)
    settings = RunSettings(seed=args.seed, timeout_s=args.timeout, jobs=args.jobs)
    from scrubcheck.matrix.build import matrix_settings

    settings = matrix_settings(settings, args.quick)
    matrix = run_matrix(manifests, requested, corpus.scenarios, settings, args.out,
                        quick=args.quick, reuse=args.reuse, progress=not args.no_progress)
    for path in write_matrix(matrix, args.out):
        print(f"wrote {path}")
    return 0

def render_from(path: Path, out: Path) -> int:
    """The pages again from a stored matrix.json: no implementation runs."""
    from scrubcheck.matrix.stored import StoredMatrixError, load_stored_matrix

    try:
        matrix = load_stored_matrix(path)
    except (StoredMatrixError, ManifestError) as exc:
        print(f"scrubcheck matrix: {exc}", file=sys.stderr)
        return 2
    for written in write_matrix(matrix, out):
        print(f"wrote {written}")
    return 0
