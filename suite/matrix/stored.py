"""A matrix read back from matrix.json, to render its pages again without running anything.

Running every peer takes an hour; the pages also show things that change
without a run (the observed claims, which live in the peers' manifests, and
the wording of the pages). matrix.json keeps each row's verdicts, counts and
hall of bugs, so the pages can be rendered from it
(`scrubcheck matrix --render-from reports/matrix.json`). What it does not keep,
the per-chunking failures, is needed only to judge a claim about every peer
afresh; those show the summary the run itself made.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from scrubcheck.matrix.jsonform import MATRIX_FORMAT
from scrubcheck.matrix.rows import Matrix, Row

_ROW_KEYS = ("name", "title", "kind", "package", "version", "spec", "status")


class StoredMatrixError(ValueError):
    """A file that is not a matrix.json this scrubcheck can render (names the file)."""


def load_stored_matrix(path: Path) -> Matrix:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise StoredMatrixError(f"{path}: {exc}") from exc
    if not isinstance(data, dict) or data.get("matrix_format") != MATRIX_FORMAT:
        raise StoredMatrixError(f"{path}: not a matrix.json of format {MATRIX_FORMAT}")
    rows = [_row(raw, path, i) for i, raw in enumerate(data.get("rows", []), 1)]
    if not any(r.ran for r in rows):
        raise StoredMatrixError(f"{path}: no row has a run to render")
    ids: dict[str, None] = {}
    areas: dict[str, None] = {}
    groups: dict[str, None] = {}
    for row in rows:
        ids.update(dict.fromkeys(row.verdicts()))
        areas.update(dict.fromkeys((row.stored or {}).get("areas", {})))
        groups.update(dict.fromkeys((row.stored or {}).get("rule_groups", {})))
    stored_observed = {(o["peer"], o["scenario"]): o for o in data.get("observed", [])
                       if isinstance(o, dict) and "peer" in o and "scenario" in o}
    try:
        return Matrix(rows, data["mode"], data["mode_note"], data["started_at"],
                      float(data["duration_s"]), dict(data["settings"]),
                      rendered_at=datetime.now(UTC).isoformat(timespec="seconds"),
                      stored_areas=list(areas), stored_groups=list(groups),
                      stored_ids=list(ids),
                      stored_observed=stored_observed)
    except (KeyError, TypeError, ValueError) as exc:
        raise StoredMatrixError(f"{path}: missing or malformed matrix field: {exc}") from exc


def _row(raw: object, path: Path, index: int) -> Row:
    if not isinstance(raw, dict) or any(not isinstance(raw.get(k), str) for k in _ROW_KEYS):
        raise StoredMatrixError(f"{path}: row {index} lacks one of {', '.join(_ROW_KEYS)}")
    ran = raw["status"] == "ran" and isinstance(raw.get("verdicts"), dict)
    return Row(raw["name"], raw["title"], raw["kind"], raw["package"], raw["version"],
               raw["spec"], raw["status"], raw.get("model_of"), list(raw.get("restrictions", [])),
               report=raw.get("report"), stored=raw if ran else None,
               engine=str(raw.get("engine") or ""))
