"""A cut right after a backtick needs finish_reason (SPEC R-CODE-6): a scrubber that
cannot take it is not judged on those cuts, and the report counts them."""

from __future__ import annotations

from scrubcheck.adapters import load_adapter
from scrubcheck.model import Scenario
from scrubcheck.runner import RunSettings, run_scenario

SCENARIO = Scenario("span", "truncation", ("R-CODE-1",), "", ("Note `<think>x</think>`", " done"),
                    (), visible="Note `<think>x</think>` done")


def _cut_notes(spec: str) -> list[str]:
    result = run_scenario(load_adapter(spec), SCENARIO, RunSettings(linear_check=False))
    return [n for n in result.notes if "truncation cut" in n]


def test_cuts_after_a_backtick_are_unsupported_without_finish_reason():
    (note,) = _cut_notes("scrubcheck.scrubbers.broken.no_context:NoContextScrubber")
    assert note.startswith("2 truncation cut(s) not checked (UNSUPPORTED)")  # after each `
    assert "finish_reason" in note


def test_a_scrubber_that_takes_finish_reason_is_judged_on_every_cut():
    assert _cut_notes("reference") == []
