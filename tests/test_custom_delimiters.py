"""Caller-configured delimiters (SPEC R-CUSTOM-1..2): the reference honours them in every
split, a scrubber that cannot receive them is UNSUPPORTED, and the linter refuses unusable
configurations with their location."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from scrubcheck.adapters import load_adapter
from scrubcheck.corpus import load_corpus
from scrubcheck.model import Context, Scenario
from scrubcheck.runner.judge import run_scenario
from scrubcheck.scrubbers.reference import ReferenceScrubber, strip_reasoning
from scrubcheck.specmodel import tags_outside_code
from scrubcheck.vocabulary import DelimiterError, build_vocabulary

REFLECT = [{"open": "<reflect>", "close": "</reflect>"}]
CASES = [
    ("a<reflect>x</reflect>b<think>y</think>c", REFLECT, "abc"),
    ("a<REFLECT>x</Reflect>b", REFLECT, "ab"),
    ("{{ab}} {{.*}}x{{/.*}}!", [{"open": "{{.*}}", "close": "{{/.*}}"}], "{{ab}} !"),
    ("^[r]$x^[/r]$ (a|b)*", [{"open": "^[r]$", "close": "^[/r]$"}], " (a|b)*"),
    ("a§x¶b§y¶c `§` d", [{"open": "§", "close": "¶"}], "abc `§` d"),
    ("<think>x</reflect>a<think>y</think>b", [{"open": "<think>", "close": "</reflect>"}], "ab"),
    ("<reflect>x</think>a", [{"open": "<reflect>", "close": "</think>"}], "a"),
    ("@@x@@ 42", [{"marker": "@@x@@"}], " 42"),
    ("<a<think>x</think><b>hidden</a<b>ok", [{"open": "<a<b>", "close": "</a<b>"}], "ok"),
    ("<a<think>x</think> plain", [{"open": "<a<b>", "close": "</a<b>"}], "<a plain"),
]


def feed_all(deltas, **context) -> str:
    scrubber = ReferenceScrubber(**context)
    return "".join(scrubber.feed(d) for d in deltas) + scrubber.flush()


@pytest.mark.parametrize("text,delimiters,expected", CASES)
def test_reference_honours_caller_delimiters_in_every_split(text, delimiters, expected):
    assert feed_all([text], delimiters=delimiters) == expected
    assert feed_all(list(text), delimiters=delimiters) == expected
    for k in range(1, len(text)):
        assert feed_all([text[:k], text[k:]], delimiters=delimiters) == expected, k
    assert strip_reasoning(expected, delimiters=delimiters) == expected
    assert tags_outside_code(expected, build_vocabulary((), delimiters)) == []


def test_the_reference_refuses_an_unusable_configuration_when_built():
    with pytest.raises(DelimiterError, match="prefix"):
        ReferenceScrubber(delimiters=[{"open": "<thin", "close": "</x>"}])


FIXED = textwrap.dedent(
    '''
    from scrubcheck.scrubbers.reference import ReferenceScrubber

    class DefaultsOnly(ReferenceScrubber):
        """Takes the classic context only: caller delimiters cannot reach it."""

        def __init__(self, *, starts_in_reasoning=False, inline_answer=False,
                     finish_reason="stop", features=()):
            super().__init__(starts_in_reasoning=starts_in_reasoning,
                             inline_answer=inline_answer, finish_reason=finish_reason,
                             features=features)
    '''
)


def test_a_scrubber_that_cannot_receive_delimiters_is_unsupported(tmp_path: Path):
    path = tmp_path / "fixed.py"
    path.write_text(FIXED)
    adapter = load_adapter(f"{path}:DefaultsOnly")
    context = Context(delimiters=REFLECT)
    reason = adapter.unsupported_reason(context)
    assert reason is not None and "delimiters" in reason
    scenario = Scenario(id="c", area="custom", rules=("R-CUSTOM-1",), description="d",
                        deltas=("a<reflect>x</reflect>b",), reasoning=(), visible="ab",
                        context=context)
    assert run_scenario(adapter, scenario).outcome.name == "UNSUPPORTED"
    skip = Context(starts_in_reasoning=True, may_skip_reasoning=True)
    assert "may_skip_reasoning" in (adapter.unsupported_reason(skip) or "")
    assert run_scenario(load_adapter("reference"), scenario).outcome.name == "PASS"


def test_the_linter_refuses_unusable_delimiters_with_their_line(tmp_path: Path):
    path = tmp_path / "bad.yaml"
    path.write_text(textwrap.dedent(
        '''
        - id: ok-one
          rules: [R-CUSTOM-1]
          description: fine
          deltas: ["a<r>x</r>b"]
          visible: "ab"
          reasoning: []
          context:
            delimiters: [{open: "<r>", close: "</r>"}]

        - id: bad-prefix
          rules: [R-CUSTOM-1]
          description: a delimiter that is a prefix of a family tag
          deltas: ["x"]
          visible: "x"
          reasoning: []
          context:
            delimiters: [{open: "<thi", close: "</r>"}]

        - id: bad-shape
          rules: [R-CUSTOM-1]
          description: an open without a close
          deltas: ["x"]
          visible: "x"
          reasoning: []
          context:
            delimiters: [{open: "<r>"}]
        '''))
    corpus = load_corpus([path])
    assert [s.id for s in corpus.scenarios] == ["ok-one"]
    messages = [str(e) for e in corpus.errors]
    assert any("[bad-prefix]" in m and "prefix" in m for m in messages), messages
    assert any("[bad-shape]" in m for m in messages), messages
