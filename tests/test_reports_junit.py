"""junit.xml: well-formed whatever the scenario text, one suite per area, outcome elements."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path
from xml.dom import minidom

import pytest
import report_sample as sample
from hypothesis import given, settings
from hypothesis import strategies as st

from scrubcheck.reports import write_reports
from scrubcheck.reports.junit import render_junit
from scrubcheck.results import Failure, Outcome


@pytest.fixture
def root(sample_run, tmp_path: Path) -> ET.Element:
    (path,) = write_reports(sample_run, tmp_path, formats=["junit"])
    return ET.parse(path).getroot()


def case(root: ET.Element, name: str) -> ET.Element:
    (found,) = [c for c in root.iter("testcase") if c.get("name") == name]
    return found


def test_one_suite_per_area_and_one_case_per_scenario(root) -> None:
    suites = root.findall("testsuite")
    assert [s.get("name") for s in suites] == [
        "blocks", "code", "streaming", "robust", "unclosed", "features", "scrubber-checks"]
    features = suites[5]
    assert [c.get("name") for c in features.findall("testcase")] == [
        "harmony-analysis", "bracket-think", "kimi-triangles"]
    assert {c.get("classname") for c in features.findall("testcase")} == {"features"}
    assert (features.get("tests"), features.get("skipped"), features.get("failures")) == (
        "3", "3", "0")
    # 11 scenarios and the scrubber-wide check
    assert (root.get("tests"), root.get("failures"), root.get("errors"), root.get("skipped")) == (
        "12", "4", "2", "3")
    assert [c.get("name") for c in suites[6].findall("testcase")] == ["linear-time"]


def test_failure_names_check_and_rule_and_carries_the_reproduction(root) -> None:
    failure = case(root, "fence-closes-then-block").find("failure")
    assert failure.get("type") == "leak R-LEAK-1"
    assert failure.get("message").startswith("MUST leak R-LEAK-1 under 13 chunking(s): ")
    assert "also expected R-CODE-2" in failure.get("message")
    assert "chunking: recorded (3 deltas)" in failure.text
    assert sample.replay("fence-closes-then-block", "recorded") in failure.text
    out = case(root, "fence-closes-then-block").find("system-out").text
    assert sample.replay("fence-closes-then-block", "whole") in out


def test_errors_and_timeouts_are_errors_with_their_reason(root) -> None:
    error = case(root, "length-no-recovery").find("error")
    assert (error.get("type"), error.get("message")) == (
        "ERROR", "harness error: KeyError('finish_reason')")
    assert ("  note: Traceback (most recent call last):\n"
            '          File "runner.py", line 9, in <module>\n') in error.text
    timeout = case(root, "stop-recovery-long").find("error")
    assert timeout.get("type") == "TIMEOUT"
    assert case(root, "stop-recovery-long").find("failure") is None


def test_unsupported_and_skipped_are_skipped_with_their_reason(root) -> None:
    assert case(root, "bracket-think").find("skipped").get("message") == (
        "UNSUPPORTED: scrubber does not support feature 'bracket'")
    assert case(root, "kimi-triangles").find("skipped").get("message") == (
        "SKIPPED: excluded by --exclude-label slow")
    passing = case(root, "split-open-inside-name")
    assert list(passing) == []


def test_properties_name_scrubber_and_versions(root) -> None:
    props = {p.get("name"): p.get("value")
             for p in root.find("testsuite").find("properties").findall("property")}
    assert props["scrubber"] == sample.SCRUBBER
    assert props["scrubcheck_version"] == "0.1.0"
    assert props["spec_version"] == "1.0.0"
    assert props["seed"] == str(sample.SEED)
    assert props["level"] == "must"


def test_control_characters_and_surrogates_are_escaped(root) -> None:
    failure = case(root, "nul-and-surrogate").find("failure")
    assert "ok\\x00hidden" in failure.text and "\\udc80" in failure.text
    assert "<script>alert('pwned')</script>" in failure.text  # text, not markup
    assert failure.find("script") is None


def test_corpus_errors_are_an_error_case(sample_run) -> None:
    sample_run.corpus_errors = ["corpora/bad.yaml:3 [x]: unknown key 'visble'"]
    root = ET.fromstring(render_junit(sample_run))
    error = case(root, "load").find("error")
    assert error.get("type") == "CorpusError"
    assert "corpora/bad.yaml:3 [x]: unknown key 'visble'" in error.text


HOSTILE = st.text(st.characters(codec=None, categories=None, exclude_categories=()), max_size=40)


@settings(max_examples=60, deadline=None)
@given(HOSTILE, HOSTILE, HOSTILE)
def test_any_scenario_text_gives_well_formed_xml(text: str, detail: str, scenario_id: str) -> None:
    run = sample.sample_run()
    result = run.results[1]
    result.scenario_id = scenario_id or "x"
    result.description = text
    result.reason = text
    result.failures = [Failure("expected", "R-FID-1", "MUST", "recorded", [text, detail],
                               detail, expected=text, got=detail, replay=text)]
    run.results[6].reason = detail
    run.results[6].outcome = Outcome.ERROR
    document = render_junit(run)
    minidom.parseString(document.encode("utf-8"))  # a second, independent parser
    parsed = ET.fromstring(document)
    assert len(list(parsed.iter("testcase"))) == 12
