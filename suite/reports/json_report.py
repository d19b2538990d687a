"""report.json: the machine-readable report, exact and versioned.

Vendors diff and aggregate these files, and `RunResult.from_dict` reads them
back, so every string is kept exactly (a lone surrogate is written as its
`\\uXXXX` escape, which JSON allows) and the shape is pinned by a JSON Schema
shipped with the package.
"""

from __future__ import annotations

import json
import math
from importlib import resources
from pathlib import Path
from typing import Any

from ..results import RunResult

SCHEMA_ID = "urn:scrubcheck:report:1"
FORMAT_VERSION = 1
SCHEMA_FILE = "report.schema.json"


def report_dict(run: RunResult) -> dict[str, Any]:
    """`run.to_dict()` with `$schema` and `format_version` first; non-finite
    floats (which JSON cannot hold) become null."""
    return {"$schema": SCHEMA_ID, "format_version": FORMAT_VERSION,
            **_finite(run.to_dict())}


def _finite(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    return value


def json_document(data: Any, *, indent: int = 1, allow_nan: bool = True) -> str:
    """JSON text as every scrubcheck JSON report holds it (report.json, matrix.json, the
    gateway audits): non-ASCII kept readable, ending in a newline; it may hold lone
    surrogates until written (`write_json_text`)."""
    return json.dumps(data, ensure_ascii=False, indent=indent, allow_nan=allow_nan) + "\n"


def write_json_text(path: Path, text: str) -> Path:
    """Write JSON text as UTF-8. ensure_ascii=False keeps non-ASCII text readable; a lone
    surrogate cannot be encoded as UTF-8, and "backslashreplace" writes it as \\udXXX,
    which inside a JSON string is exactly the escape for that code unit: the round trip
    is exact."""
    path.write_text(text, encoding="utf-8", errors="backslashreplace")
    return path


def render_json(run: RunResult) -> str:
    """The report as JSON text; may hold lone surrogates until encoded (see write_json)."""
    return json_document(report_dict(run), indent=2, allow_nan=False)


def write_json(run: RunResult, path: Path) -> Path:
    return write_json_text(path, render_json(run))


def load_schema() -> dict[str, Any]:
    """The JSON Schema of report.json (package data)."""
    text = resources.files(__package__).joinpath(SCHEMA_FILE).read_text(encoding="utf-8")
    return json.loads(text)


def validate_report(data: dict[str, Any]) -> None:
    """Raise jsonschema.ValidationError if `data` is not a valid report.json."""
    import jsonschema  # only needed by callers that validate

    jsonschema.validate(data, load_schema(), cls=jsonschema.Draft202012Validator)


def read_report(path: Path) -> RunResult:
    """A RunResult from a report.json written by `write_json`."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    data.pop("$schema", None)
    data.pop("format_version", None)
    return RunResult.from_dict(data)
