"""The text helpers every report writer relies on to show scenario text exactly."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scrubcheck.checks import visible as checks_visible
from scrubcheck.reports import visible_whitespace
from scrubcheck.reports.first_difference import diff_view, first_difference
from scrubcheck.reports.mdtext import cell, code_span, fenced, prose
from scrubcheck.reports.text import delta_list, display_width, xml_safe

SPACE = visible_whitespace(" ")
ANY_TEXT = st.text(st.characters(codec=None, categories=None, exclude_categories=()))


def test_visible_whitespace_is_the_one_the_checks_use() -> None:
    # failure details written by the checks and the reports' expected/got lines
    # must use the same glyphs, so there is exactly one implementation
    assert visible_whitespace is checks_visible


@pytest.mark.parametrize("raw", ["a b", "a\tb", "a\nb", "a\r\nb", "nul\x00", "lone\udc80",
                                 "nbsp\u00a0", "ls\u2028", "zwj\u200d"])
def test_visible_whitespace_shows_every_invisible_character(raw: str) -> None:
    shown = visible_whitespace(raw)
    assert shown.isprintable() and " " not in shown
    assert shown != raw


@given(ANY_TEXT)
def test_visible_whitespace_is_one_encodable_line(text: str) -> None:
    shown = visible_whitespace(text)
    assert "\n" not in shown and "\r" not in shown
    shown.encode("utf-8")  # no lone surrogate survives
    assert xml_safe(shown) == shown


@given(ANY_TEXT)
def test_xml_safe_text_always_parses(text: str) -> None:
    element = ET.Element("t", {"a": xml_safe(text)})
    element.text = xml_safe(text)
    parsed = ET.fromstring(ET.tostring(element, encoding="unicode"))
    assert parsed.text in (xml_safe(text), None if not text else parsed.text)


def test_xml_safe_escapes_only_illegal_characters() -> None:
    assert xml_safe("ok\ttab\nlf") == "ok\ttab\nlf"
    assert xml_safe("a\x00b\x1bc\udc80\ufffe") == "a\\u0000b\\u001bc\\udc80\\ufffe"


def test_first_difference_skips_whitespace_runs_but_not_glued_words() -> None:
    # an allowed-looking whitespace change early, a real difference later
    diff = first_difference("a  b c", "a b x")
    assert (diff.expected_at, diff.got_at, diff.whitespace_only) == (5, 4, False)
    # a run present on one side only is a difference where it starts
    diff = first_difference("ab", "a b")
    assert (diff.expected_at, diff.got_at, diff.whitespace_only) == (1, 1, False)
    diff = first_difference("a\n\nb", "a\nb")
    assert diff.whitespace_only and diff.expected_at == 2
    assert first_difference("same", "same") is None


def test_diff_view_puts_the_caret_under_the_difference() -> None:
    view = diff_view("Hi Hello!", "Hi nk>secret")
    assert view.expected == f"Hi{SPACE}Hello!"
    assert view.got == f"Hi{SPACE}nk>secret"
    assert view.caret == "   ^"
    assert "character 3" in view.note


def test_diff_view_aligns_wide_characters() -> None:
    view = diff_view("思考 x", "思考 y")
    column = view.caret.index("^")
    assert view.got.endswith("y")
    assert display_width(view.got[:-1]) == column == 5


def test_diff_view_cuts_long_text_around_the_difference() -> None:
    expected = "x" * 5000 + "END" + "y" * 5000
    got = "x" * 5000 + "ENX" + "y" * 5000
    view = diff_view(expected, got)
    assert len(view.got) < 200 and view.got.startswith("…") and view.got.endswith("…")
    assert view.got[view.caret.index("^")] == "X"
    assert "character 5002" in view.note


def test_diff_view_names_an_earlier_whitespace_difference() -> None:
    view = diff_view("a\n\nb c", "a\nb  d")
    assert "whitespace already differs at character 2" in view.note


def test_delta_list_is_exact_and_capped() -> None:
    assert delta_list(["a\x00", "\udc80b"]) == "['a\\x00', '\\udc80b']"
    assert delta_list(list("a b\x00")) == "list('a b\\x00')"
    assert eval(delta_list(list("it's"))) == list("it's")
    long = delta_list(["abcd"] * 1000, limit=100)
    assert long.endswith("more deltas, " + str(4 * (1000 - long.count("'abcd'"))) + " characters]")


def test_code_span_survives_backticks_and_pipes() -> None:
    assert code_span("a`b") == "``a`b``"
    assert code_span("`x`") == "`` `x` ``"
    assert cell(code_span("a|b")) == "`a\\|b`"


def test_fenced_block_cannot_be_closed_by_its_content() -> None:
    block = fenced("```\nnot the end\n```")
    assert block.startswith("````text\n") and block.endswith("\n````")


def test_prose_escapes_html_outside_code_spans_only() -> None:
    assert prose("a <think> b `<think>` c") == "a \\<think> b `<think>` c"
    assert prose("unclosed ` <x>") == "unclosed ` \\<x>"
