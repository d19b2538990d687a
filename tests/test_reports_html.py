"""report.html: self-contained, every piece of scenario text escaped, worst failures first."""

from __future__ import annotations

import base64
import hashlib
import importlib.util
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from scrubcheck.reports import visible_whitespace, write_reports
from scrubcheck.reports.html import render_html
from scrubcheck.results import RunResult

_SAMPLE = Path(__file__).parent / "data" / "reports" / "sample_run.py"
_spec = importlib.util.spec_from_file_location("reports_sample_run", _SAMPLE)
sample = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(sample)

VOID = {"meta", "br", "input", "hr", "img", "link", "col", "wbr"}


class Structure(HTMLParser):
    """Records tags, checks nesting, and collects the text of the page."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.tags: list[tuple[str, dict]] = []
        self.text: list[str] = []
        self.errors: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        if tag not in VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag):
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"unexpected </{tag}> with open {self.stack[-3:]}")
        else:
            self.stack.pop()

    def handle_data(self, data):
        self.text.append(data)


@pytest.fixture
def run() -> RunResult:
    return sample.sample_run()


@pytest.fixture
def page(run, tmp_path: Path) -> str:
    (path,) = write_reports(run, tmp_path, formats=["html"])
    return path.read_bytes().decode("utf-8")


def parse(page: str) -> Structure:
    parser = Structure()
    parser.feed(page)
    parser.close()
    return parser


def test_page_is_balanced_html(page) -> None:
    parsed = parse(page)
    assert parsed.errors == [] and parsed.stack == []
    assert page.startswith("<!DOCTYPE html>")


def test_scenario_text_is_escaped(page) -> None:
    # the sample's description and detail hold <script>...</script></think>
    assert "<script>alert(" not in page
    assert "&lt;script&gt;alert(&#x27;pwned&#x27;)&lt;/script&gt;&lt;/think&gt;" in page
    assert [t for t, _ in parse(page).tags].count("script") == 1  # only the page's own
    assert "&lt;think&gt;" in page and "<think>" not in page
    assert "</think>" not in page


def test_only_the_page_script_may_run(page) -> None:
    script = re.search(r"<script>(.*?)</script>", page, flags=re.DOTALL).group(1)
    digest = base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()
    csp = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', page).group(1)
    assert f"script-src 'sha256-{digest}'" in csp and "default-src 'none'" in csp


def test_no_external_assets(page) -> None:
    tags = parse(page).tags
    assert not [a for _, a in tags if "src" in a]
    assert not [t for t, _ in tags if t in ("link", "iframe", "img", "object")]
    assert "url(" not in page and "@import" not in page and "http" not in page.lower().replace(
        "http-equiv", "")


def test_summary_badges_and_tables_count_outcomes(page) -> None:
    assert '<span class="verdict FAIL">FAIL</span> at level MUST (exit code 1)' in page
    for badge in ("2 PASS", "4 FAIL", "1 ERROR", "1 TIMEOUT", "2 UNSUPPORTED", "1 SKIPPED"):
        assert re.search(rf'<span class="badge \w+( zero)?">{badge}</span>', page), badge
    unclosed = re.search(r"<tr><td>unclosed</td>(.*?)</tr>", page).group(1)
    assert re.findall(r">(\d+)<", unclosed) == ["2", "0", "0", "1", "1", "0", "0"]
    vocab = re.search(r"<tr><td><code>R-VOCAB-3</code></td>(.*?)</tr>", page).group(1)
    assert re.findall(r'class="n[^"]*">(\d+)<', vocab) == ["3", "0", "0", "0", "0", "2", "1"]


def test_failures_are_ordered_and_filterable(page) -> None:
    severities = re.findall(r'<details class="scenario" data-severity="(\w+)"', page)
    assert severities == ["leak", "leak", "must", "should"]
    titles = re.findall(r'<details class="scenario".*?<code>([^<]+)</code>', page)
    assert titles == ["code::fence-closes-then-block", "robust::nul-and-surrogate",
                      "blocks::back-to-back-newlines", "streaming::emit-decided-text"]
    assert 'id="filter"' in page and page.count('type="checkbox"') == 3
    # the worst three start expanded
    assert re.findall(r'data-severity="\w+"( open)?>', page) == [" open", " open", " open", ""]


def test_expected_and_got_show_whitespace(page) -> None:
    text = "".join(parse(page).text)
    assert f"expected: {visible_whitespace('A' + chr(10) * 2 + 'B and C')}" in text
    assert f"got:      {visible_whitespace('A' + chr(10) + 'B and C')}" in text
    assert '<span class="ws">' in page
    assert sample.replay("back-to-back-newlines", "split@31") in text


def test_descriptions_render_markdown_without_raw_html(page) -> None:
    assert "<code>&lt;think&gt;</code> opens a block again." in page


def test_unsupported_reasons_and_errors_are_listed(page) -> None:
    assert "scrubber does not support feature &#x27;harmony&#x27; (1)" in page
    assert "<h3>SKIPPED (1)</h3>" in page
    errors = page[page.index('<section id="errors">'):]
    assert "unclosed::length-no-recovery" in errors and "TIMEOUT" in errors
    assert "<summary><b>Note:</b> KeyError: &#x27;finish_reason&#x27;</summary>" in errors
    assert "line 9, in &lt;module&gt;\nKeyError" in errors


def test_nul_and_surrogate_are_shown_as_escapes(page) -> None:
    assert "\x00" not in page
    assert '<span class="esc">\\x00</span>' in page
    assert '<span class="esc">\\udc80</span>' in page


def test_a_passing_run_still_renders(run) -> None:
    run.results = run.results[:1]
    page = render_html(run)
    assert "<p>None.</p>" in page and parse(page).errors == []
