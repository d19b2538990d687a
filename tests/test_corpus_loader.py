"""Loading: scenarios carry their exact location and data; selection filters; the default corpus."""

from __future__ import annotations

from pathlib import Path

import pytest

from scrubcheck.corpus import (
    CorpusError,
    CorpusUnavailable,
    default_corpus_dir,
    load_corpus,
    select,
)
from scrubcheck.corpus.loader import DEFAULT_MAX_BYTES, MAX_BYTES_ENV
from scrubcheck.model import Context
from scrubcheck.yamlsource import MAX_DEPTH, YamlSyntaxError, line_of, parse_yaml

GOOD = """\
# two scenarios, the second with every optional key
- id: plain-block
  rules: [R-BLOCK-1]
  description: A block before the answer.
  deltas: ["<think>weigh it up</think>", "Fine."]
  visible: "Fine."
  reasoning: ["weigh it up"]

- id: full-keys
  rules: [R-UNCLOSED-2, R-CTX-1]
  description: Every optional key set.
  deltas: ["Hi\\n<think>\\nmull over the request\\nAnswer", " here"]
  acceptable: ["Hi\\nAnswer here", "Hi\\n"]
  reasoning: ["mull over the request"]
  context:
    starts_in_reasoning: false
    inline_answer: true
    finish_reason: null
    features: [bracket, kimi]
  source: "test data"
  labels: [example, full]
"""


@pytest.fixture
def good_file(tmp_path: Path) -> Path:
    path = tmp_path / "sample-area.yaml"
    path.write_text(GOOD, encoding="utf-8")
    return path


def test_scenarios_carry_area_file_line_and_fields(good_file: Path) -> None:
    corpus = load_corpus([good_file])
    assert corpus.errors == []
    first, second = corpus.scenarios
    assert (first.id, first.area, first.line) == ("plain-block", "sample-area", 2)
    assert Path(first.file).resolve() == good_file.resolve()
    assert first.deltas == ("<think>weigh it up</think>", "Fine.")
    assert first.expected_outputs == ("Fine.",)
    assert first.context == Context()
    assert second.line == 9
    assert second.acceptable == ("Hi\nAnswer here", "Hi\n")
    assert second.visible is None
    assert second.context == Context(inline_answer=True, finish_reason=None,
                                     features=("bracket", "kimi"))
    assert (second.source, second.labels) == ("test data", ("example", "full"))
    assert second.location.endswith(":9 [full-keys]")


def test_invariants_only_has_no_expected_output(tmp_path: Path) -> None:
    path = tmp_path / "inv.yaml"
    path.write_text('- {id: inv, rules: [R-ROBUST-1], description: d, deltas: ["\\u0000"], '
                    "invariants_only: true, reasoning: []}\n", encoding="utf-8")
    (scenario,) = load_corpus([path]).scenarios
    assert scenario.expected_outputs is None
    assert scenario.text == "\x00"


def test_a_directory_loads_its_yaml_files_in_name_order(tmp_path: Path) -> None:
    for name in ("b.yaml", "a.yaml"):
        (tmp_path / name).write_text(
            f'- {{id: s-{name[0]}, rules: [R-BLOCK-1], description: d, deltas: ["x"], '
            'visible: "x", reasoning: []}\n', encoding="utf-8")
    (tmp_path / "notes.txt").write_text("not a corpus file", encoding="utf-8")
    corpus = load_corpus([tmp_path])
    assert [s.id for s in corpus.scenarios] == ["s-a", "s-b"]
    assert [s.area for s in corpus.scenarios] == ["a", "b"]
    assert len(corpus.files) == 2


def test_the_same_file_twice_is_loaded_once(good_file: Path) -> None:
    corpus = load_corpus([good_file, good_file.parent])
    assert corpus.errors == []
    assert len(corpus.scenarios) == 2


def test_missing_path_raises(tmp_path: Path) -> None:
    with pytest.raises(CorpusUnavailable, match="no such corpus file or directory"):
        load_corpus([tmp_path / "absent.yaml"])


def test_no_corpus_files_raises(tmp_path: Path) -> None:
    """An empty folder or no path at all is not an empty, passing corpus."""
    with pytest.raises(CorpusUnavailable, match="no corpus files"):
        load_corpus([tmp_path])
    with pytest.raises(CorpusUnavailable, match="no corpus path given"):
        load_corpus([])


def test_a_directory_named_like_a_corpus_file_is_an_error(good_file: Path) -> None:
    (good_file.parent / "folder.yaml").mkdir()
    corpus = load_corpus([good_file.parent])
    assert [(Path(e.file).name, e.line, e.message) for e in corpus.errors] == [
        ("folder.yaml", 1, "not a regular file")]
    assert len(corpus.scenarios) == 2


