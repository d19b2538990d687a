"""The N shards of `scrubcheck matrix --shard K/N` as one matrix.

Each shard's matrix.json names its rows and, for each row that ran, the full
report.json beside it (`peers/<name>/report.json`). Every row's shard reports
are merged by `vectors.native.merge_runs` (`merge_shards`, which refuses anything that
is not the N parts of one run, for natively judged shards too), written as that row's
full report under the output folder, and the matrix is built from the merged runs
exactly as an unsharded `matrix` builds it.
A row that ran in some shards and not in others is refused: the merged matrix
would count it as having judged scenarios it never saw.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from scrubcheck.corpus.shard import Shard
from scrubcheck.matrix.rows import Matrix, Row
from scrubcheck.matrix.runs import keep_run, shard_sentence
from scrubcheck.matrix.stored import StoredMatrixError, load_stored_matrix
from scrubcheck.reports import read_report
from scrubcheck.runner.merge import MergeError
from scrubcheck.vectors.native import merge_runs


def merge_matrix_shards(paths: list[Path], out: Path,
                        say: Callable[[str], None] = print) -> Matrix:
    """One Matrix from the shards' matrix.json files; each row's merged report is written
    under `out/peers/<name>/`. Raises MergeError naming the file and row."""
    shards = []
    for path in paths:
        try:
            stored = load_stored_matrix(path)
        except StoredMatrixError as exc:
            raise MergeError(str(exc)) from None
        text = stored.settings.get("shard")
        if not text:
            raise MergeError(f"{path}: not a shard (made without --shard K/N)")
        shards.append((path, stored, Shard.parse(str(text))))
    first_path, first, first_shard = shards[0]
    names = [row.name for row in first.rows]
    rows = []
    for path, stored, _ in shards[1:]:
        if [row.name for row in stored.rows] != names or stored.mode != first.mode:
            raise MergeError(f"{path} and {first_path}: different rows or mode; not shards "
                             "of one matrix")
    for index, name in enumerate(names):
        ran = [(path, stored.rows[index]) for path, stored, _ in shards
               if stored.rows[index].status == "ran" and stored.rows[index].report]
        template = first.rows[index]
        row = Row(template.name, template.title, template.kind, template.package,
                  template.version, template.spec, template.status, template.model_of,
                  list(template.restrictions))
        if not ran:
            row.status = template.status
            rows.append(row)
            continue
        if len(ran) != len(shards):
            statuses = "; ".join(f"{p}: {stored.rows[index].status}" for p, stored, _ in shards)
            raise MergeError(f"row {name} ran in {len(ran)} of {len(shards)} shards ({statuses})")
        runs = []
        for path, shard_row in ran:
            report = Path(path).parent / str(shard_row.report)
            try:
                runs.append((str(report), read_report(report)))
            except (OSError, ValueError, TypeError, KeyError) as exc:
                raise MergeError(f"{report}: {exc}") from None
        row.status = "ran"
        merged = merge_runs(runs)
        keep_run(row, merged, out)
        say(f"{name}: merged {len(runs)} shards, {len(merged.results):,} scenarios")
        rows.append(row)
    note = first.mode_note.replace(shard_sentence(first_shard), "")
    # the shards run side by side (CI jobs): the whole took as long as the longest one
    matrix = Matrix(rows, first.mode, note, min(s.started_at for _, s, _ in shards),
                    max(s.duration_s for _, s, _ in shards), {**first.settings, "shard": None})
    matrix.index_scenarios()
    return matrix

