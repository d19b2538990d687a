"""report.json: schema-valid, exact round trip, the schema kept in step with results.py."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import jsonschema
import pytest

from scrubcheck.reports import read_report, validate_report, write_reports
from scrubcheck.reports.json_report import FORMAT_VERSION, SCHEMA_ID, load_schema, report_dict
from scrubcheck.results import Failure, Holdback, RunResult, ScenarioResult


def written(sample_run: RunResult, tmp_path: Path) -> dict:
    (path,) = write_reports(sample_run, tmp_path, formats=["json"])
    return json.loads(path.read_bytes().decode("utf-8"))  # strict UTF-8


def test_report_is_valid_against_the_shipped_schema(sample_run, tmp_path: Path) -> None:
    data = written(sample_run, tmp_path)
    validate_report(data)
    assert data["$schema"] == SCHEMA_ID == load_schema()["$id"]
    assert data["format_version"] == FORMAT_VERSION
    assert data["counts"] == {"PASS": 2, "FAIL": 4, "ERROR": 1, "TIMEOUT": 1,
                              "UNSUPPORTED": 2, "SKIPPED": 1}


def test_round_trip_is_exact_even_for_nul_and_lone_surrogates(sample_run, tmp_path: Path) -> None:
    write_reports(sample_run, tmp_path, formats=["json"])
    back = read_report(tmp_path / "report.json")
    assert back == sample_run
    truncation = next(r for r in back.results if r.scenario_id == "nul-and-surrogate")
    assert truncation.failures[0].got == "ok\x00hidden \udc80"


def test_lone_surrogate_is_written_as_a_json_escape(sample_run, tmp_path: Path) -> None:
    sample_run.results[0].description = "<思考> blocks"
    write_reports(sample_run, tmp_path, formats=["json"])
    raw = (tmp_path / "report.json").read_text(encoding="utf-8")
    assert '"ok\\u0000hidden \\udc80"' in raw
    assert '"<思考> blocks"' in raw  # other non-ASCII text stays readable


def test_schema_rejects_what_is_not_a_report(sample_run) -> None:
    data = report_dict(sample_run)
    data["results"][0]["outcome"] = "MAYBE"
    with pytest.raises(jsonschema.ValidationError):
        validate_report(data)
    data = report_dict(sample_run)
    del data["results"][1]["failures"][0]["replay"]
    with pytest.raises(jsonschema.ValidationError):
        validate_report(data)


def test_non_finite_metrics_become_null(sample_run, tmp_path: Path) -> None:
    sample_run.scrubber_checks[0].metrics["time_ratio_2x"] = float("inf")
    data = written(sample_run, tmp_path)
    validate_report(data)
    assert data["scrubber_checks"][0]["metrics"] == {"time_ratio_2x": None}


@pytest.mark.parametrize(
    ("cls", "pointer"),
    [
        (RunResult, None),
        (ScenarioResult, "scenarioResult"),
        (Failure, "failure"),
        (Holdback, "holdback"),
    ],
)
def test_schema_describes_every_field_of_the_result_types(cls, pointer) -> None:
    # a field added to results.py must be added to the schema (and format_version
    # considered) before reports can be written with it
    schema = load_schema()
    node = schema if pointer is None else schema["$defs"][pointer]
    fields = {f.name for f in dataclasses.fields(cls)}
    if cls is Failure:  # the evidence record: report.json stores its report_dict()
        fields = set(Failure("leak", "R-LEAK-1").report_dict())
    described = set(node["properties"]) - {"$schema", "format_version", "counts"}
    assert described == fields
