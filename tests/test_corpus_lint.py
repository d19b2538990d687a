"""Every kind of corpus error is reported with its exact file, line and id; lint exits 2."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from scrubcheck.cli import main
from scrubcheck.corpus import load_corpus

BAD = Path(__file__).parent / "data" / "bad_corpora"

# (file, line, scenario id or None, a fragment of the message)
CASES = [
    ("malformed.yaml", 6, None, "YAML syntax error"),
    ("not_a_list.yaml", 2, None, "top level must be a list of scenarios, not a mapping"),
    ("not_a_mapping.yaml", 7, None, "a scenario must be a mapping, not a string"),
    ("unknown_key.yaml", 12, "unknown-key-typo", "unknown key 'visable' (did you mean 'visible'?)"),
    ("missing_key.yaml", 1, "missing-description", "missing key 'description'"),
    ("wrong_type.yaml", 4, "deltas-not-a-list", "deltas must be a list, not a string"),
    ("bad_slug.yaml", 1, "Bad_Slug", "id 'Bad_Slug' is not a slug"),
    ("unknown_rule.yaml", 4, "unknown-rule", "unknown rule 'R-NOPE-7'"),
    ("bad_rule_pattern.yaml", 2, "bad-rule-pattern", "rule 'block-2' is not a SPEC rule id"),
    ("unknown_feature.yaml", 10, "unknown-feature", "unknown feature 'telepathy'"),
    ("reasoning_not_in_deltas.yaml", 8, "reasoning-missing",
     "reasoning 'compare the three offers' does not occur in the joined deltas"),
    ("reasoning_overlaps_visible.yaml", 6, "reasoning-overlap",
     "reasoning 'the answer is 42' overlaps visible (shares 'the answ')"),
    ("two_expectations.yaml", 1, "two-expectations",
     "several expectation keys (visible, invariants_only)"),
    ("no_expectation.yaml", 1, "no-expectation", "no expectation key"),
    ("repeated_key.yaml", 7, "repeated-key", "key 'visible' appears twice (first at line 5)"),
    ("bad_finish_reason.yaml", 9, "bad-finish-reason",
     "context.finish_reason must be one of stop, length, tool_calls, content_filter, null, "
     "not 'halted'"),
    ("empty_deltas.yaml", 4, "empty-deltas", "deltas must not be empty"),
    ("family_unknown.yaml", 2, "gen-nowhere", "unknown family 'split-every-where'"),
    ("family_bad_params.yaml", 7, "gen-badparams", "unknown key 'colour' in params"),
    ("anchor.yaml", 5, None, "YAML anchor &answer refused: corpus files may not use anchors"),
]


@pytest.fixture(autouse=True)
def _in_bad_corpora(monkeypatch: pytest.MonkeyPatch) -> None:
    """Work relative to the data directory so error file names are short and exact."""
    monkeypatch.chdir(BAD)


@pytest.mark.parametrize(("file", "line", "scenario_id", "fragment"), CASES,
                         ids=[c[0].removesuffix(".yaml") for c in CASES])
def test_error_is_located_exactly(file: str, line: int, scenario_id: str | None,
                                  fragment: str) -> None:
    corpus = load_corpus([Path(file)])
    located = [e for e in corpus.errors if fragment in e.message]
    assert located, f"no error containing {fragment!r}; got {[str(e) for e in corpus.errors]}"
    error = located[0]
    assert (error.file, error.line, error.scenario_id) == (file, line, scenario_id)
    prefix = f"{file}:{line}" + (f" [{scenario_id}]" if scenario_id else "")
    assert str(error) == f"{prefix}: {error.message}"


@pytest.mark.parametrize(("file", "line", "scenario_id", "fragment"), CASES,
                         ids=[c[0].removesuffix(".yaml") for c in CASES])
def test_lint_prints_the_error_and_fails(capsys: pytest.CaptureFixture[str], file: str,
                                         line: int, scenario_id: str | None,
                                         fragment: str) -> None:
    assert main(["lint", file]) == 2
    out = capsys.readouterr().out.splitlines()
    prefix = f"{file}:{line}" + (f" [{scenario_id}]" if scenario_id else "") + ": "
    assert any(o.startswith(prefix) and fragment in o for o in out), out
    assert "errors" in out[-1]


def test_duplicate_id_across_files_names_both_locations() -> None:
    corpus = load_corpus([Path("duplicate")])
    assert [str(e) for e in corpus.errors] == [
        "duplicate/b.yaml:3 [shared-id]: duplicate id 'shared-id': first defined at "
        "duplicate/a.yaml:1"
    ]
    assert [s.file for s in corpus.scenarios] == ["duplicate/a.yaml"]
    assert main(["lint", "duplicate"]) == 2


def test_bad_scenario_does_not_reject_its_neighbours() -> None:
    corpus = load_corpus([Path("unknown_key.yaml"), Path("not_a_mapping.yaml")])
    assert sorted(s.id for s in corpus.scenarios) == ["fine-scenario", "unknown-key-good"]


def test_bad_file_does_not_stop_a_good_file() -> None:
    corpus = load_corpus([Path("mixed")])
    assert [s.id for s in corpus.scenarios] == ["mixed-good"]
    assert [(e.file, e.line) for e in corpus.errors] == [("mixed/broken.yaml", 3)]
    assert corpus.files == ["mixed/broken.yaml", "mixed/good.yaml"]


def test_lint_summary_counts(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["lint", "mixed"]) == 2
    assert capsys.readouterr().out.splitlines()[-1] == (
        "2 files, 1 scenarios loaded, 1 errors in 1 files")


def test_lint_clean_file_exits_zero(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["lint", "mixed/good.yaml"]) == 0
    assert capsys.readouterr().out.strip() == "1 files, 1 scenarios loaded, 0 errors"


def test_lint_missing_path_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["lint", "no/such/file.yaml"]) == 2
    assert "no/such/file.yaml" in capsys.readouterr().err


def test_lint_mistyped_path_suggests_the_close_name(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["lint", "wrong_typo.yaml"]) == 2
    assert capsys.readouterr().err.strip() == (
        "scrubcheck lint: no such corpus file or directory: wrong_typo.yaml "
        "(did you mean wrong_type.yaml?)")


def test_lint_folder_without_corpus_files_fails(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    """'0 files, 0 errors' would let CI pass a corpus that is not there."""
    assert main(["lint", str(tmp_path)]) == 2
    (tmp_path / "notes.txt").write_text("not a corpus file", encoding="utf-8")
    assert main(["lint", str(tmp_path)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err == [f"scrubcheck lint: no corpus files (*.yaml, *.yml) in directory: {tmp_path}"] * 2


def test_console_script_exit_codes() -> None:
    """The installed `scrubcheck` entry point, as CI and authors call it."""
    script = Path(sys.executable).with_name("scrubcheck")
    command = [str(script)] if script.exists() else [sys.executable, "-m", "scrubcheck.cli"]
    bad = subprocess.run([*command, "lint", "wrong_type.yaml"], capture_output=True, text=True)
    assert bad.returncode == 2
    assert "wrong_type.yaml:4 [deltas-not-a-list]: deltas must be a list" in bad.stdout
    missing = subprocess.run([*command, "lint", "absent.yaml"], capture_output=True, text=True)
    assert missing.returncode == 2
