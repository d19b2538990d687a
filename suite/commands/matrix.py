"""`scrubcheck matrix`: run the reference and every installed peer, write the matrix.

Writes matrix.md, matrix.html and matrix.json in --out, and each
implementation's full report under --out/peers/<name>/. `--scrubber SPEC` adds
a row for any scrubber `run` takes (an implementer comparing builds of their
own with the reference and the peers); `--area`/`--id` narrow the corpus, and
the page says so. `--timeout` is the wall-clock budget of each scenario and of
each row's linear-time check, exactly as in `run`: a row that hangs, crashes
or runs out of memory costs its own scenarios (TIMEOUT or ERROR) and nothing
of the other rows. Each row's failures within its claim are explained as bugs
(matrix.bugs: shrunk, grouped, each with its smallest stream) unless
`--no-explain`. Exit 0 when the matrix was written (the implementations'
failures are its content, not an error), 2 on usage errors.
"""

from __future__ import annotations

import argparse
import sys
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from scrubcheck.adapters import AdapterError
from scrubcheck.commands.options import (
    add_dask_options,
    add_explain_options,
    add_formats_option,
    add_jobs_option,
    add_memory_limit_option,
    add_out_option,
    add_progress_option,
    add_scrubber_option,
    add_seed_option,
    add_shard_option,
    add_timeout_option,
    apply_formats,
    usage_for,
)
from scrubcheck.commands.run import slug
from scrubcheck.corpus import load_corpus, select
from scrubcheck.distributed.dask_runner import DaskError
from scrubcheck.matrix import run_matrix, write_matrix
from scrubcheck.matrix.bugs import Explaining
from scrubcheck.matrix.runs import RowRunner
from scrubcheck.peers import ManifestError, shipped_rows
from scrubcheck.peers.manifest import split_release, with_releases
from scrubcheck.runner import RunSettings, load_scrubber

NAME = "matrix"
HELP = "run every installed peer and the reference; write the compliance matrix"
_usage = usage_for(NAME)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--peers", action="append", metavar="NAMES",
                        help="only these peers (comma-separated, repeatable; default: all "
                             "installed); the reference always runs")
    parser.add_argument("--no-peers", action="store_true",
                        help="no peer rows: the reference and the --scrubber rows only")
    add_scrubber_option(parser, "also run this scrubber as a row of its own, named after "
                        "the spec", repeatable=True)
    parser.add_argument("--add-report", action="append", metavar="NAME=REPORT_JSON", default=[],
                        help="also show a row read from a report.json (e.g. scrubcheck-vectors "
                             "judging a JS scrubber); its corpus digest must be the selection's")
    parser.add_argument("--area", action="append", metavar="A",
                        help="only scenarios of this area (repeatable; default: the whole "
                             "corpus)")
    parser.add_argument("--id", action="append", metavar="GLOB",
                        help="only these scenario ids (repeatable, globs work)")
    add_out_option(parser, "where to write the matrix (default: reports/)",
                   default=Path("reports"))
    add_jobs_option(parser, "worker processes per run")
    parser.add_argument("--no-explain", action="store_true",
                        help="do not explain each row's failures within its claim as bugs")
    add_explain_options(parser, budget=300.0, of="each row's explanation")
    parser.add_argument("--quick", action="store_true",
                        help="fewer chunkings per scenario (recorded, whole, char, fixed, tags, "
                             "2 random, splits and cuts near tags); recorded in the matrix")
    parser.add_argument("--reuse", action="store_true",
                        help="keep runs already in --out made with the same settings")
    add_timeout_option(parser, 120.0, "wall-clock seconds per scenario, and for each row's "
                       "linear-time check, before the implementation is killed (default 120: "
                       "peers answer over a pipe)")
    add_memory_limit_option(parser)
    add_seed_option(parser)
    add_progress_option(parser)
    parser.add_argument("--render-from", type=Path, metavar="MATRIX_JSON",
                        help="run nothing: write the pages (and matrix.json) in --out again "
                             "from the runs kept in this matrix.json, with the observed "
                             "claims of today's peer manifests")
    add_shard_option(parser)
    add_dask_options(parser)
    add_formats_option(parser)


