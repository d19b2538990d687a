"""Seen in the field (scrubcheck.explain.field): a root cause whose signature has the
shape of a failure mode in docs/field.md is marked with it. The shapes file must name
sections that exist, under their own headings, and a bad file is refused by name."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from scrubcheck.explain.difference import Did
from scrubcheck.explain.field import SHAPES_FILE, ShapeError, read_shapes, seen_in_field
from scrubcheck.explain.signature import UNCLOSED_OPEN, Signature

FIELD = Path(__file__).resolve().parents[1] / "docs" / "field.md"


def test_every_shape_names_a_section_of_the_field_notes_by_its_heading() -> None:
    text = FIELD.read_text(encoding="utf-8")
    headings = dict(re.findall(r'<a id="([^"]+)"></a>\n### (.+)', text))
    shapes = read_shapes(SHAPES_FILE)
    assert shapes
    for shape in shapes:
        assert headings.get(shape.anchor) == shape.title, shape


@pytest.mark.parametrize(("signature", "anchors"), [
    (Signature(Did.SHOWS_REASONING, piece="an unclosed block"), ["fm-unclosed"]),
    (Signature(Did.SHOWS_REASONING, piece="a closed block"), ["fm-tags-only"]),
    (Signature(Did.SHOWS_DELIMITER, piece=UNCLOSED_OPEN), ["fm-unclosed"]),
    (Signature(Did.SHOWS_DELIMITER, case="other letter case"), ["fm-case"]),
    (Signature(Did.MISSES_DELIMITER, piece="close", case="other letter case",
               boundary="when a delta boundary splits it after its 4th character"),
     ["fm-split-tags", "fm-case"]),
    (Signature(Did.SHOWS_DELIMITER, family="kimi-xtml"), ["fm-vocabulary"]),
    (Signature(Did.DROPS_LITERAL, needs=("code",)), ["fm-code"]),
    (Signature(Did.SHOWS_REASONING, piece="a pre-filled block",
               context=("the template pre-filled the open (starts_in_reasoning)",)),
     ["fm-prefill"]),
    (Signature(Did.HANGS, piece="timeout"), ["fm-robustness"]),
    (Signature(Did.HOLDS_BACK, piece="until the end"), []),
    (Signature(Did.ADDS_TEXT, piece="a repeat of answer text"), []),
])
def test_a_signature_is_marked_with_the_modes_it_has(signature: Signature,
                                                     anchors: list[str]) -> None:
    assert [seen["anchor"] for seen in seen_in_field(signature)] == anchors
    for seen in seen_in_field(signature):
        assert seen["link"] == f"docs/field.md#{seen['anchor']}"


@pytest.mark.parametrize(("body", "message"), [
    ('[[shape]]\nanchor = "a"\ntitle = "b"\ncolour = "red"\n', "unknown key(s) colour"),
    ('[[shape]]\nanchor = "a"\ntitle = "b"\ndid = ["leaks"]\n', "'leaks' is not a decision"),
    ('[[shape]]\nanchor = "a"\ntitle = "b"\n', "matches every signature"),
    ('[[shape]]\ntitle = "b"\ncase = "?*"\n', "needs an anchor and a title"),
    ('[[shape]]\nanchor = "a"\ntitle = "b"\npiece = "x"\n', "piece must be a list"),
    ('[shapes]\n', "only [[shape]] tables"),
    ('[[shape]\n', "Expected"),
])
def test_a_bad_shapes_file_is_refused_by_name(tmp_path: Path, body: str, message: str) -> None:
    path = tmp_path / "shapes.toml"
    path.write_text(body, encoding="utf-8")
    with pytest.raises(ShapeError, match=re.escape(message)) as caught:
        read_shapes(path)
    assert str(caught.value).startswith(str(path))
