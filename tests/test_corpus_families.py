"""Generated families: complete, deterministic, located at their recipe, and SPEC-consistent."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from scrubcheck.corpus import default_corpus_dir, load_corpus
from scrubcheck.corpus.families import FAMILIES
from scrubcheck.corpus.family_case import LOOKALIKES
from scrubcheck.corpus.family_long import long_stream
from scrubcheck.corpus.overlap import overlaps
from scrubcheck.corpus.prose import TOPICS
from scrubcheck.corpus.templates import (
    custom_delimiters_to_split,
    default_delimiters,
    feature_delimiters,
)
from scrubcheck.model import Scenario
from scrubcheck.vocabulary import FAMILY_NAMES, FEATURES, fold
from scrubcheck.yamlsource import parse_yaml

GENERATED = default_corpus_dir() / "generated.yaml"
SLUG = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")


@pytest.fixture(scope="module")
def generated() -> dict[str, Scenario]:
    corpus = load_corpus([GENERATED])
    assert [str(e) for e in corpus.errors] == []
    return corpus.by_id()


def _family(generated: dict[str, Scenario], name: str) -> list[Scenario]:
    return [s for s in generated.values() if f"family:{name}" in s.labels]


def test_every_family_is_used_in_generated_yaml(generated: dict[str, Scenario]) -> None:
    used = Counter(label.removeprefix("family:") for s in generated.values()
                   for label in s.labels if label.startswith("family:"))
    assert set(used) == set(FAMILIES)


def test_generated_scenarios_point_at_their_entry_line(generated: dict[str, Scenario]) -> None:
    entries = parse_yaml(GENERATED.read_text(encoding="utf-8"))
    lines = {entry["id"]: line for entry, line in zip(entries, entries.item_lines, strict=True)}
    for scenario in generated.values():
        prefix = max((p for p in lines if scenario.id.startswith(p + "-")), key=len)
        assert scenario.line == lines[prefix], scenario.id
        assert Path(scenario.file).name == "generated.yaml"
        assert scenario.area == "generated"


@pytest.mark.parametrize("name", sorted(FAMILIES))
def test_family_suffixes_are_unique_slugs_and_builds_are_deterministic(name: str) -> None:
    family = FAMILIES[name]
    params = {"streams": [{"size": 8192, "delta_sizes": [5]}]} if name == "long-stream" else {}
    first = list(family.build(params))
    assert first, name
    suffixes = [g.suffix for g in first]
    assert len(suffixes) == len(set(suffixes))
    assert all(SLUG.match(s) for s in suffixes)
    assert list(family.build(params)) == first


def test_split_covers_every_interior_position_of_every_default_tag(
        generated: dict[str, Scenario]) -> None:
    for d in default_delimiters():
        for k in range(1, len(d.text)):
            s = generated[f"gen-split-{d.key}-{k}"]
            assert len(s.deltas) == 2
            assert s.deltas[0].endswith(d.text[:k]) and s.deltas[1].startswith(d.text[k:])
            assert s.context.features == ()
    assert len(_family(generated, "split-every-position")) == sum(
        len(d.text) - 1 for d in [*default_delimiters(), *feature_delimiters(),
                                  *custom_delimiters_to_split()])


def test_split_covers_every_feature_delimiter_with_its_feature(
        generated: dict[str, Scenario]) -> None:
    for d in feature_delimiters():
        for k in range(1, len(d.text)):
            s = generated[f"gen-split-feature-{d.key}-{k}"]
            assert s.context.features == (d.feature,)
            assert s.deltas[0].endswith(d.text[:k]) and s.deltas[1].startswith(d.text[k:])


def _strip_blocks(text: str, pairs: list[tuple[str, str]], markers: list[str]) -> str:
    """An independent oracle for the simple generated shapes: regex removal, ASCII-folded."""
    folded = fold(text)
    for open_tag, close_tag in pairs:
        pattern = re.escape(fold(open_tag)) + r".*?" + re.escape(fold(close_tag))
        for m in reversed(list(re.finditer(pattern, folded, flags=re.DOTALL))):
            text = text[: m.start()] + text[m.end():]
            folded = folded[: m.start()] + folded[m.end():]
    for marker in markers:
        for m in reversed(list(re.finditer(re.escape(fold(marker)), folded))):
            text = text[: m.start()] + text[m.end():]
            folded = folded[: m.start()] + folded[m.end():]
    return text


@pytest.mark.parametrize("family", ["split-every-position", "case-variants"])
def test_visible_is_the_input_without_its_blocks(generated: dict[str, Scenario],
                                                 family: str) -> None:
    pairs = [(f"<{n}>", f"</{n}>") for n in FAMILY_NAMES]
    for s in _family(generated, family):
        if "harmony" in s.context.features:
            continue  # a grammar, not pairs (SPEC R-HARMONY-1/2): the corpus run judges it
        markers: list[str] = []
        feature_pairs = list(pairs)
        for name in s.context.features:
            feature = FEATURES[name]
            feature_pairs += [(o, c) for o, closes in feature.pairs for c in closes]
            # after the blocks, a close left over is an orphan: removed like a marker
            markers += [*feature.markers, *(c for _, closes in feature.pairs for c in closes)]
        for d in s.context.delimiters:  # the caller's own (R-CUSTOM-1)
            feature_pairs += [(d.open, d.close)] if d.open else []
            markers += [d.marker or d.close]
        assert _strip_blocks(s.text, feature_pairs, markers) == s.visible, s.id
        for reasoning in s.reasoning:
            assert reasoning not in s.visible


def test_case_variants_cover_each_name_in_several_cases(generated: dict[str, Scenario]) -> None:
    for name in FAMILY_NAMES:
        key = name.replace("_", "-")
        for style in ("upper", "title", "alternating", "inverted"):
            for which in ("open", "close", "both"):
                s = generated[f"gen-case-{key}-{style}-{which}"]
                assert f"<{name}>" not in s.text or which == "close"
                assert f"</{name}>" not in s.text or which == "open"
    upper = generated["gen-case-reasoning-scratchpad-upper-both"]
    assert "<REASONING_SCRATCHPAD>" in upper.text and "</REASONING_SCRATCHPAD>" in upper.text


def test_non_ascii_lookalikes_stay_visible(generated: dict[str, Scenario]) -> None:
    found = _family(generated, "non-ascii-case")
    assert len(found) == sum(1 for n in FAMILY_NAMES for letter in LOOKALIKES if letter in n)
    for s in found:
        fakes = re.findall(r"</?[^<>\s]*[\u0131\u017f\u212a][^<>\s]*>", s.text)
        assert len(fakes) == 2 and all(f in s.visible for f in fakes), s.id


def test_tag_shapes_are_kept_literally(generated: dict[str, Scenario]) -> None:
    s = generated["gen-shape-think-attribute"]
    assert '<think type="plan">' in s.visible
    assert generated["gen-shape-thinking-missing-gt"].visible.count("<thinking\n") == 1


def test_cross_name_close_keeps_the_block_open(generated: dict[str, Scenario]) -> None:
    s = generated["gen-cross-thinking-then-think"]
    (reasoning,) = s.reasoning
    assert "</think>" in reasoning and "</think>" not in s.visible
    assert s.text.count("</thinking>") == 1


def test_prefill_starts_inside_reasoning(generated: dict[str, Scenario]) -> None:
    for s in _family(generated, "prefill-close"):
        assert s.context.starts_in_reasoning
        assert s.text.startswith(s.reasoning[0])
        assert s.visible.startswith("\n\n")


def test_unclosed_matrix_recovers_only_with_signal_stop_and_newline(
        generated: dict[str, Scenario]) -> None:
    found = _family(generated, "unclosed-matrix")
    assert len(found) == 20
    recovered = [s.id for s in found if not s.visible.endswith("\n")]
    assert recovered == ["gen-unclosed-stop-inline-newline"]
    for s in found:
        topic = next(t for t in TOPICS if t.reasoning in s.text)
        assert (topic.tail in s.visible) == (s.id in recovered)


def test_long_streams_have_the_requested_size_and_shape(generated: dict[str, Scenario]) -> None:
    found = {s.id: s for s in _family(generated, "long-stream")}
    assert set(found) == {"gen-long-64k-d1", "gen-long-64k-d7", "gen-long-256k-d7",
                          "gen-long-256k-d512", "gen-long-1m-d16", "gen-long-1m-d4096"}
    sizes = {"64k": 65536, "256k": 262144, "1m": 1048576}
    for key, s in found.items():
        label, delta = key.removeprefix("gen-long-").split("-d")
        assert len(s.text) == sizes[label]
        lengths = [len(d) for d in s.deltas[:-1]]
        assert min(lengths) >= max(1, int(delta) // 2)
        assert max(lengths) <= int(delta) + int(delta) // 2
        assert s.visible.endswith("Final check below.\n")
        assert "`" in s.visible and "```text\n" in s.visible
        assert len(s.reasoning) >= sizes[label] // 8192 // 2
        assert "long" in s.labels
    assert found["gen-long-64k-d1"].text == found["gen-long-64k-d7"].text


def test_long_stream_reasoning_never_overlaps_its_answer() -> None:
    s = long_stream(65536, 99, 1024)
    assert overlaps(list(s.reasoning_strings), s.visible) == {}


def test_topic_reasoning_never_overlaps_any_answer_sentence() -> None:
    answers = " | ".join(f"{t.lead} {t.tail}" for t in TOPICS)
    assert overlaps([t.reasoning for t in TOPICS], answers) == {}


def test_reference_scrubber_agrees_with_every_generated_expectation(
        generated: dict[str, Scenario]) -> None:
    """A second, independent reading of SPEC: the reference scrubber's output."""
    reference = pytest.importorskip("scrubcheck.scrubbers.reference")
    wrong = []
    for s in generated.values():
        scrubber = reference.ReferenceScrubber(**s.context.as_kwargs())
        out = "".join(scrubber.feed(d) for d in s.deltas) + scrubber.flush()
        if out not in (s.expected_outputs or (out,)):
            wrong.append(s.id)
    assert wrong == []


