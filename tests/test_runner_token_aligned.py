"""A scrubber that declares it needs whole tags (token_aligned) is never given a split one.

Real parsers that decide on token ids (vLLM's DeepSeek-R1 parser) see a tag split
across deltas as plain text, which their server never produces; running them on
such chunkings would blame them for the driving. The runner leaves those
chunkings and truncation cuts out and counts them in the result.
"""

from __future__ import annotations

from scrubcheck.adapters import load_adapter
from scrubcheck.chunking import tag_spans
from scrubcheck.model import Scenario
from scrubcheck.results import Outcome
from scrubcheck.runner import RunSettings, run_scenario
from scrubcheck.scrubbers.reference import ReferenceScrubber
from scrubcheck.vocabulary import build_vocabulary

SCENARIO = Scenario("aligned", "blocks", ("R-BLOCK-1",), "", ("Hi <think>plan the reply</think>",
                                                               " there."),
                    ("plan the reply",), visible="Hi  there.")


class WholeTagsOnly(ReferenceScrubber):
    """The reference, but at flush() it refuses a stream whose deltas split a tag, as a
    token-id parser would misread one."""

    def feed(self, delta: str) -> str:
        self.__dict__.setdefault("seen", []).append(delta)
        return super().feed(delta)

    def flush(self, finish_reason: str | None = None) -> str:
        deltas, self.seen = self.__dict__.get("seen", []), []
        inside = {p for a, b in tag_spans("".join(deltas), build_vocabulary()) for p in
                  range(a + 1, b)}
        ends = {sum(map(len, deltas[: i + 1])) for i in range(len(deltas) - 1)}
        if inside & ends:
            raise ValueError(f"a tag split across deltas: {deltas!r}")
        return super().flush(finish_reason)


def _adapter(token_aligned: bool):
    adapter = load_adapter(f"{__file__}:WholeTagsOnly")
    adapter.token_aligned = token_aligned
    return adapter


def test_split_tags_reach_an_ordinary_scrubber():
    result = run_scenario(_adapter(False), SCENARIO, RunSettings(linear_check=False))
    assert result.outcome is Outcome.ERROR
    assert "a tag split across deltas" in result.reason


def test_a_token_aligned_scrubber_gets_whole_tags_only_and_the_rest_is_counted():
    result = run_scenario(_adapter(True), SCENARIO, RunSettings(linear_check=False))
    assert result.outcome is Outcome.PASS, result.failures
    every_split = len(SCENARIO.text) - 1
    inside_tags = len("<think>") - 1 + len("</think>") - 1
    assert result.capped["chunking splitting a tag"] >= inside_tags  # split@N inside a tag, char
    assert result.capped["truncation splitting a tag"] == inside_tags
    assert result.chunkings_run < every_split  # fewer ran, and the report says how many
    assert any("token-aligned scrubber" in note for note in result.notes)