def test_a_file_over_the_size_limit_is_refused_unread(
        good_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    size = good_file.stat().st_size
    monkeypatch.setenv(MAX_BYTES_ENV, str(size - 1))
    (error,) = load_corpus([good_file]).errors
    assert (error.line, error.scenario_id) == (1, None)
    assert error.message == (f"file is {size:,} bytes, over the limit of {size - 1:,} bytes per "
                             f"corpus file (split it, or raise the limit with {MAX_BYTES_ENV})")
    monkeypatch.setenv(MAX_BYTES_ENV, str(size))
    assert load_corpus([good_file]).errors == []


@pytest.mark.parametrize("value", ["0", "-5", "1MB", "lots"])
def test_an_unusable_size_limit_is_named(good_file: Path, monkeypatch: pytest.MonkeyPatch,
                                         value: str) -> None:
    monkeypatch.setenv(MAX_BYTES_ENV, value)
    with pytest.raises(CorpusUnavailable, match=f"{MAX_BYTES_ENV} must be a positive number"):
        load_corpus([good_file])


def test_the_size_limit_leaves_the_shipped_files_a_wide_margin() -> None:
    largest = max(p.stat().st_size for p in default_corpus_dir().glob("*.yaml"))
    assert largest * 10 < DEFAULT_MAX_BYTES


def test_empty_file_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "empty.yaml"
    path.write_text("# nothing yet\n", encoding="utf-8")
    (error,) = load_corpus([path]).errors
    assert "not null" in error.message


def test_non_utf8_file_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "latin1.yaml"
    path.write_bytes(b"- id: caf\xe9\n")
    (error,) = load_corpus([path]).errors
    assert error.line == 1 and "UTF-8" in error.message


def test_corpus_error_str_without_id() -> None:
    assert str(CorpusError("a.yaml", 3, None, "boom")) == "a.yaml:3: boom"
    assert str(CorpusError("a.yaml", 3, "x-1", "boom")) == "a.yaml:3 [x-1]: boom"


def test_line_tracking_reaches_nested_keys_and_items() -> None:
    data = parse_yaml("- a: 1\n  b:\n    - x\n    - y\n  c: {d: 2}\n")
    item = data[0]
    assert line_of(item, ("b", 1), 0) == 4
    assert line_of(item, ("c", "d"), 0) == 5
    assert line_of(item, ("missing",), 0) == 1


@pytest.mark.parametrize(("text", "line", "refused"), [
    ("- a: &x [1, 2]\n  b: *x\n", 1, "anchor &x"),
    ("- a: 1\n  b: *undefined\n", 2, "alias *undefined"),
    ("- a: 1\n- &m {b: 2}\n- {c: 3, <<: *m}\n", 2, "anchor &m"),
])
def test_anchors_and_aliases_are_refused_at_their_line(text: str, line: int,
                                                        refused: str) -> None:
    with pytest.raises(YamlSyntaxError) as info:
        parse_yaml(text)
    assert info.value.line == line
    assert info.value.message.startswith(f"YAML {refused} refused: corpus files may not use "
                                         "anchors or aliases")


def test_nesting_beyond_any_scenario_is_refused() -> None:
    parse_yaml("[" * MAX_DEPTH + "]" * MAX_DEPTH)
    with pytest.raises(YamlSyntaxError, match=f"nested more than {MAX_DEPTH} levels"):
        parse_yaml("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1))
    with pytest.raises(YamlSyntaxError, match="nested"):
        parse_yaml("- " + "[" * 100_000)


def test_yaml_syntax_error_has_a_line() -> None:
    with pytest.raises(YamlSyntaxError) as info:
        parse_yaml("- a: [1, 2\n- b: 3\n")
    assert info.value.line == 2


def test_default_corpus_dir_holds_the_shipped_yaml() -> None:
    directory = default_corpus_dir()
    assert (directory / "generated.yaml").is_file()
    assert (directory / "README.md").is_file()


def test_shipped_corpus_loads_without_errors() -> None:
    corpus = load_corpus(None)
    assert [str(e) for e in corpus.errors] == []
    assert len(corpus.scenarios) > 500
    ids = [s.id for s in corpus.scenarios]
    assert len(ids) == len(set(ids))


def test_select_filters_combine(good_file: Path) -> None:
    scenarios = load_corpus([good_file]).scenarios
    assert [s.id for s in select(scenarios, rules=["R-CTX-*"])] == ["full-keys"]
    assert [s.id for s in select(scenarios, ids=["plain-*"])] == ["plain-block"]
    assert [s.id for s in select(scenarios, features=["kimi"])] == ["full-keys"]
    assert select(scenarios, areas=["other"]) == []
    assert len(select(scenarios, areas=["sample-area"])) == 2
    assert select(scenarios, rules=["R-BLOCK-1"], features=["kimi"]) == []
    assert len(select(scenarios)) == 2
