"""badge.json: shields.io's endpoint format, the counts of the run, written by every run."""

from __future__ import annotations

import json

import jsonschema
import pytest
import report_sample as sample

from scrubcheck.cli import main
from scrubcheck.reports import write_reports
from scrubcheck.reports.badge import badge_dict
from scrubcheck.results import Failure, Outcome, RunResult, ScenarioResult

# The endpoint schema as shields.io documents it (https://shields.io/badges/endpoint-badge):
# schemaVersion always 1, label required (may be empty), message required and non-empty,
# the rest optional with these types.
ENDPOINT_SCHEMA = {
    "type": "object",
    "required": ["schemaVersion", "label", "message"],
    "additionalProperties": False,
    "properties": {
        "schemaVersion": {"const": 1},
        "label": {"type": "string"},
        "message": {"type": "string", "minLength": 1},
        "color": {"type": "string", "minLength": 1},
        "labelColor": {"type": "string"},
        "isError": {"type": "boolean"},
        "namedLogo": {"type": "string"},
        "logoSvg": {"type": "string"},
        "logoColor": {"type": "string"},
        "logoWidth": {"type": "number"},
        "style": {"type": "string"},
        "cacheSeconds": {"type": "integer", "minimum": 0},
    },
}


def _result(scenario_id: str, outcome: Outcome, *failures: tuple[str, str]) -> ScenarioResult:
    """A scenario result; failures as (check, level), e.g. ("leak", "MUST")."""
    return ScenarioResult(
        scenario_id=scenario_id, area="blocks", rules=["R-LEAK-1"], file="corpora/b.yaml",
        line=1, description="", outcome=outcome,
        failures=[Failure(check=check, rule="R-LEAK-1" if check == "leak" else "R-FID-1",
                          level=level, chunking="whole", deltas=["x"], detail="d")
                  for check, level in failures])


def _run(*results: ScenarioResult, **extra) -> RunResult:
    return RunResult(scrubber="s", scrubber_kind="stream", supported_features=[],
                     accepted_context=[], spec_version="1.2.0", scrubcheck_version="0.1.0",
                     started_at="2026-12-01T00:00:00+00:00", duration_s=1.0,
                     settings={"seed": 0, "level": "must"}, results=list(results), **extra)


PASS = _result("p", Outcome.PASS)


def test_the_sample_run_badge():
    badge = badge_dict(sample.sample_run())
    jsonschema.validate(badge, ENDPOINT_SCHEMA)
    # 2 PASS of 11 scenarios (UNSUPPORTED and SKIPPED are not passes); 2 scenarios leak
    assert badge == {"schemaVersion": 1, "label": "scrubcheck SPEC 1.0.0",
                     "message": "2/11 pass, 2 leak", "color": "red"}


@pytest.mark.parametrize(("run", "message", "color"), [
    (_run(PASS, PASS), "2/2 pass, 0 leak", "brightgreen"),
    (_run(PASS, _result("l", Outcome.FAIL, ("leak", "MUST"))), "1/2 pass, 1 leak", "red"),
    (_run(PASS, _result("m", Outcome.FAIL, ("expected", "MUST"))), "1/2 pass, 0 leak",
     "orange"),
    (_run(PASS, _result("e", Outcome.ERROR)), "1/2 pass, 0 leak", "orange"),
    # a SHOULD failure passes at level must, but not every scenario passed
    (_run(PASS, _result("s", Outcome.FAIL, ("holdback", "SHOULD"))), "1/2 pass, 0 leak",
     "yellowgreen"),
    (_run(PASS, _result("u", Outcome.UNSUPPORTED)), "1/2 pass, 0 leak", "yellowgreen"),
    (_run(PASS, _result("x", Outcome.SKIPPED), interrupted=True),
     "1/2 pass, 0 leak (interrupted)", "lightgrey"),
    (_run(PASS, corpus_errors=["corpora/b.yaml:3: bad"]), "1/1 pass, 0 leak (corpus error)",
     "lightgrey"),
], ids=["all-pass", "leak", "must-failure", "error", "should-only", "unsupported",
        "interrupted", "corpus-errors"])
def test_message_and_color(run, message, color):
    badge = badge_dict(run)
    jsonschema.validate(badge, ENDPOINT_SCHEMA)
    assert (badge["message"], badge["color"]) == (message, color)
    assert badge["label"] == "scrubcheck SPEC 1.2.0"


def test_the_schema_refuses_what_shields_would():
    for bad in ({"schemaVersion": 2, "label": "a", "message": "b"},
                {"schemaVersion": 1, "label": "a", "message": ""},
                {"schemaVersion": 1, "message": "b"}):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(bad, ENDPOINT_SCHEMA)


def test_write_reports_puts_the_badge_beside_the_reports(tmp_path):
    paths = write_reports(sample.sample_run(), tmp_path)
    badge = tmp_path / "badge.json"
    assert badge in paths and (tmp_path / "report.json") in paths
    assert json.loads(badge.read_text(encoding="utf-8"))["message"] == "2/11 pass, 2 leak"


def test_every_run_with_reports_writes_the_badge(tmp_path, capsys):
    code = main(["run", "--id", "blocks-at-line-*", "--jobs", "1", "--no-linear",
                 "--random-chunkings", "1", "--no-progress", "--out", str(tmp_path)])
    assert code == 0
    badge = json.loads((tmp_path / "badge.json").read_text(encoding="utf-8"))
    jsonschema.validate(badge, ENDPOINT_SCHEMA)
    report = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    assert badge["label"] == f"scrubcheck SPEC {report['spec_version']}"
    assert badge["message"] == f"{report['settings']['conformance_class']}: " \
                               f"{report['counts']['PASS']}/{len(report['results'])} pass, 0 leak"
    assert f"report: {tmp_path / 'badge.json'}" in capsys.readouterr().out


def test_a_class_run_badge_names_the_class_and_counts_within_it():
    """SPEC section 12: BEYOND CLAIM is outside the count, never a pass; the message names
    the class the counts are in."""
    run = _run(PASS, _result("b", Outcome.BEYOND_CLAIM), _result("c", Outcome.BEYOND_CLAIM))
    run.settings["conformance_class"] = "think"
    badge = badge_dict(run)
    jsonschema.validate(badge, ENDPOINT_SCHEMA)
    assert (badge["message"], badge["color"]) == ("think: 1/1 pass, 0 leak", "brightgreen")
    leaking = _run(_result("l", Outcome.FAIL, ("leak", "MUST")), _result("b", Outcome.BEYOND_CLAIM))
    leaking.settings["conformance_class"] = "think"
    assert badge_dict(leaking)["message"] == "think: 0/1 pass, 1 leak"
