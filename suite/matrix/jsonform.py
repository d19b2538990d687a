"""matrix.json: the matrix in machine form (per-implementation verdicts, counts, hall of bugs).

The full runs stay in each implementation's own report.json (peers/<name>/);
this file is what `scrubcheck diff` and dashboards read.
"""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path

from scrubcheck.matrix.examples import class_examples
from scrubcheck.matrix.rows import Matrix, Row, cell_counts, hall_of_bugs, observed_checks, pruned
from scrubcheck.matrix.within_claim import claims_in
from scrubcheck.reports.json_report import json_document, write_json_text

MATRIX_FORMAT = 1


def matrix_dict(matrix: Matrix) -> dict:
    rows = []
    grid = claims_in(r.claim for r in matrix.ran)
    for row in matrix.rows:
        classes = row.failure_classes() if row.ran else None
        within = row.classes_within(row.claim) if row.ran else None
        rows.append({
            "name": row.name, "title": row.title, "kind": row.kind, "package": row.package,
            "version": row.version, "spec": row.spec, "status": row.status,
            "model_of": row.model_of, "restrictions": row.restrictions, "report": row.report,
            "engine": row.engine,
            "duration_s": row.duration_s if row.ran else None,
            "time": row.time_note(),
            "cache": row.cache_counts() if row.ran else {},
            "linear_time": row.linear(),
            "totals": dict(row.totals()),
            "areas": {k: dict(v) for k, v in cell_counts(row, "area").items()},
            "rule_groups": {k: dict(v) for k, v in cell_counts(row, "group").items()},
            "verdicts": row.verdicts(),
            "hall_of_bugs": [asdict(e) for e in hall_of_bugs(row)],
            "failure_classes": (None if classes is None else [asdict(c) for c in classes]),
            # SPEC section 12: within the row's claim, what the headline counts; and how
            # many classes within each class of the grid
            "claim": row.claim,
            "claim_failure_classes": (None if within is None else [asdict(c) for c in within]),
            "class_failure_counts": {c: row.class_count_within(c) for c in grid},
            # the failing scenarios within the claim as root causes (scrubcheck.explain)
            "claim_bugs": row.claim_bugs() if row.ran else None,
        })
        examples = _examples(row, None if classes is None else
                             [*classes, *(within or [])])
        if examples is not None:
            rows[-1]["examples"] = examples
    return {
        "matrix_format": MATRIX_FORMAT, "mode": matrix.mode, "mode_note": matrix.mode_note,
        "started_at": matrix.started_at, "duration_s": matrix.duration_s,
        "rendered_at": matrix.rendered_at,
        "settings": matrix.settings, "rows": rows, "pruned": pruned(matrix),
        "observed": [{"behaviour": c.claim.behaviour, "note": c.claim.note,
                      "source": c.claim.source, "peer": c.peer,
                      "scenario": c.scenario_id, "verdict": c.verdict,
                      "confirmed": c.confirmed, "command": c.command}
                     for c in observed_checks(matrix)],
    }


def _examples(row: Row, classes: list | None) -> dict | None:
    """The class examples' evidence (`examples`): computed from a run, passed through
    from a stored row that kept it, absent for a stored row made before it was kept."""
    if row.run is not None and classes is not None:
        return class_examples(row.run, classes)
    if row.stored is not None and isinstance(row.stored.get("examples"), dict):
        return dict(row.stored["examples"])
    return None


def write_matrix_json(matrix: Matrix, path: Path) -> Path:
    # the class examples keep outputs as printed, lone surrogates included: written as
    # \udXXX, which is that code unit's JSON escape, as report.json does (write_json)
    return write_json_text(path, json_document(matrix_dict(matrix)))
