"""SPEC.md and the code say the same thing: the version line and the feature table.

The rule table has its own test (test_corpus_coverage.py). These two are the other
places where the document and the code each hold a copy: the version a run records
(`scrubcheck.spec.SPEC_VERSION`) and the delimiters of each feature, which the
reference, the checks and the linter take from `scrubcheck.vocabulary.FEATURES`.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from scrubcheck.spec import SPEC_VERSION, spec_path
from scrubcheck.vocabulary import FEATURES, Feature

#: A feature row whose delimiters are described in a section of their own, not the table.
SECTION_ROW = "section 2a"


@pytest.fixture(scope="module")
def spec_text() -> str:
    path = spec_path()
    assert path is not None, "SPEC.md not found next to the package"
    return Path(path).read_text(encoding="utf-8")


def test_the_version_line_is_the_version_runs_record(spec_text: str) -> None:
    match = re.search(r"^Version: \*\*(\d+\.\d+\.\d+)\*\* \((\d{4}-\d\d-\d\d)\)$", spec_text,
                      re.MULTILINE)
    assert match, "SPEC.md has no line 'Version: **X.Y.Z** (YYYY-MM-DD)'"
    assert match.group(1) == SPEC_VERSION, (
        f"SPEC.md says {match.group(1)}, scrubcheck/spec.py SPEC_VERSION says {SPEC_VERSION}")
    newest = re.search(r"^## Changelog\n\n- (\d+\.\d+\.\d+) \((\d{4}-\d\d-\d\d)\)", spec_text,
                       re.MULTILINE)
    assert newest, "SPEC.md's changelog does not start with '- X.Y.Z (YYYY-MM-DD)'"
    assert newest.groups() == match.groups(), "the newest changelog entry is not this version"


def _code_spans(cell: str) -> list[str]:
    """The delimiters written in a table cell, in order (`\\|` is a pipe inside a cell)."""
    return [span.replace("\\|", "|") for span in re.findall(r"`([^`]+)`", cell)]


def _positions(opens: str, closes: str) -> list[tuple[str, tuple[str, ...]]]:
    """A row's (open, closes) pairs: positions are separated by `;` (or, where each holds
    one delimiter, by `,`); one position's several closes are joined by `or`."""
    open_texts = _code_spans(opens)
    separator = ";" if ";" in closes else ","
    close_sets = [tuple(_code_spans(part)) for part in closes.split(separator) if part.strip()]
    assert len(open_texts) == len(close_sets), f"opens {opens!r} do not line up with {closes!r}"
    return list(zip(open_texts, close_sets, strict=True))


def _feature_rows(spec_text: str) -> dict[str, list[str]]:
    """The feature table under R-VOCAB-3: feature name -> its other cells."""
    start = spec_text.index("| feature | open | closes | markers | format source |")
    rows = {}
    for line in spec_text[start:].splitlines()[2:]:
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]]
        (name,) = _code_spans(cells[0])
        rows[name] = cells[1:]
    return rows


def _table_view(feature: Feature) -> tuple[list[tuple[str, tuple[str, ...]]], list[str]]:
    return [(o, tuple(c)) for o, c in feature.pairs], list(feature.markers)


def test_the_feature_table_lists_every_feature_of_the_code(spec_text: str) -> None:
    assert list(_feature_rows(spec_text)) == list(FEATURES)


@pytest.mark.parametrize("name", list(FEATURES))
def test_a_feature_row_has_the_delimiters_of_the_code(spec_text: str, name: str) -> None:
    rows = _feature_rows(spec_text)
    if name not in rows:
        pytest.fail(f"SPEC.md's feature table has no row for {name}")
    opens, closes, markers, source = rows[name]
    feature = FEATURES[name]
    if feature.source:
        assert feature.source in source, f"{name}: the table does not cite {feature.source}"
    if opens == SECTION_ROW:  # harmony: a grammar, described in its own section
        assert closes == markers == SECTION_ROW
        assert feature.header
        return
    table = (_positions(opens, closes), _code_spans(markers))
    assert table == _table_view(feature), f"{name}: SPEC.md and vocabulary.py differ"


def test_the_feature_table_is_the_one_the_registry_writes(spec_text: str) -> None:
    """A new format file needs no hand-made row: regenerate writes the table."""
    from scrubcheck.regenerate.spec_table import updated

    assert updated(spec_text) == spec_text, (
        "SPEC.md's feature table differs from the format registry: run "
        "`scrubcheck regenerate --only spec-table`")
