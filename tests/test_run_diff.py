"""`scrubcheck diff` refuses anything that is not a run with one line and exit 2, never 1.

CI reads exit 1 as "the scrubber regressed", so a broken artifact (a JSON list,
`{}`, a truncated download, a directory) must not look like one.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scrubcheck.cli import main
from scrubcheck.matrix.rundiff import NotARun, verdicts_of
from scrubcheck.reports.json_report import report_dict
from scrubcheck.results import Outcome, RunResult, ScenarioResult


def _report() -> dict:
    run = RunResult("demo", "stream", [], [], "1.0.0", "0.1.0", "now", 1.0, {"seed": 0},
                    results=[ScenarioResult("s", "blocks", ["R-BLOCK-1"], "c.yaml", 1, "",
                                            Outcome.PASS)])
    return report_dict(run)


def _without(key: str) -> dict:
    data = _report()
    del data[key]
    return data


def _bad_outcome() -> dict:
    data = _report()
    data["results"][0]["outcome"] = "MAYBE"
    return data


BAD_FILES = {
    "list.json": ("[]", "a JSON array, not a scrubcheck report.json or matrix.json"),
    "string.json": ('"report"', "a JSON string"),
    "empty.json": ("{}", 'neither a scrubcheck report.json (no "results") nor a matrix.json'),
    "garbage.json": ("not json {", "not JSON: Expecting value at line 1 column 1"),
    "truncated.json": (json.dumps(_report())[:200], "not JSON:"),
    "no-counts.json": (json.dumps(_without("counts")),
                       "not a valid scrubcheck report.json: at $: 'counts' is a required"),
    "bad-outcome.json": (json.dumps(_bad_outcome()),
                         "not a valid scrubcheck report.json: at $.results[0].outcome: 'MAYBE'"),
    "bad-matrix.json": (json.dumps({"matrix_format": 1, "rows": [{"verdicts": {}}]}),
                        "not a valid matrix.json: at $.rows[0]: 'name' is a required property"),
    "other-format.json": (json.dumps({**_report(), "$schema": "urn:scrubcheck:report:9"}),
                          "at $['$schema']: 'urn:scrubcheck:report:1' was expected"),
}


@pytest.mark.parametrize("name", sorted(BAD_FILES))
def test_a_file_that_is_not_a_run_is_refused_with_one_line_and_exit_2(tmp_path, capsys, name):
    good, bad = tmp_path / "good.json", tmp_path / name
    good.write_text(json.dumps(_report()))
    content, reason = BAD_FILES[name]
    bad.write_text(content)
    for argv in ([str(good), str(bad)], [str(bad), str(good)]):
        assert main(["diff", *argv]) == 2
        captured = capsys.readouterr()
        assert captured.out == ""
        assert captured.err.splitlines() == [captured.err.strip()]  # one line
        assert captured.err.startswith(f"scrubcheck diff: {bad}: ")
        assert reason in captured.err
        assert "Traceback" not in captured.err


def test_unreadable_files_are_named_and_both_are_reported(tmp_path, capsys):
    binary = tmp_path / "binary.json"
    binary.write_bytes(b"\xff\xfe\x00")
    assert main(["diff", str(tmp_path / "missing.json"), str(tmp_path)]) == 2
    assert main(["diff", str(binary), str(binary)]) == 2
    lines = capsys.readouterr().err.splitlines()
    assert lines == [
        f"scrubcheck diff: {tmp_path / 'missing.json'}: cannot read: No such file or directory",
        f"scrubcheck diff: {tmp_path}: cannot read: Is a directory",
        f"scrubcheck diff: {binary}: not UTF-8 text (byte 0: invalid start byte)",
        f"scrubcheck diff: {binary}: not UTF-8 text (byte 0: invalid start byte)",
    ]


def test_a_huge_offending_value_is_not_echoed_whole():
    data = _report()
    data["results"][0]["outcome"] = "X" * 10_000
    with pytest.raises(NotARun) as caught:
        verdicts_of(data)
    assert len(str(caught.value)) < 300


def test_a_written_report_and_a_bare_to_dict_are_both_runs(tmp_path: Path):
    data = _report()
    bare = {k: v for k, v in data.items() if k not in ("$schema", "format_version")}
    assert verdicts_of(data) == verdicts_of(bare) == {"demo": {"s": "PASS"}}


def test_a_regression_is_a_verdict_worse_in_the_one_severity_order() -> None:
    """The diff orders verdicts as every report orders problems (evidence.Severity): a
    scenario that raised and now breaks a MUST rule got worse, the reverse is a fix, and
    the new leaks lead the regressions."""
    from scrubcheck.matrix.rundiff import diff_verdicts

    old = {"a": "ERROR", "b": "FAIL", "c": "PASS", "d": "SHOULD", "e": "PASS", "f": "LEAK"}
    new = {"a": "FAIL", "b": "ERROR", "c": "SHOULD", "d": "LEAK", "e": "UNSUPPORTED",
           "f": "PASS"}
    diff = diff_verdicts("demo", old, new)
    assert [(c.scenario_id, c.new) for c in diff.regressions] == [
        ("d", "LEAK"), ("a", "FAIL"), ("c", "SHOULD")]
    assert sorted(c.scenario_id for c in diff.fixes) == ["b", "f"]
    assert [c.scenario_id for c in diff.other] == ["e"]
