"""The matrix views and `scrubcheck diff`, on hand-built runs (no peer needed)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scrubcheck.cli import main
from scrubcheck.matrix import Matrix, Row, matrix_dict, write_matrix
from scrubcheck.matrix.rows import cell_counts, hall_of_bugs, observed_checks, pruned
from scrubcheck.matrix.rundiff import diff_runs, verdicts_of
from scrubcheck.matrix.verdicts import ERROR, FAIL, LEAK, PASS, SHOULD, UNSUPPORTED, verdict
from scrubcheck.results import Failure, Outcome, RunResult, ScenarioResult


def _result(sid: str, outcome: Outcome, *failures: Failure, area: str = "blocks",
            rules: tuple[str, ...] = ("R-BLOCK-1",)) -> ScenarioResult:
    return ScenarioResult(sid, area, list(rules), f"corpora/{area}.yaml", 1, "", outcome,
                          failures=list(failures))


def _failure(check: str, rule: str, level: str = "MUST", deltas: tuple[str, ...] = ("x",),
             spec: str = "peer:demo", sid: str = "s") -> Failure:
    return Failure(check, rule, level, "whole", list(deltas), "detail",
                   replay=f"scrubcheck show {sid} --scrubber {spec} --chunking whole --seed 0")


def _run(name: str, results: list[ScenarioResult]) -> RunResult:
    return RunResult(name, "stream", [], [], "1.0.0", "0.1.0", "now", 1.0, {"seed": 0},
                     results=results)


LEAKY = [
    _result("a-long", Outcome.FAIL, _failure("leak", "R-LEAK-1", deltas=("x" * 50,),
                                             sid="a-long")),
    _result("b-short", Outcome.FAIL, _failure("leak", "R-LEAK-1", deltas=("xy",), sid="b-short")),
    _result("c-must", Outcome.FAIL, _failure("expected", "R-FID-1", deltas=("z",),
                                             sid="c-must"), area="code", rules=("R-CODE-2",)),
    _result("d-should", Outcome.FAIL, _failure("holdback", "R-STREAM-1", "SHOULD")),
    _result("e-pass", Outcome.PASS),
    _result("f-unsup", Outcome.UNSUPPORTED),
    _result("g-error", Outcome.TIMEOUT),
    _result("peer-only-hermes-case-insensitive", Outcome.FAIL,
            _failure("leak", "R-LEAK-1", sid="peer-only-hermes-case-insensitive")),
]
CLEAN = [_result(r.scenario_id, Outcome.PASS, area=r.area, rules=tuple(r.rules))
         for r in LEAKY]


def _matrix() -> Matrix:
    rows = [Row("reference", "ref", "streaming scrubber", "scrubcheck", "0.1.0", "reference",
                "ran", run=_run("reference", CLEAN)),
            Row("demo", "Demo", "streaming scrubber", "demo==1", "1", "peer:demo", "ran",
                restrictions=["takes no context"], run=_run("peer:demo", LEAKY)),
            Row("absent", "Absent", "batch scrubber", "absent==2", "2", "peer:absent",
                "not installed: run `scrubcheck peers install absent`")]
    matrix = Matrix(rows, "quick", "quick: fewer chunkings", "now", 60.0, {"seed": 0})
    matrix.index_scenarios()
    return matrix


def test_one_verdict_per_result_worst_first():
    assert [verdict(r) for r in LEAKY] == [LEAK, LEAK, FAIL, SHOULD, PASS, UNSUPPORTED, ERROR,
                                           LEAK]


def test_cells_count_verdicts_per_area_and_rule_group():
    matrix = _matrix()
    demo = matrix.rows[1]
    assert cell_counts(demo, "area")["code"] == {FAIL: 1}
    assert cell_counts(demo, "group")["CODE"] == {FAIL: 1}  # the scenario's rules decide
    assert cell_counts(demo, "group")["BLOCK"] == {LEAK: 3, SHOULD: 1, PASS: 1, UNSUPPORTED: 1,
                                                   ERROR: 1}
    assert cell_counts(matrix.rows[2], "area") == {}


def test_pruned_view_hides_scenarios_treated_alike():
    ids = pruned(_matrix())
    assert "e-pass" not in ids and "f-unsup" not in ids  # alike, or judged by one only
    assert {"a-long", "b-short", "c-must", "d-should", "g-error"} <= set(ids)


def test_hall_of_bugs_lists_leaks_first_shortest_first_with_commands():
    hall = hall_of_bugs(_matrix().rows[1])
    assert [e.scenario_id for e in hall[:3]] == ["peer-only-hermes-case-insensitive", "b-short",
                                                "a-long"]
    assert hall[3].scenario_id == "c-must"
    assert hall[1].command == "scrubcheck show b-short --scrubber peer:demo --chunking whole " \
                              "--seed 0"


def _claim_matrix(**runs: list[ScenarioResult]) -> Matrix:
    rows = [Row(name, name, "streaming scrubber", f"{name}==1", "1", f"peer:{name}", "ran",
                run=_run(f"peer:{name}", results)) for name, results in runs.items()]
    matrix = Matrix(rows, "quick", "", "now", 1.0, {"seed": 0})
    matrix.index_scenarios()
    return matrix


CASE, CONTROL = "peer-only-hermes-case-insensitive", "peer-only-hermes-case-control"


def _case_claim(matrix: Matrix):
    (check,) = [c for c in observed_checks(matrix) if c.scenario_id == CASE]
    return check.verdict, check.confirmed


def test_observed_behaviours_are_traced_to_scenarios_and_verdicts():
    checks = observed_checks(_matrix())
    hermes = next(c for c in checks if c.peer == "hermes-stream")
    assert hermes.verdict == "not run" and not hermes.confirmed
    # demo fails the case scenario but was never shown to handle the lower-case control
    assert _case_claim(_matrix()) == (f"whole stream: fails the control {CONTROL}: demo", False)


def test_a_claim_about_every_peer_counts_only_peers_that_pass_its_control():
    leaky = _result(CASE, Outcome.FAIL, _failure("leak", "R-LEAK-1", sid=CASE))
    control = _result(CONTROL, Outcome.PASS)
    assert _case_claim(_claim_matrix(demo=[leaky, control])) == ("whole stream: fail: demo", True)
    blind = _result(CONTROL, Outcome.FAIL, _failure("leak", "R-LEAK-1", sid=CONTROL))
    verdict, confirmed = _case_claim(_claim_matrix(demo=[leaky, control],
                                                   other=[leaky, blind]))
    assert (verdict, confirmed) == (
        f"whole stream: fail: demo; fails the control {CONTROL}: other", True)
    folds = _result(CASE, Outcome.PASS)
    assert _case_claim(_claim_matrix(demo=[leaky, control], folder=[folds, control])) == (
        "whole stream: fail: demo; pass: folder", False)  # a non-hermes peer that folds case
    verdict, confirmed = _case_claim(_claim_matrix(demo=[leaky, control],
                                                   **{"hermes-stream": [folds, control]}))
    assert confirmed and verdict == ("whole stream: fail: demo; hermes-* (said to differ) "
                                     "pass: hermes-stream")


def test_a_claim_is_judged_on_the_whole_stream_not_on_chunking_or_cut_bugs():
    def split_only(sid: str) -> ScenarioResult:  # fails only when the stream is split or cut
        return _result(sid, Outcome.FAIL,
                       Failure("leak", "R-LEAK-1", "MUST", "split@3", ["ab", "c"], "d"),
                       Failure("truncation", "R-TRUNC-1", "MUST", "trunc@2", ["ab"], "d"))
    case_fail = _result(CASE, Outcome.FAIL, _failure("expected", "R-FID-1", sid=CASE))
    assert _case_claim(_claim_matrix(demo=[case_fail, split_only(CONTROL)])) == (
        "whole stream: fail: demo", True)
    assert _case_claim(_claim_matrix(demo=[split_only(CASE), split_only(CONTROL)])) == (
        "whole stream: pass: demo", False)


def test_the_three_forms_are_written_and_agree(tmp_path):
    matrix = _matrix()
    md, html, js = write_matrix(matrix, tmp_path)
    text = md.read_text()
    # claim, pass, leak, fail, SHOULD, error, bugs (n/a: not explained), distinct failure
    # classes, unsupported, beyond
    assert "| **demo** | demo==1 | streaming scrubber | generic | 1 | 3 | 1 | 1 | 1 | n/a | 4 | " \
        "1 | 0 |" in text
    assert "not installed: run `scrubcheck peers install absent`" in text
    assert "`scrubcheck show b-short --scrubber peer:demo --chunking whole --seed 0`" in text
    assert "quick: fewer chunkings" in text and "takes no context" in text
    page = html.read_text()
    assert "<script" not in page and "Content-Security-Policy" in page
    assert "v-LEAK" in page and "takes no context" in page and "not run: not installed" in page
    data = json.loads(js.read_text())
    assert data == json.loads(json.dumps(matrix_dict(matrix)))
    demo = data["rows"][1]
    assert demo["totals"] == {LEAK: 3, FAIL: 1, SHOULD: 1, PASS: 1, UNSUPPORTED: 1, ERROR: 1}
    assert demo["verdicts"]["a-long"] == LEAK


def test_diff_lists_new_leaks_first_and_fixes():
    old = verdicts_of(_run("peer:demo", CLEAN).to_dict())
    new = verdicts_of(_run("peer:demo", LEAKY).to_dict())
    (diff,) = diff_runs(old, new)
    assert [c.scenario_id for c in diff.regressions][:3] == [
        "a-long", "b-short", "peer-only-hermes-case-insensitive"]
    assert {c.scenario_id for c in diff.regressions} == {
        "a-long", "b-short", "c-must", "d-should", "g-error", "peer-only-hermes-case-insensitive"}
    assert [(c.scenario_id, c.new) for c in diff.other] == [("f-unsup", UNSUPPORTED)]
    (back,) = diff_runs(new, old)
    assert not back.regressions and len(back.fixes) == 6


def test_diff_command_exit_codes(tmp_path, capsys):
    old, new = tmp_path / "old.json", tmp_path / "new.json"
    old.write_text(json.dumps(_run("peer:demo", CLEAN).to_dict()))
    new.write_text(json.dumps(_run("peer:demo", LEAKY).to_dict()))
    assert main(["diff", str(old), str(new)]) == 1
    out = capsys.readouterr().out
    assert "REGRESSION a-long: PASS -> LEAK (new leak)" in out
    assert main(["diff", str(new), str(old)]) == 0
    assert "fixed" in capsys.readouterr().out
    assert main(["diff", str(old), str(tmp_path / "missing.json")]) == 2


def test_diff_of_two_matrices_compares_each_implementation(tmp_path):
    first = matrix_dict(_matrix())
    second = json.loads(json.dumps(first))
    second["rows"][1]["verdicts"]["e-pass"] = LEAK
    (Path(tmp_path) / "a.json").write_text(json.dumps(first))
    (Path(tmp_path) / "b.json").write_text(json.dumps(second))
    diffs = diff_runs(verdicts_of(first), verdicts_of(second))
    assert [(d.name, len(d.regressions)) for d in diffs] == [("reference", 0), ("demo", 1),
                                                            ("absent", 0)]
    assert main(["diff", str(tmp_path / "a.json"), str(tmp_path / "b.json")]) == 1


def test_reuse_keeps_runs_made_with_the_same_settings_corpus_and_versions(tmp_path):
    from scrubcheck import __version__
    from scrubcheck.matrix.runs import _reusable, corpus_digest
    from scrubcheck.model import Scenario
    from scrubcheck.runner import RunSettings
    from scrubcheck.spec import SPEC_VERSION

    scenarios = [Scenario("a", "blocks", ("R-BLOCK-1",), "", ("<think>x</think>y",), ("x",),
                          visible="y")]
    digest = corpus_digest(scenarios)
    settings = RunSettings(seed=3)
    recorded = settings.to_dict()
    del recorded["linear_check"]  # a setting older runs did not record counts as its default
    recorded.update(corpus_digest=digest, implementation_version="1.2")
    path = tmp_path / "report.json"

    def write(spec_version: str = SPEC_VERSION, **changes: str) -> None:
        path.write_text(json.dumps(RunResult(
            "peer:demo", "stream", [], [], spec_version, __version__, "now", 1.0,
            {**recorded, **changes}, results=LEAKY).to_dict()))

    write()
    assert _reusable(path, settings, digest, "1.2") is not None
    assert _reusable(path, RunSettings(seed=4), digest, "1.2") is None
    assert _reusable(path, settings, digest, "1.3") is None  # the peer was upgraded
    edited = [Scenario("a", "blocks", ("R-BLOCK-1",), "", ("<think>x</think>z",), ("x",),
                       visible="z")]
    assert _reusable(path, settings, corpus_digest(edited), "1.2") is None
    write(spec_version="0.9.0")
    assert _reusable(path, settings, digest, "1.2") is None
    write(corpus_digest="")
    assert _reusable(path, settings, digest, "1.2") is None  # made before digests were kept
    assert _reusable(tmp_path / "missing.json", settings, digest, "1.2") is None


def _matrix_command(argv: list[str]) -> int:
    import argparse

    from scrubcheck.commands import matrix as matrix_command

    parser = argparse.ArgumentParser(prog="scrubcheck matrix")
    matrix_command.add_arguments(parser)
    return matrix_command.run(parser.parse_args(argv))


def test_matrix_refuses_a_bad_scrubber_spec_or_selection_with_exit_2(tmp_path, capsys):
    out = ["--out", str(tmp_path), "--no-peers"]
    assert _matrix_command([*out, "--scrubber", "no.such.module:X"]) == 2
    assert "cannot load scrubber" in capsys.readouterr().err
    assert _matrix_command([*out, "--scrubber", "reference"]) == 2  # the reference's own row
    assert "clashes" in capsys.readouterr().err
    assert _matrix_command([*out, "--id", "no-such-scenario-*"]) == 2
    assert "no scenario matches" in capsys.readouterr().err
    assert _matrix_command(["--out", str(tmp_path), "--no-peers", "--peers", "x"]) == 2
    assert _matrix_command([*out, "--timeout", "0"]) == 2
    with pytest.raises(SystemExit) as usage:
        _matrix_command([*out, "--memory-limit", "lots"])
    assert usage.value.code == 2
    assert not (tmp_path / "matrix.json").exists()


BROKEN_SPEC = "scrubcheck.scrubbers.broken.stateless:StatelessScrubber"


def test_a_scrubber_row_runs_beside_the_reference_and_is_never_reused(tmp_path):
    from scrubcheck.matrix import run_matrix
    from scrubcheck.model import Scenario
    from scrubcheck.runner import RunSettings

    scenarios = [Scenario("a", "blocks", ("R-BLOCK-1",), "",
                          ("Sure. <think>secret planning text</think>", "answer"),
                          ("secret planning text",), visible="Sure. answer")]
    settings = RunSettings(jobs=1, linear_check=False, random_count=1)
    said: list[str] = []

    def build() -> Matrix:
        return run_matrix([], set(), scenarios, settings, tmp_path, quick=True, reuse=True,
                          say=said.append, scrubbers=[("mine", BROKEN_SPEC)],
                          selection="1 of 2 scenarios (--id a)")

    first = build()
    assert [(r.name, r.spec, r.verdicts()) for r in first.rows] == [
        ("reference", "reference", {"a": PASS}), ("mine", BROKEN_SPEC, {"a": LEAK})]
    assert first.rows[1].kind == "stream scrubber" and "Selection: 1 of 2" in first.mode_note
    assert (tmp_path / "peers" / "mine" / "report.json").is_file()
    second = build()
    assert [r.reused for r in second.rows] == [True, False]  # no version tells builds apart



def test_the_page_says_what_the_runs_measured_against_and_on_what_machine(tmp_path):
    matrix = _matrix()
    assert matrix.provenance() == ""  # a matrix from before this was recorded says nothing
    matrix.settings.update({"spec_version": "9.9.9", "corpus_digest": "abc123",
                            "host": {"cpus": 2, "load_at_start": 0.5, "load_at_end": 3.25}})
    sentence = ("SPEC 9.9.9, corpus digest abc123; run on 2 CPUs, one-minute load average "
                "0.5 at the start and 3.25 at the end")
    assert matrix.provenance() == sentence
    md, html, js = write_matrix(matrix, tmp_path)
    assert sentence in md.read_text(encoding="utf-8")
    assert sentence in html.read_text(encoding="utf-8")
    assert json.loads(js.read_text(encoding="utf-8"))["settings"]["host"]["cpus"] == 2
