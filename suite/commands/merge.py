"""`scrubcheck merge`: the shards of one run (`run --shard K/N`) as that one run.

    scrubcheck merge shard-*/report.json --out reports/mine

Writes the same report.md, report.html, report.json, junit.xml as an unsharded
run would, prints the same summary and exits with the same code (0 ok, 1
failures at `--level`, 130 if a shard was interrupted). Refuses with exit 2,
writing nothing, when the reports are not all the shards of one run (a shard
missing or given twice, a scenario in two shards, or any disagreement in corpus,
SPEC, scrubcheck or implementation version, seed, level, timeouts...).

Given the matrix.json files of `matrix --shard K/N` runs instead, it merges each
implementation's shard reports (found beside each matrix.json) and writes the
matrix (matrix.md, .html, .json and every implementation's full report) to
`--out`.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from scrubcheck.commands.options import add_level_option, add_out_option, usage_for
from scrubcheck.commands.run import slug, write_all
from scrubcheck.reports.console import print_summary
from scrubcheck.results import RunResult
from scrubcheck.runner.merge import MergeError
from scrubcheck.vectors.native import merge_runs

NAME = "merge"
HELP = "combine the shard reports of `run --shard K/N` (or matrix --shard) into one run"
_usage = usage_for(NAME)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("reports", nargs="+", type=Path, metavar="REPORT.json",
                        help="each shard's report.json (or each shard's matrix.json)")
    add_out_option(parser, "write the merged reports there (--out alone: reports/<scrubber>/; "
                   "for matrices, always written: reports/)", optional=True,
                   old=("--report-dir",))
    add_level_option(parser, default=None, default_text="the shards' own")


def run(args: argparse.Namespace) -> int:
    try:
        loaded = [(str(path), _load(path)) for path in args.reports]
    except MergeError as exc:
        return _usage(str(exc))
    matrices = [label for label, data in loaded if "matrix_format" in data]
    if matrices:
        if len(matrices) != len(loaded):
            return _usage("give either run reports (report.json) or matrices (matrix.json), "
                          "not both")
        return _merge_matrices(args, [Path(label) for label in matrices])
    try:
        runs = [(label, RunResult.from_dict(_run_fields(data))) for label, data in loaded]
        merged = merge_runs(runs)
    except (MergeError, TypeError, KeyError, ValueError) as exc:
        return _usage(str(exc))
    level = args.level or str(merged.settings.get("level") or "must")
    print(f"merged {len(runs)} shards: {len(merged.results):,} scenarios")
    print_summary(merged, level)
    if args.out is not None:
        report_dir = Path(args.out or Path("reports") / slug(merged.scrubber))
        for path in write_all(merged, report_dir):
            print(f"report: {path}")
    return merged.exit_code(level)


def _load(path: Path) -> dict:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise MergeError(f"{path}: {exc}") from None
    if not isinstance(data, dict) or not ("results" in data or "matrix_format" in data):
        raise MergeError(f"{path}: not a scrubcheck report.json or matrix.json")
    return data


def _run_fields(data: dict) -> dict:
    return {k: v for k, v in data.items() if k not in ("$schema", "format_version")}


def _merge_matrices(args: argparse.Namespace, paths: list[Path]) -> int:
    from scrubcheck.matrix import write_matrix
    from scrubcheck.matrix.merge import merge_matrix_shards

    out = Path(args.out or "reports")
    try:
        matrix = merge_matrix_shards(paths, out, say=print)
    except MergeError as exc:
        return _usage(str(exc))
    for path in write_matrix(matrix, out):
        print(f"wrote {path}")
    return 0