def test_skip_matrix_shows_the_answer_only_with_the_signal_stop_and_no_close(
        generated: dict[str, Scenario]) -> None:
    """SPEC R-SKIP-1..3, judged from each case's context and text, not its recipe."""
    cases = _family(generated, "skip-matrix")
    assert len(cases) == 5 * 2 * 2 * 4
    for s in cases:
        ctx = s.context
        assert ctx.starts_in_reasoning
        if "</think>" in s.text:  # the model reasoned: everything before the close is hidden
            assert s.visible == s.text.split("</think>", 1)[1], s.id
        elif ctx.inline_answer and ctx.finish_reason == "stop" and "\n" in s.text:
            assert s.visible == s.text.rsplit("\n", 1)[1], s.id  # R-UNCLOSED-2 wins
        elif ctx.may_skip_reasoning and ctx.finish_reason == "stop" and not ctx.inline_answer:
            assert s.visible == s.text, s.id
        else:
            assert s.visible == "", s.id


def test_harmony_headers_show_only_an_assistant_final_or_commentary_message(
        generated: dict[str, Scenario]) -> None:
    cases = _family(generated, "harmony-headers")
    shown = [s for s in cases if s.description.endswith(": answer text.")]
    assert len(shown) == 4  # <|start|>assistant and bare <|channel|>, x final, commentary
    for s in shown:
        assert "-assistant-" in s.id and "no-recipient" in s.id
        assert s.id.split("-assistant-")[1].split("-")[0] in ("final", "commentary")
    for s in cases:
        assert s.reasoning or s in shown
        assert not any(token in s.visible for token in ("<|message|>", "<|channel|>", "to="))
