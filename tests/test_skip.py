"""Hybrid models that may skip reasoning (SPEC section 5a, R-SKIP-1..3): the reference
holds the pre-filled text until it knows, and the harness catches a scrubber that guesses."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from scrubcheck.adapters import load_adapter
from scrubcheck.model import FINISH_REASONS, Context, Scenario
from scrubcheck.runner.judge import run_scenario
from scrubcheck.scrubbers.reference import ReferenceScrubber

SKIP = {"starts_in_reasoning": True, "may_skip_reasoning": True}
ANSWER = ["The capital ", "of France\n", "is Paris."]


def test_the_pre_filled_text_is_held_until_the_end_then_shown_on_stop():
    scrubber = ReferenceScrubber(**SKIP)
    assert [scrubber.feed(d) for d in ANSWER] == ["", "", ""]
    assert scrubber.flush() == "".join(ANSWER)


@pytest.mark.parametrize("finish", [f for f in FINISH_REASONS if f != "stop"])
def test_other_finish_reasons_recover_nothing(finish):
    scrubber = ReferenceScrubber(**SKIP, finish_reason=finish)
    assert "".join(scrubber.feed(d) for d in ANSWER) + scrubber.flush() == ""


def test_the_finish_reason_may_arrive_at_flush():
    scrubber = ReferenceScrubber(**SKIP, finish_reason=None)
    for delta in ANSWER:
        scrubber.feed(delta)
    assert scrubber.flush(finish_reason="stop") == "".join(ANSWER)
    for delta in ANSWER:  # reusable after flush (R-REUSE-1), and strict again on length
        scrubber.feed(delta)
    assert scrubber.flush(finish_reason="length") == ""


def test_a_close_decides_at_once_and_drops_what_was_held():
    scrubber = ReferenceScrubber(**SKIP)
    assert scrubber.feed("line one of reasoning\nline two\n") == ""
    assert scrubber.feed("</think>\nAnswer") == "\nAnswer"
    assert scrubber.flush() == ""


def test_without_the_signal_or_with_inline_answer_nothing_new_happens():
    strict = ReferenceScrubber(starts_in_reasoning=True)
    assert "".join(strict.feed(d) for d in ANSWER) + strict.flush() == ""
    both = ReferenceScrubber(**SKIP, inline_answer=True)
    assert "".join(both.feed(d) for d in ANSWER) + both.flush() == "is Paris."


def test_the_recovered_stream_is_read_as_answer_text():
    scrubber = ReferenceScrubber(**SKIP)
    out = scrubber.feed("Yes. <thinking>stray note\nnever closed") + scrubber.flush()
    assert out == "Yes. "


GUESSERS = textwrap.dedent(
    '''
    from scrubcheck.scrubbers.reference import ReferenceScrubber

    class ShowsEarly(ReferenceScrubber):
        """Guesses that a may-skip pre-fill is an answer and shows it at once."""

        def __init__(self, *, starts_in_reasoning=False, may_skip_reasoning=False, **context):
            super().__init__(starts_in_reasoning=starts_in_reasoning and not may_skip_reasoning,
                             **context)
    '''
)


@pytest.fixture(scope="module")
def guesser(tmp_path_factory: pytest.TempPathFactory) -> str:
    path: Path = tmp_path_factory.mktemp("skip") / "guessers.py"
    path.write_text(GUESSERS)
    return f"{path}:ShowsEarly"


def scenario(deltas: list[str], visible: str, reasoning: tuple[str, ...] = ()) -> Scenario:
    return Scenario(id="s", area="skip", rules=("R-SKIP-1", "R-SKIP-2"), description="d",
                    deltas=tuple(deltas), reasoning=reasoning, visible=visible,
                    context=Context(starts_in_reasoning=True, may_skip_reasoning=True))


def test_showing_a_direct_answer_early_is_caught_by_the_cut_runs(guesser):
    """The guess gives the right final output here, but a stream cut before its end
    (finish_reason length) must show nothing: R-SKIP-2."""
    direct = scenario(ANSWER, "".join(ANSWER))
    result = run_scenario(load_adapter(guesser), direct)
    assert result.outcome.name == "FAIL"
    assert {f.rule for f in result.failures} == {"R-SKIP-2"}
    assert all(f.chunking.startswith("trunc@") for f in result.failures)
    assert run_scenario(load_adapter("reference"), direct).outcome.name == "PASS"


def test_showing_reasoning_early_is_a_leak(guesser):
    reasoned = scenario(["check the map twice\n", "</think>Lima."], "Lima.",
                        ("check the map twice",))
    result = run_scenario(load_adapter(guesser), reasoned)
    assert "R-LEAK-1" in {f.rule for f in result.failures}
    assert run_scenario(load_adapter("reference"), reasoned).outcome.name == "PASS"
