"""write_reports: the file set, format choice, and agreement between formats."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import report_sample as sample

from scrubcheck.reports import FORMATS, write_reports
from scrubcheck.reports.analysis import (
    failing_checks,
    failing_scenarios,
    reproductions,
    scenario_title,
    severity_label,
)


def test_writes_every_format_into_a_new_directory(tmp_path: Path) -> None:
    target = tmp_path / "nested" / "reports"
    paths = write_reports(sample.sample_run(), target)
    assert [p.name for p in paths] == ["report.md", "report.json", "junit.xml", "report.html",
                                       "badge.json"]
    assert all(p.parent == target and p.stat().st_size > 0 for p in paths)
    assert FORMATS == ("md", "json", "junit", "html", "badge")


def test_writes_only_the_chosen_formats_in_the_given_order(tmp_path: Path) -> None:
    paths = write_reports(sample.sample_run(), tmp_path, formats=("junit", "md"))
    assert [p.name for p in paths] == ["junit.xml", "report.md"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["junit.xml", "report.md"]


def test_unknown_format_writes_nothing(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown report format.*pdf"):
        write_reports(sample.sample_run(), tmp_path / "out", formats=("md", "pdf"))
    assert not (tmp_path / "out").exists()


def test_formats_agree_on_counts_and_failures(tmp_path: Path) -> None:
    run = sample.sample_run()
    write_reports(run, tmp_path)
    data = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    root = ET.parse(tmp_path / "junit.xml").getroot()
    md = (tmp_path / "report.md").read_text(encoding="utf-8")
    html = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert data["counts"]["FAIL"] == len(root.findall(".//failure")) == 4
    assert len(re.findall(r"^### \d+\. ", md, flags=re.MULTILINE)) == 4
    assert html.count('<details class="scenario"') == 4
    for result in failing_scenarios(run):
        assert f"`{scenario_title(result)}`: {severity_label(result)}" in md
        assert failing_checks(result) in html
        for repro in reproductions(result):
            assert repro.failure.replay in md and repro.failure.replay in html