def run(args: argparse.Namespace) -> int:
    failed = apply_formats(args, NAME)  # before the corpus is read: its families expand
    if failed is not None:
        return failed
    if args.render_from:
        return render_from(args.render_from, args.out)
    if args.timeout <= 0:
        return _usage("--timeout must be positive")
    try:
        manifests = shipped_rows()
    except ManifestError as exc:
        return _usage(str(exc))
    requested = {n.strip() for group in args.peers or () for n in group.split(",") if n.strip()}
    known = {m.name for m in manifests}
    unknown = {n for n in requested if split_release(n)[0] not in known}
    if unknown:
        return _usage(f"unknown peer(s) {', '.join(sorted(unknown))}")
    # NAME@VERSION rows: other releases of a peer's package, each row named by its version
    manifests = with_releases(manifests, sorted(requested))
    if args.no_peers and requested:
        return _usage("--no-peers and --peers contradict each other")
    if requested or args.no_peers:
        manifests = [m for m in manifests if m.name in requested]
    scrubbers = [(slug(spec), spec) for spec in dict.fromkeys(args.scrubber)]
    taken = {"reference", *known}
    clash = [spec for name, spec in scrubbers if name in taken]
    if clash:
        return _usage(f"--scrubber {clash[0]}: its row name clashes with the reference or a "
                      "peer (the reference always runs; name peers with --peers)")
    for _, spec in scrubbers:
        try:  # a mistyped spec, or one that hangs or crashes on import, is a usage error
            load_scrubber(spec, timeout_s=args.timeout, memory_limit=args.memory_limit)
        except AdapterError as exc:
            return _usage(f"cannot load scrubber: {exc}")
    corpus = load_corpus(None)
    for error in corpus.errors:
        print(error, file=sys.stderr)
    scenarios = select(corpus.scenarios, areas=args.area, ids=args.id)
    if not scenarios:
        return _usage(f"no scenario matches the selection ({len(corpus.scenarios)} loaded)")
    try:
        reports = _reports(args.add_report, scenarios, taken | {name for name, _ in scrubbers})
    except ValueError as exc:
        return _usage(str(exc))
    settings = RunSettings(seed=args.seed, timeout_s=args.timeout, jobs=args.jobs,
                           memory_limit=args.memory_limit)
    from scrubcheck.matrix.runs import matrix_settings

    settings = matrix_settings(settings, args.quick)
    if args.dask and args.shard:
        return _usage("--dask splits the work into shards itself; drop --shard")
    with ExitStack() as stack:
        runner = None
        try:
            if args.dask:
                runner = _dask_runner(args, scenarios, settings, stack)
            matrix = run_matrix(manifests, requested, scenarios, settings, args.out,
                                quick=args.quick, reuse=args.reuse,
                                progress=not args.no_progress, scrubbers=scrubbers,
                                shard=args.shard, runner=runner, reports=reports,
                                selection=_selection(args, len(scenarios),
                                                     len(corpus.scenarios)),
                                explaining=None if args.no_explain else Explaining(
                                    args.explain_seconds, args.explain_budget,
                                    settings.workers,
                                    timeout=args.explain_seconds + args.timeout))
        except DaskError as exc:
            return _usage(str(exc))
    for path in write_matrix(matrix, args.out):
        print(f"wrote {path}")
    return 0


def _reports(given: list[str], scenarios: list, taken: set[str]) -> list[tuple[str, str, Any]]:
    """(name, path, run) of each --add-report NAME=PATH; ValueError naming the bad one."""
    from scrubcheck.corpus.fingerprint import corpus_digest
    from scrubcheck.reports.json_report import read_report

    digest = corpus_digest(scenarios)
    out = []
    for item in given:
        name, _, path = item.partition("=")
        if not name or not path:
            raise ValueError(f"--add-report {item!r}: expected NAME=path/to/report.json")
        if name in taken:
            raise ValueError(f"--add-report {item!r}: the row name {name} is taken")
        try:
            run = read_report(Path(path))
        except (OSError, ValueError, TypeError, KeyError) as exc:
            raise ValueError(f"--add-report {item!r}: {path} is not a report.json ({exc})") from exc
        if run.settings.get("corpus_digest") != digest:
            raise ValueError(f"--add-report {item!r}: {path} judged corpus "
                             f"{run.settings.get('corpus_digest')}, the selection is {digest} "
                             "(export the vectors with the same selection)")
        taken.add(name)
        out.append((name, path, run))
    return out


def _dask_runner(args: argparse.Namespace, scenarios: list, settings: RunSettings,
                 stack: ExitStack) -> RowRunner:
    """Rows × shards on the Dask cluster at --dask (its client closed with `stack`)."""
    from scrubcheck.distributed.dask_runner import connect, dask_rows
    from scrubcheck.distributed.job import Selection

    client = connect(args.dask)
    stack.callback(client.close)
    return dask_rows(client, Selection.of(None, args.area, None, None, args.id), scenarios,
                     settings, args.dask_shards)


def _selection(args: argparse.Namespace, chosen: int, loaded: int) -> str:
    """Words for the page when not every scenario ran ('' when all did)."""
    if chosen == loaded:
        return ""
    given = [f"--area {a}" for a in args.area or ()] + [f"--id {i}" for i in args.id or ()]
    return f"{chosen:,} of the {loaded:,} scenarios ({' '.join(given)})"


def render_from(path: Path, out: Path) -> int:
    """The pages again from a stored matrix.json: no implementation runs."""
    from scrubcheck.matrix.stored import StoredMatrixError, load_stored_matrix

    try:
        matrix = load_stored_matrix(path)
    except (StoredMatrixError, ManifestError) as exc:
        return _usage(str(exc))
    for written in write_matrix(matrix, out):
        print(f"wrote {written}")
    return 0
