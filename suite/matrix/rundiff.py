"""Regressions and fixes between two runs: what `scrubcheck diff` reports for CI.

Inputs are report.json files (one scrubber) or matrix.json files (one
comparison per implementation present in both). A regression is a scenario
judged in both runs whose verdict got worse in the one severity order
(`evidence.Severity`: PASS < SHOULD < ERROR < FAIL < LEAK, so a scenario that raised
and now breaks a MUST rule got worse); new leaks come first. A fix is the reverse.
Scenarios judged in only one of the runs (new, removed, or newly unsupported) are
listed apart and never make the diff fail.

A file that is not a run (a JSON list, `{}`, another tool's output, a broken
download) must never read as a regression: CI treats exit 1 as "the scrubber
got worse". Such a file is refused with `NotARun`, one line naming the file and
what is wrong, and the command exits 2.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jsonschema
from jsonschema.exceptions import best_match

from scrubcheck.matrix.jsonform import MATRIX_FORMAT
from scrubcheck.matrix.verdicts import LEAK, SEVERITY, VERDICTS, verdict
from scrubcheck.reports.json_report import FORMAT_VERSION, SCHEMA_ID, load_schema
from scrubcheck.results import RunResult

#: What diff reads from a matrix.json (the rest of the file is for dashboards).
MATRIX_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["matrix_format", "rows"],
    "properties": {
        "matrix_format": {"const": MATRIX_FORMAT},
        "rows": {"type": "array", "items": {
            "type": "object",
            "required": ["name"],
            "properties": {
                "name": {"type": "string", "minLength": 1},
                "verdicts": {"type": ["object", "null"],
                             "additionalProperties": {"enum": list(VERDICTS)}},
            },
        }},
    },
}
_JSON_TYPES = {list: "array", str: "string", int: "number", float: "number", bool: "boolean",
               type(None): "null"}
MAX_MESSAGE = 200  # a schema message quotes the offending value, which may be huge


class NotARun(ValueError):
    """A file `scrubcheck diff` cannot compare; the message names the file and the reason."""


@dataclass(frozen=True)
class Change:
    scenario_id: str
    old: str
    new: str


@dataclass
class Diff:
    name: str
    regressions: list[Change] = field(default_factory=list)
    fixes: list[Change] = field(default_factory=list)
    other: list[Change] = field(default_factory=list)  # added, removed, or not judged in one

    def __bool__(self) -> bool:
        return bool(self.regressions or self.fixes or self.other)


def _check(data: Any, schema: dict[str, Any], what: str) -> None:
    error = best_match(jsonschema.Draft202012Validator(schema).iter_errors(data))
    if error is not None:
        message = error.message
        if len(message) > MAX_MESSAGE:
            message = message[: MAX_MESSAGE - 1] + "…"
        raise NotARun(f"not a valid {what}: at {error.json_path}: {message}")


def verdicts_of(data: Any) -> dict[str, dict[str, str]]:
    """{implementation: {scenario id: verdict}} from a report.json or matrix.json dict.

    Raises NotARun when `data` is neither; a report.json is checked against its
    shipped schema (a dict from `RunResult.to_dict()`, without `$schema`, is accepted).
    """
    if not isinstance(data, dict):
        kind = _JSON_TYPES.get(type(data), type(data).__name__)
        raise NotARun(f"a JSON {kind}, not a scrubcheck report.json or matrix.json "
                      "(both are JSON objects)")
    if "rows" in data or "matrix_format" in data:
        _check(data, MATRIX_SCHEMA, "matrix.json")
        return {row["name"]: dict(row.get("verdicts") or {}) for row in data["rows"]}
    if "results" not in data:
        raise NotARun("neither a scrubcheck report.json (no \"results\") nor a matrix.json "
                      "(no \"rows\")")
    report = {"$schema": SCHEMA_ID, "format_version": FORMAT_VERSION, **data}
    _check(report, load_schema(), "scrubcheck report.json")
    run = RunResult.from_dict({k: v for k, v in report.items()
                               if k not in ("$schema", "format_version")})
    return {run.scrubber: {r.scenario_id: verdict(r) for r in run.results}}


def load_verdicts(path: Path) -> dict[str, dict[str, str]]:
    """`verdicts_of` a file; NotARun (naming the file) when it cannot be read or is not a run."""
    try:
        return verdicts_of(_read_json(Path(path)))
    except NotARun as exc:
        raise NotARun(f"{path}: {exc}") from None


def _read_json(path: Path) -> Any:
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise NotARun(f"not UTF-8 text (byte {exc.start}: {exc.reason})") from None
    except OSError as exc:
        raise NotARun(f"cannot read: {exc.strerror or exc}") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise NotARun(f"not JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    except RecursionError:
        raise NotARun("not JSON this program can read: nested too deeply") from None


def diff_verdicts(name: str, old: dict[str, str], new: dict[str, str]) -> Diff:
    diff = Diff(name)
    for scenario_id in dict.fromkeys([*old, *new]):
        before, after = old.get(scenario_id, "absent"), new.get(scenario_id, "absent")
        if before == after:
            continue
        change = Change(scenario_id, before, after)
        if before in SEVERITY and after in SEVERITY:
            (diff.regressions if SEVERITY[after] < SEVERITY[before] else diff.fixes).append(
                change)
        else:
            diff.other.append(change)
    diff.regressions.sort(key=lambda c: (SEVERITY[c.new], c.scenario_id))
    diff.fixes.sort(key=lambda c: (c.old != LEAK, c.scenario_id))
    return diff


def diff_runs(old: dict[str, dict[str, str]], new: dict[str, dict[str, str]]) -> list[Diff]:
    """One Diff per implementation in both; a single pair of reports is compared whatever
    their scrubber names (a renamed spec is still the same scrubber's CI)."""
    if len(old) == 1 and len(new) == 1:
        (old_name, old_v), (new_name, new_v) = next(iter(old.items())), next(iter(new.items()))
        name = new_name if old_name == new_name else f"{old_name} -> {new_name}"
        return [diff_verdicts(name, old_v, new_v)]
    return [diff_verdicts(name, old[name], new[name]) for name in new if name in old]


def render_diff(diffs: list[Diff], only_in: list[str] | None = None) -> str:
    lines = []
    for diff in diffs:
        lines.append(f"{diff.name}: {len(diff.regressions)} regression(s), "
                     f"{len(diff.fixes)} fix(es), {len(diff.other)} other change(s)")
        for title, changes in (("REGRESSION", diff.regressions), ("fixed", diff.fixes),
                               ("changed", diff.other)):
            for c in changes:
                mark = " (new leak)" if title == "REGRESSION" and c.new == LEAK else ""
                lines.append(f"  {title:10} {c.scenario_id}: {c.old} -> {c.new}{mark}")
    for name in only_in or ():
        lines.append(f"{name}: in one run only, not compared")
    return "\n".join(lines) + "\n"
