"""The compliance matrix: the reference and the real peers, side by side.

    matrix = run_matrix(manifests, set(), scenarios, settings, Path("reports"), quick=True)
    write_matrix(matrix, Path("reports"))

Views are computed in `model`, written by `markdown`, `html` and `jsonform`;
`rundiff` compares two runs for CI.
"""

from __future__ import annotations

from pathlib import Path

from scrubcheck.matrix.html import write_matrix_html
from scrubcheck.matrix.jsonform import matrix_dict, write_matrix_json
from scrubcheck.matrix.markdown import write_matrix_markdown
from scrubcheck.matrix.rows import Matrix, Row
from scrubcheck.matrix.runs import run_matrix
from scrubcheck.runner.harness import writers_digest


def write_matrix(matrix: Matrix, out: Path) -> list[Path]:
    """matrix.md, matrix.html and matrix.json in `out`, stamped with the digest of the
    writers that made them (what `scrubcheck regenerate --check` compares): pages rendered
    again from a matrix.json (`--render-from`) are today's writers' pages."""
    out.mkdir(parents=True, exist_ok=True)
    matrix.settings["writers_digest"] = writers_digest()
    return [write_matrix_markdown(matrix, out / "matrix.md"),
            write_matrix_html(matrix, out / "matrix.html"),
            write_matrix_json(matrix, out / "matrix.json")]


__all__ = ["Matrix", "Row", "matrix_dict", "run_matrix", "write_matrix"]
