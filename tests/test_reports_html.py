"""report.html: self-contained, every piece of scenario text escaped, worst failures first."""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
import report_sample as sample

from scrubcheck.reports import visible_whitespace, write_reports
from scrubcheck.reports.html import render_html

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
def page(sample_run, tmp_path: Path) -> str:
    (path,) = write_reports(sample_run, tmp_path, formats=["html"])
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
    assert '<details class="not-run"><summary>SKIPPED (1), 1 reason</summary>' in page
    errors = page[page.index('<section id="errors">'):]
    assert "unclosed::length-no-recovery" in errors and "TIMEOUT" in errors
    assert "<summary><b>Note:</b> KeyError: &#x27;finish_reason&#x27;</summary>" in errors
    assert "line 9, in &lt;module&gt;\nKeyError" in errors


def test_nul_and_surrogate_are_shown_as_escapes(page) -> None:
    assert "\x00" not in page
    assert '<span class="esc">\\x00</span>' in page
    assert '<span class="esc">\\udc80</span>' in page


def test_a_passing_run_still_renders(sample_run) -> None:
    sample_run.results = sample_run.results[:1]
    page = render_html(sample_run)
    assert "<p>None.</p>" in page and parse(page).errors == []
    assert "<p><b>UNSUPPORTED (0)</b>: none</p>" in page


# ------------------------------------------------------------ what a reader sees first
def _leak_failure(prefix: str, reasoning: str, suffix: str):
    """A leak failure exactly as the runner records one (the real leak check on a trace),
    and the leak the detector found."""
    from scrubcheck.adapters.drive import Trace
    from scrubcheck.checks import LeakDetector, leak_finding
    from scrubcheck.results import Failure

    output = prefix + reasoning + suffix
    trace = Trace(deltas=(output,), returns=[output, ""], ends=[len(output), len(output)],
                  flushed=True)
    leak = LeakDetector([reasoning], f"<think>{reasoning}</think>").first_leak(output)
    finding = leak_finding(trace, leak)
    return Failure(finding.check, finding.rule, finding.level, "whole", [output],
                   finding.detail, got=finding.got, step=finding.step,
                   replay="scrubcheck show x --chunking whole"), leak


def _marked(page: str) -> list[str]:
    """The text inside each <mark class="leaked">, tags removed, entities kept."""
    return [re.sub(r"<[^>]+>", "", m)
            for m in re.findall(r'<mark class="leaked">(.*?)</mark>', page)]


@pytest.mark.parametrize("reasoning", [
    "plan the <blink>secret</blink> reply\tcarefully",  # markup and whitespace in the leak
    "step " * 40,  # longer than the check quotes: marked as far as the quote shows
])
def test_the_leaked_text_is_marked_in_got(sample_run, reasoning) -> None:
    from html import escape as html_escape

    prefix = "An answer long enough that the default excerpt would end before the leak. " * 2
    failure, leak = _leak_failure(prefix, reasoning, " and the rest of the answer.")
    sample_run.results[3].failures = [failure]  # the sample's leak scenario
    page = render_html(sample_run)
    (marked,) = _marked(page)
    shown = html_escape(visible_whitespace(leak.text), quote=True)
    if len(leak.text) <= 80:
        assert marked == shown
    else:  # the check quotes the first 79 characters: those at least are marked
        assert len(marked) >= 79 and shown.startswith(marked)
    got_line = re.search(r"got:      (.*)", page).group(1)
    before = re.sub(r"<[^>]+>", "", got_line[:got_line.index('<mark class="leaked">')])
    assert before == "…" + visible_whitespace(prefix[:leak.start][-40:])  # context shown
    assert "<blink>" not in page


def test_a_detail_that_does_not_match_got_marks_nothing(sample_run) -> None:
    failure, _ = _leak_failure("Answer: ", "the hidden plan", ".")
    failure = dataclasses.replace(  # the quote no longer matches
        failure, got=failure.got.replace("hidden", "hiddem"))
    sample_run.results[3].failures = [failure]
    assert _marked(render_html(sample_run)) == []
    assert "<mark" not in render_html(sample.sample_run())  # hand-written details: no guess


def test_failures_come_before_the_tables_and_not_run_is_last_and_collapsed(page) -> None:
    ids = re.findall(r'<section id="([a-z-]+)"', page)
    assert ids[:2] == ["failures", "errors"] and ids[-1] == "not-run"
    not_run = page[page.index('<section id="not-run">'):]
    assert re.search(r'<details class="not-run"><summary>UNSUPPORTED \(2\), 2 reasons</summary>'
                     r"<ul>.*harmony", not_run)
    assert "<details class=\"not-run\" open" not in not_run  # collapsed


def test_detail_lines_wrap_and_marks_are_in_common_fonts(page) -> None:
    assert re.search(r'detail:   <span class="wrap">blank line after the removed block', page)
    assert ".wrap{" in page and "pre-wrap" in page
    # The Control Pictures have no glyph in the fonts of a stock Debian browser.
    assert not set(page) & {"\u2420", "\u240d", "\u23ce"}
    for mark in "·¶→←":
        assert mark in page


def test_captured_output_is_shown_escaped_and_collapsed_under_its_scenario(sample_run) -> None:
    """What the scrubber printed (runner.capture's head-and-tail text) sits under the
    failing scenario and under an error, collapsed, escaped, its escape codes disarmed."""
    printed = ("[73 bytes, 2 lines of stdout/stderr]\n\x1b[2J\x1b[Hdebug: "
               "<script>alert('printed')</script>\nsecond line\n")
    leak = next(r for r in sample_run.results if r.scenario_id == "fence-closes-then-block")
    timeout = next(r for r in sample_run.results if r.outcome.value == "TIMEOUT")
    leak.captured_output = timeout.captured_output = printed
    page = render_html(sample_run)
    assert parse(page).errors == []
    assert "\x1b" not in page and "<script>alert('printed')" not in page
    assert page.count('<details class="captured">') == 2  # collapsed: no `open`
    shown = ("<pre>[73 bytes, 2 lines of stdout/stderr]\n\\x1b[2J\\x1b[Hdebug: "
             "&lt;script&gt;alert(&#x27;printed&#x27;)&lt;/script&gt;\nsecond line\n</pre>")
    assert page.count(shown) == 2
    assert page.count("captured) [73 bytes, 2 lines of stdout/stderr]</summary>") == 2
    failing = page[page.index('<section id="failures">'):page.index('<section id="errors">')]
    (owner,) = [b for b in failing.split('<details class="scenario"')
                if '<details class="captured">' in b]
    assert "fence-closes-then-block" in owner.split("</summary>", 1)[0]
    errors = page[page.index('<section id="errors">'):]
    item = next(li for li in errors.split("<li>") if timeout.scenario_id in li)
    assert '<details class="captured">' in item
    assert '<details class="captured">' not in render_html(sample.sample_run())
