"""The batch model of SPEC (scrubcheck.specmodel) and the streaming reference agree.

The model is the harness's yardstick for R-TAG-1 and the R-WS-1 cut points; the
reference is one implementation under test. Two readings written independently
that agree on the whole corpus (its expected outputs included) and on generated
streams are evidence for both; a disagreement is a bug in one of them or in SPEC.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from token_soup import token_soup

from scrubcheck.generate import strategies as sst
from scrubcheck.model import Context
from scrubcheck.scrubbers.reference import ReferenceScrubber, scrub_with_cuts
from scrubcheck.specmodel import read_stream, tags_outside_code
from scrubcheck.specmodel.harmony import shows_message
from scrubcheck.vocabulary import FEATURES

ALL = tuple(sorted(FEATURES))
MODEL_DIR = Path(__file__).resolve().parent.parent / "suite" / "specmodel"
FAST = settings(max_examples=300, deadline=None, database=None,
                suppress_health_check=list(HealthCheck))


def _agree(text: str, context: Context) -> None:
    reading = read_stream(text, context)
    output, cuts = scrub_with_cuts(text, context)
    assert reading.visible == output, (text, context)
    assert reading.cuts == tuple(cuts), (text, context)


# -- the corpus ----------------------------------------------------------------
def test_the_model_gives_every_scenario_its_expected_output_and_the_references_cuts(corpus):
    disagreements = []
    for scenario in corpus.scenarios:
        reading = read_stream(scenario.text, scenario.context)
        output, cuts = scrub_with_cuts(scenario.text, scenario.context)
        expected = scenario.expected_outputs
        if expected is not None and reading.visible not in expected:
            disagreements.append(f"{scenario.id}: the model's output is not the expected one")
        if reading.visible != output or reading.cuts != tuple(cuts):
            disagreements.append(f"{scenario.id}: the model and the reference differ")
    assert not disagreements, disagreements[:10]
    assert len(corpus.scenarios) > 2000


# -- generated streams -----------------------------------------------------------
@FAST
@given(sst.streams(features=ALL))
def test_generated_streams_read_as_their_builder_says_and_as_the_reference_does(stream):
    assert read_stream(stream.text, stream.context).visible == stream.expected
    _agree(stream.text, stream.context)


_CONTEXTS = st.builds(
    Context,
    starts_in_reasoning=st.booleans(),
    inline_answer=st.booleans(),
    finish_reason=st.sampled_from(["stop", "length", "tool_calls", "content_filter", None]),
    features=st.sampled_from([(), ALL, ("harmony",), ("harmony", "solar-open"), ("bracket",)]),
    may_skip_reasoning=st.booleans(),
    delimiters=st.sampled_from([
        (),
        ({"open": "<a<b>", "close": "</ab>"},),  # R-TAG-1's failed longer match
        ({"marker": "@"}, {"open": "{{", "close": "}}"}),  # one-character marker
        ({"open": "<think>", "close": "</reflect>"}, {"open": "<reflect>", "close": "</think>"}),
    ]),
)
_STRUCTURE = ("`", "``", "```", "~~~", "\n", "\r\n", " ", "   ", "<", ">", "/", "|", "x")


_soup = token_soup(_CONTEXTS, _STRUCTURE, max_size=48)


@FAST
@given(_soup)
def test_token_soup_reads_as_the_reference_reads_it_under_every_context(case):
    text, context = case
    _agree(text, context)


# -- SPEC's own examples, read without the reference ------------------------------
SPEC_EXAMPLES = [
    ("a<think>x</think>b", Context(), "ab"),  # R-BLOCK-1
    ("<think><think>x</think>b", Context(), "b"),  # R-BLOCK-2: no nesting
    ("<thinking>x</think>b", Context(), ""),  # R-BLOCK-4, R-UNCLOSED-1
    ("<thi<think>x</think>nk>secret</think>after", Context(), "after"),  # R-TAG-1
    ("`<think>x</think>`", Context(), "`<think>x</think>`"),  # R-CODE-1
    ("``<think>`secret</think> b", Context(), "`` b"),  # R-CODE-3
    ("`a <think>s</think> b", Context(), "`a  b"),  # R-CODE-3
    ("```py <think>\nx\n```\n", Context(), "```py <think>\nx\n```\n"),  # R-CODE-2 info string
    ("`<think>x</think>`", Context(finish_reason="length"), "`"),  # R-CODE-6 and R-CODE-7
    # R-CODE-6 in a block: the run at the cut may still grow to close the span, so the
    # close does not end the block (the stream may have gone on `` ``</think>after ``)
    ("<think>``a</think>visible secret `", Context(finish_reason="length"), ""),
    ("<think>``a</think>visible secret `", Context(), "visible secret `"),
    ("<think>`</think>` x</think>y", Context(), "y"),  # R-CODE-5
    ("Hi <thi", Context(), "Hi <thi"),  # R-UNCLOSED-4
    ("<think>a\nanswer", Context(inline_answer=True), "answer"),  # R-UNCLOSED-2
    ("<think>a\nanswer", Context(inline_answer=True, finish_reason="length"), ""),
    ("r</think>a</think>b", Context(starts_in_reasoning=True), "ab"),  # R-ORPHAN-1/2
    ("just <b>answer", Context(starts_in_reasoning=True, may_skip_reasoning=True),
     "just <b>answer"),  # R-SKIP-1
    ("just answer", Context(starts_in_reasoning=True, may_skip_reasoning=True,
                            finish_reason="length"), ""),  # R-SKIP-3
    ("<|channel|>analysis<|message|>s<|end|><|start|>assistant<|channel|>final"
     "<|message|>Hi<|return|>", Context(features=("harmony",)), "Hi"),  # R-HARMONY-1/2
    ("a<|start|>b c", Context(features=("harmony",)), "a"),  # R-HARMONY-1: bare start
    # R-HARMONY-1: the 4096-character limit is per header, not per stream
    ("<|start|>assistant<|channel|>final<|message|>Hi" * 120, Context(features=("harmony",)),
     "Hi" * 120),
    ("a<|end|>b<|message|>c", Context(features=("harmony",)), "abc"),  # R-HARMONY-3
    ("<a<think>x</think><b>s</ab>t", Context(delimiters=({"open": "<a<b>", "close": "</ab>"},)),
     "t"),  # R-TAG-1's failed longer match (R-CUSTOM-1)
    # R-CUSTOM-1: a caller's tag that starts with a lower-case letter, written in capitals
    ("a THINK secret /THINK b", Context(delimiters=({"open": "tHINK", "close": "/tHINK"},)),
     "a  b"),
]


@pytest.mark.parametrize("text,context,visible", SPEC_EXAMPLES)
def test_specs_examples(text, context, visible):
    assert read_stream(text, context).visible == visible


@pytest.mark.parametrize("text,context,visible", SPEC_EXAMPLES)
def test_the_streaming_reference_reads_the_specs_examples_alike(text, context, visible):
    """The same examples through the reference, whole and one character at a time: each
    of the last three once showed what the model does not (a header limit counted over
    the stream, a run at the cut read at its exact length inside a block, a caller's
    tag missed in the other case of its first letter)."""
    for deltas in ([text], list(text)):
        scrubber = ReferenceScrubber(**context.as_kwargs())
        assert "".join(map(scrubber.feed, deltas)) + scrubber.flush() == visible


@pytest.mark.parametrize("header,by_start,shown", [
    ("final", False, True),
    ("commentary", False, True),
    ("analysis", False, False),
    ("commentary to=functions.f <|constrain|>json", False, False),
    ("assistant<|channel|>final", True, True),
    ("assistant to=functions.f<|channel|>commentary", True, False),
    ("functions.f to=assistant<|channel|>commentary", True, False),
    ("user<|channel|>final", True, False),
    ("assistant", True, False),
    ("FINAL", False, True),
    ("final" + " " * 4096, False, False),
])
def test_a_harmony_header_decides_its_message(header, by_start, shown):
    assert shows_message(header, by_start) is shown


def test_tags_outside_code_are_found_where_they_stand():
    assert tags_outside_code("a <think> b `</think>` c </think>") == [
        (2, "<think>")]  # the block swallows the rest
    assert tags_outside_code("a </think> b `</think>` c [THINK]", ("bracket",)) == [
        (2, "</think>"), (26, "[THINK]")]
    assert tags_outside_code("x <thi<think>y</think>nk> z") == [(6, "<think>"), (2, "<think>")]
    assert tags_outside_code("```\n<think>\n```\n`<think>` fine") == []


def test_the_model_shares_no_code_with_any_scrubber():
    for path in MODEL_DIR.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom | ast.Import):
                names = [node.module or ""] if isinstance(node, ast.ImportFrom) else [
                    a.name for a in node.names]
                assert not any("scrubbers" in n for n in names), (path.name, names)
