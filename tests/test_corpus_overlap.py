"""The 8-character window rule that makes a leak provable."""

from __future__ import annotations

from scrubcheck.corpus.overlap import overlaps, shared_window, windows


def test_windows_of_short_text_are_empty() -> None:
    assert windows("1234567") == set()
    assert windows("123456789") == {"12345678", "23456789"}


def test_shared_window_finds_eight_common_characters() -> None:
    assert shared_window("plan the route home", "Take the route home.") == " the rou"
    assert shared_window("plan the route", "Take the ro") is None


def test_short_reasoning_overlaps_only_as_a_substring() -> None:
    assert shared_window("42", "the answer is 42") == "42"
    assert shared_window("43", "the answer is 42") is None


def test_overlaps_reports_each_offending_string_once() -> None:
    found = overlaps(["alpha beta gamma", "zzzzzzzzzz", "xy"], "alpha beta gamma xy")
    assert set(found) == {0, 2}
    assert found[2] == "xy"


def test_overlaps_is_linear_on_a_long_output() -> None:
    output = "answer text " * 100_000
    assert overlaps([f"reasoning note {i:05d}" for i in range(200)], output) == {}
