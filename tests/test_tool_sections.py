"""Tool sections that end reasoning (SPEC R-BLOCK-5, `ends_reasoning` in a format file).

The reference and the SPEC model read the mark from the registry alone; a tool section
without it keeps its SPEC 1.3 meaning (reasoning text inside a block), so every format
shipped before the mark reads as it did.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from scrubcheck.corpus import load_corpus
from scrubcheck.formats import registered_formats
from scrubcheck.formats.registry import read_formats
from scrubcheck.model import Context
from scrubcheck.scrubbers.reference import make_scrubber
from scrubcheck.specmodel import read_stream
from scrubcheck.vocabulary import FEATURES

ACME = """\
format: 1
name: acme-tools
title: A throwaway format whose tool section ends reasoning
sources:
  - {url: "https://example.org/acme", shows: "made up for a test"}
generic: feature
case: exact
template: {prefills_open: sometimes, may_skip_reasoning: false}
delimiters:
  - {kind: special-token-pair, open: "<|acme_think|>", close: "<|acme_end|>"}
  - {kind: tool-section, open: "<|acme_call|>", close: "<|acme_done|>", ends_reasoning: true}
  - {kind: tool-section, open: "<|acme_result|>", close: "<|acme_result_end|>"}
"""

T, E, C, D = "<|acme_think|>", "<|acme_end|>", "<|acme_call|>", "<|acme_done|>"
STREAMS: list[tuple[str, Context, str]] = [
    (f"Hi {T}plan{C}f(){D}Done.", Context(features=("acme-tools",)), "Hi Done."),
    (f"plan{C}f(){D}Done.", Context(starts_in_reasoning=True, features=("acme-tools",)), "Done."),
    (f"{T}plan `{C}` more{E}Done.", Context(features=("acme-tools",)), "Done."),
    (f"Hi {T}plan{C}f(", Context(finish_reason="length", features=("acme-tools",)), "Hi "),
    # a section not marked ends nothing: its open is reasoning text inside the block
    (f"Hi {T}plan<|acme_result|>r<|acme_result_end|>more{E}Done.",
     Context(features=("acme-tools",)), "Hi Done."),
    # a block of another format is not ended by this format's section
    (f"Hi <think>plan{C}f(){D}more</think>Done.", Context(features=("acme-tools",)),
     "Hi Done."),
    (f"Hi {T}plan{C}f(){D}Done.", Context(conformance_class="acme-tools"), "Hi Done."),
    # a marked section ends reasoning, not another tool section
    (f"Hi <|acme_result|>r{C}f(){D}more<|acme_result_end|>Done.",
     Context(features=("acme-tools",)), "Hi Done."),
]


def _scrub(text: str, context: Context, step: int) -> str:
    scrubber = make_scrubber(context)
    out = "".join(scrubber.feed(text[i:i + step]) for i in range(0, len(text), step))
    return out + scrubber.flush()


def _in_child(tmp_path: Path, body: Callable[[], bool]) -> None:
    """Register the throwaway format in a child process (the registry is per process)."""
    (tmp_path / "acme-tools.yaml").write_text(ACME, encoding="utf-8")
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            from scrubcheck.vocabulary import register_formats

            register_formats([tmp_path / "acme-tools.yaml"])
            code = 0 if body() else 3
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0


def test_the_spec_model_and_the_reference_read_the_mark_from_the_file(tmp_path: Path) -> None:
    def body() -> bool:
        for text, context, expected in STREAMS:
            if read_stream(text, context).visible != expected:
                return False
            if any(_scrub(text, context, step) != expected for step in (1, 2, 5, len(text))):
                return False
        return True

    _in_child(tmp_path, body)


def test_the_generators_bring_the_formats_own_scenarios(tmp_path: Path) -> None:
    def body() -> bool:
        corpus = load_corpus()
        ids = {s.id for s in corpus.scenarios if s.id.startswith("gen-tool-ends-acme-tools")}
        # one reasoning pair x one marked section x four variants
        return len(ids) == 4 and all(
            read_stream(s.text, s.context).visible == s.visible for s in corpus.scenarios
            if s.id in ids)

    _in_child(tmp_path, body)


def test_the_mark_belongs_to_a_tool_section_only(tmp_path: Path) -> None:
    bad = ACME.replace('close: "<|acme_end|>"}', 'close: "<|acme_end|>", ends_reasoning: true}')
    path = tmp_path / "acme-tools.yaml"
    path.write_text(bad, encoding="utf-8")
    formats, errors = read_formats([path])
    assert not formats
    assert any("ends_reasoning belongs to a tool-section" in str(e) and f"{path}:" in str(e)
               for e in errors), errors


@pytest.mark.parametrize("name", [n for n, f in FEATURES.items() if f.tool_ends])
def test_every_marked_shipped_section_has_its_scenarios_and_the_reference_passes(
        name: str) -> None:
    corpus = load_corpus()
    mine = [s for s in corpus.scenarios
            if s.id.startswith(f"gen-tool-ends-{name}-") and "tool" in s.id]
    assert mine, f"no tool-ends-block scenarios for {name}"
    for s in mine:
        assert s.visible is not None
        assert read_stream(s.text, s.context).visible == s.visible, s.id
        assert _scrub(s.text, s.context, 3) == s.visible, s.id


def test_formats_shipped_before_the_mark_read_their_tool_sections_as_before() -> None:
    """Apertus writes tool calls inside its deliberation: no mark, the block goes on."""
    shipped = registered_formats()
    for name in ("gemma-channel", "kimi-xtml", "apertus", "solar-open"):
        assert not any(d.ends_reasoning for d in shipped[name].delimiters), name
    text = "<|inner_prefix|>plan<|tools_prefix|>[]<|tools_suffix|>more<|inner_suffix|>Done."
    assert read_stream(text, Context(features=("apertus",))).visible == "Done."
