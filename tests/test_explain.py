"""Naming the bugs (scrubcheck.explain): each failure shrunk, read against the SPEC
model piece by piece, and grouped by the decision it gets wrong.

The heart of it is held on the bundled broken scrubbers, each built with one documented
bug: however many scenarios and checks it fails, it must come out as one root cause (at
most two where the bug acts in two ways), and a scrubber built with two bugs as two.
The runs here take a sample of the corpus (every 16th scenario, and the scenarios of the
rules a bug's docstring names) so the quick tier stays quick; `-m slow` runs the whole
corpus.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scrubcheck.cli import main
from scrubcheck.corpus import load_corpus
from scrubcheck.explain import explain_run
from scrubcheck.explain.difference import Did, first_effect
from scrubcheck.explain.failure import Explained, _result_signature
from scrubcheck.explain.pieces import Part, read_pieces
from scrubcheck.explain.shrink import shrink
from scrubcheck.explain.trial import Candidate
from scrubcheck.model import Context, Scenario
from scrubcheck.results import Outcome, ScenarioResult
from scrubcheck.runner import RunSettings, run_corpus
from scrubcheck.scrubbers.broken import BROKEN

HARMONY = Context(features=("harmony",))


@pytest.mark.parametrize(("text", "context", "output", "did", "situation"), [
    ("<think>u</think>a", Context(), "ua", Did.SHOWS_REASONING, "a closed block"),
    ("<think>u", Context(), "u", Did.SHOWS_REASONING, "an unclosed block"),
    ("<think>u", Context(), "<think>u", Did.SHOWS_DELIMITER, ""),
    ("u</think>a", Context(starts_in_reasoning=True), "ua", Did.SHOWS_REASONING,
     "a pre-filled block"),
    ("`<think>`", Context(), "``", Did.DROPS_LITERAL, ""),
    ("a<THINK>b</think>c", Context(), "a<THINK>bc", Did.SHOWS_DELIMITER, ""),
    ("a b", Context(), "ab", Did.DROPS_SPACE, ""),
    ("ab", Context(), "a", Did.DROPS_ANSWER, ""),
    ("<thi<think>x</think>nk>s</think>", Context(), "<think>s", Did.SHOWS_DELIMITER, ""),
    ("x<|channel|>analysis<|message|>u<|end|>y", HARMONY, "xanalysisuy", Did.SHOWS_REASONING,
     "a harmony header or hidden message"),
    # the shown text lined up after the answer's copy of it is still the block's
    ("<think>Dr</think>D", Context(), "DrD", Did.SHOWS_REASONING, "a closed block"),
    # a character that a delimiter also spells is the reasoning's when the reasoning has it
    ("<think><", Context(), "<", Did.SHOWS_REASONING, "an unclosed block"),
    ("ab", Context(), "abz", Did.ADDS_TEXT, "text that is not in the stream"),
    ("ab", Context(), "ab", Did.NOTHING, ""),
])
def test_the_first_wrong_decision_is_read_off_the_pieces(
        text: str, context: Context, output: str, did: Did, situation: str) -> None:
    effect = first_effect(read_pieces(text, context), output)
    assert (effect.did, effect.situation) == (did, situation)


def test_pieces_label_what_each_character_is() -> None:
    pieces = read_pieces("a<think>r<think></think>`<think>`", Context())
    parts = "".join({Part.ANSWER: "A", Part.LITERAL: "L", Part.DELIMITER: "D",
                     Part.REASONING: "R"}[label.part] for label in pieces.labels)
    # the second open inside the block is its content (no nesting, R-BLOCK-2); the tag in
    # code is kept literal
    assert parts == "A" + "D" * 7 + "R" * 8 + "D" * 8 + "A" + "L" * 7 + "A"


def test_shrinking_finds_a_one_minimal_stream_and_asks_each_candidate_once() -> None:
    asked: list[Candidate] = []

    def holds(candidate: Candidate) -> bool:
        asked.append(candidate)
        text = candidate.text
        return "<think>" in text and "x" in text.split("<think>", 1)[1]

    start = Candidate.of(("Some answer. <thi", "nk>plan x and more\n", "done"), Context())
    shrunk = shrink(start, holds, seconds=10)
    assert shrunk.candidate.text == "<think>x"
    assert shrunk.candidate.cuts == ()
    assert shrunk.complete
    assert len(asked) == len(set(asked))


def test_shrinking_keeps_what_the_failure_needs_and_stops_at_its_time_limit() -> None:
    needs_split = Candidate.of(("ab<th", "ink>c"), Context(starts_in_reasoning=True))

    def holds(candidate: Candidate) -> bool:  # fails only with a boundary inside the tag
        cut = "<think>" in candidate.text and any(
            candidate.text.find("<think>") < c < candidate.text.find("<think>") + 7
            for c in candidate.cuts)
        return cut and candidate.context.starts_in_reasoning

    shrunk = shrink(needs_split, holds, seconds=10)
    assert shrunk.candidate.text == "<think>" and len(shrunk.candidate.cuts) == 1
    assert shrunk.candidate.context.starts_in_reasoning
    late = shrink(needs_split, lambda c: True, seconds=0)
    assert not late.complete


def _selection(rules: tuple[str, ...]) -> list[Scenario]:
    scenarios = load_corpus(None).scenarios
    chosen = {s.id for s in scenarios[::16]}
    named = [s for s in scenarios if set(s.rules) & set(rules)]
    chosen |= {s.id for s in named[:: max(1, len(named) // 60)]}
    return [s for s in scenarios if s.id in chosen]


def _explained(spec: str, scenarios: list[Scenario], claim: str | None = None):
    run = run_corpus(spec, scenarios, RunSettings(jobs=2, linear_check=False,
                                                  conformance_class=claim))
    failing = [r for r in run.results if r.outcome in (Outcome.FAIL, Outcome.ERROR,
                                                      Outcome.TIMEOUT)]
    explanation = explain_run(run, {s.id: s for s in scenarios}, jobs=2, seconds=5)
    return failing, explanation


#: the reference-based scrubbers with one documented bug each, the rules their docstrings
#: name, and how many ways the bug acts (a second way: on a may-skip pre-fill, or on the
#: answer after a delimiter the bug does not see), and the failure mode of docs/field.md
#: its largest root cause has (None: a shape the field notes do not describe)
ONE_BUG = [
    ("passthrough", ("R-LEAK-1",), 1, None),
    ("prefill_ignored", ("R-ORPHAN-2",), 1, "fm-prefill"),
    ("splice_blind", ("R-TAG-1",), 1, "fm-split-tags"),
    ("buffers_all", ("R-STREAM-2",), 1, None),
    ("drops_blank_deltas", ("R-WS-1", "R-CHUNK-1"), 1, "fm-whitespace"),
    ("case_sensitive", ("R-VOCAB-1",), 1, "fm-case"),
    ("short_holdback", ("R-TAG-1",), 2, "fm-split-tags"),
    ("flush_leaks_tail", ("R-UNCLOSED-1",), 2, "fm-unclosed"),
    ("any_backtick_guard", ("R-CODE-3",), 2, "fm-code"),
]


@pytest.mark.parametrize(("name", "rules", "ways", "field"), ONE_BUG,
                         ids=[b[0] for b in ONE_BUG])
def test_a_scrubber_with_one_bug_is_explained_as_one_root_cause(
        name: str, rules: tuple[str, ...], ways: int, field: str | None) -> None:
    failing, explanation = _explained(BROKEN[name], _selection(rules))
    assert failing, f"{name} fails nothing in the selection: the test proves nothing"
    names = [cause.name for cause in explanation.causes]
    assert 1 <= len(names) <= ways, names
    # every failing scenario belongs to a root cause, or is listed with its reason
    explained = {s for cause in explanation.causes for s in cause.scenarios}
    assert explained | set(explanation.unexplained) == {r.scenario_id for r in failing}
    assert len(explanation.unexplained) <= 0.05 * len(failing), explanation.unexplained
    # the largest root cause has a small stream that states it
    assert explanation.causes[0].smallest.size <= 40
    # and is marked with the failure mode the field notes cite reports of
    seen = [f["anchor"] for f in explanation.causes[0].to_dict()["field"]]
    assert (field in seen) if field else not seen, (names[0], seen)


def test_within_a_class_a_pre_filled_block_and_an_opened_one_are_one_bug() -> None:
    """Within a format's class, a block the template opened reads as one the model opened
    with the class's own open, when the implementation treats them alike: a scrubber that
    shows the end of any unclosed block is one bug there too (plus its second way, the
    may-skip pre-fill whose answer it repeats), not one per way the block was opened."""
    scenarios = [s for s in _selection(("R-UNCLOSED-1", "R-ORPHAN-2"))
                 if s.context.starts_in_reasoning or "R-UNCLOSED-1" in s.rules]
    failing, explanation = _explained(BROKEN["flush_leaks_tail"], scenarios, claim="think")
    prefilled = {r.scenario_id for r in failing} & {
        s.id for s in scenarios if s.context.starts_in_reasoning
        and not s.context.may_skip_reasoning}
    assert prefilled, "no pre-filled scenario fails: the test proves nothing"
    leaks = [c for c in explanation.causes if c.kind == "leak"]
    assert len(leaks) == 1, [c.name for c in explanation.causes]
    assert prefilled <= set(leaks[0].scenarios)


def test_two_bugs_seen_by_one_check_are_two_root_causes(tmp_path: Path) -> None:
    """Case-blind matching and a short hold-back both show a delimiter: the leak and tag
    checks see both, and they must still come out as two."""
    module = tmp_path / "two_bugs.py"
    module.write_text(
        "from scrubcheck.scrubbers.broken.case_sensitive import CaseSensitiveScrubber\n"
        "from scrubcheck.scrubbers.reference.hooks import Quirks\n"
        "from scrubcheck.scrubbers.broken.short_holdback import HOLD\n"
        "from scrubcheck.scrubbers.broken.case_sensitive import _case_sensitive\n\n"
        "class TwoBugs(CaseSensitiveScrubber):\n"
        "    quirks = Quirks(tables=_case_sensitive, max_holdback=HOLD)\n",
        encoding="utf-8")
    import sys
    sys.path.insert(0, str(tmp_path))
    try:
        _, explanation = _explained("two_bugs:TwoBugs", _selection(("R-VOCAB-1", "R-TAG-1")))
    finally:
        sys.path.remove(str(tmp_path))
    leaks = [cause.name for cause in explanation.causes if cause.kind == "leak"]
    assert any("letter case" in name for name in leaks), leaks
    assert any("splits it" in name for name in leaks), leaks
    assert len(leaks) == 2, leaks


def _result(outcome: Outcome, reason: str) -> ScenarioResult:
    return ScenarioResult("s", "a", [], "f", 1, "d", outcome, reason=reason)


def test_errors_and_hangs_are_grouped_by_their_own_message_not_shrunk() -> None:
    raised = "the scrubber raised under {}: feed() of delta 0 raised UnicodeEncodeError: " \
             "'utf-8' codec can't encode {} in position {}: surrogates not allowed " \
             "(scrubbers/broken/raises.py:21 in feed) [same check also fails under: x]"
    one = _result_signature(_result(Outcome.ERROR, raised.format("whole", "'\\udfff'", 3)))
    two = _result_signature(_result(Outcome.ERROR, raised.format("char", "characters", "4-5")))
    assert one == two and "raises.py:21" in one.name()
    spins = _result_signature(_result(Outcome.TIMEOUT, "no result within 60 s wall time "
                                      "(59.8 s of CPU time used) while running whole"))
    waits = _result_signature(_result(Outcome.TIMEOUT, "no result within 60 s wall time "
                                      "(0.1 s of CPU time used) while running char"))
    assert spins != waits and "busy" in spins.name()


def test_the_command_writes_reports_and_the_smallest_streams_replay(tmp_path: Path) -> None:
    spec = BROKEN["prefill_ignored"]
    run_dir, out = tmp_path / "run", tmp_path / "explained"
    assert main(["run", "--scrubber", spec, "--rule", "R-ORPHAN-2", "--no-linear",
                 "--no-explain", "--out", str(run_dir), "--no-progress"]) == 1
    assert main(["explain", str(run_dir / "report.json"), "--out", str(out)]) == 1
    data = json.loads((out / "explanation.json").read_text(encoding="utf-8"))
    assert data["bugs"] == 1 and data["root_causes"][0]["kind"] == "leak"
    report = next((out / "bugs").glob("bug-1-*.md")).read_text(encoding="utf-8")
    assert "R-ORPHAN-2" in report and "starts_in_reasoning=True" in report
    assert "from scrubcheck.scrubbers.broken.prefill_ignored import" in report
    # the smallest streams are scenarios: the buggy scrubber fails them, the reference not
    corpus = str(out / "bugs.yaml")
    assert main(["run", "--corpus", corpus, "--scrubber", spec, "--no-linear",
                 "--no-explain", "--no-progress"]) == 1
    assert main(["run", "--corpus", corpus, "--no-linear", "--no-progress"]) == 0
    # the report carries its own stream: saved as the maintainer would, it reproduces,
    # and nothing in it points at the reporter's folders
    assert str(tmp_path) not in report
    saved = tmp_path / "bug.yaml"
    saved.write_text(report.split("```yaml\n", 1)[1].split("```", 1)[0], encoding="utf-8")
    assert "scrubcheck show bug-1-" in report and "--corpus bug.yaml" in report
    assert main(["run", "--corpus", str(saved), "--scrubber", spec, "--no-linear",
                 "--no-explain", "--no-progress"]) == 1
    assert main(["run", "--corpus", str(saved), "--no-linear", "--no-progress"]) == 0


def test_a_peer_s_report_names_its_own_entry_point() -> None:
    """A maintainer knows their function, not scrubcheck's row name: the report names the
    entry point the peer's manifest documents, and a batch kind's stream as one text."""
    from scrubcheck.explain.write import _entry_point
    from scrubcheck.peers import shipped_manifests
    from scrubcheck.reports.bugs import bug_report

    manifest = next(m for m in shipped_manifests() if m.name == "agno-batch")
    entry, kind = _entry_point("peer:agno-batch", "splitter")
    assert (entry, kind) == (manifest.entry, "batch splitter")
    cause = {"name": "a delimiter is shown", "kind": "leak", "rules": ["R-TAG-1"],
             "checks": ["tag"], "scenarios": ["s"], "field": [],
             "smallest": {"scenario": "s", "deltas": ["<thi", "nk>"], "context": {},
                          "expected": "", "got": "<think>", "label": "split@4",
                          "complete": True, "replay": "scrubcheck show s"}}
    report = bug_report(cause, 1, "peer:agno-batch", "agno 3.1.10", "1.5.1", None,
                        entry=entry, kind=kind)
    assert f"entry point `{manifest.entry}`" in report
    assert 'As the one text it is given: `"<think>"`' in report
    assert "- R-TAG-1 (MUST): " in report


def test_explanations_are_kept_and_reused_as_results_are(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("SCRUBCHECK_CACHE", str(tmp_path / "cache"))
    scenarios = [s for s in load_corpus(None).scenarios if "R-ORPHAN-2" in s.rules][:20]
    run = run_corpus(BROKEN["prefill_ignored"], scenarios,
                     RunSettings(jobs=2, linear_check=False))
    by_id = {s.id: s for s in scenarios}
    first = explain_run(run, by_id, jobs=2)
    again = explain_run(run, by_id, jobs=2)
    assert first.reused == 0 and again.reused == first.failing > 0
    assert [c.to_dict() for c in again.causes] == [c.to_dict() for c in first.causes]
    assert explain_run(run, by_id, jobs=2, cache=False).reused == 0


def test_a_report_without_failures_has_nothing_to_explain(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    assert main(["run", "--rule", "R-ORPHAN-2", "--no-linear", "--out", str(run_dir),
                 "--no-progress"]) == 0
    assert main(["explain", str(run_dir / "report.json")]) == 0
    assert main(["explain", str(tmp_path / "missing.json")]) == 2


def test_a_hunt_reports_its_findings_as_bugs(capsys) -> None:
    """Every property the hunt saw fail on a case-blind scrubber is one bug."""
    code = main(["hunt", "--scrubber", BROKEN["case_sensitive"], "--seed", "1",
                 "--max-examples", "600", "--time", "120", "--no-linear"])
    out = capsys.readouterr().out
    assert code == 1
    import re
    findings = re.search(r": (\d+) distinct finding", out).group(1)
    assert int(findings) >= 2, out  # several properties fail, or the test proves nothing
    assert f"1 bug explains {findings} of {findings} failing scenarios" in out, out
    assert "letter case" in out


def test_a_run_s_reports_lead_with_its_bugs(tmp_path: Path, capsys) -> None:
    """The console, report.md, report.html, junit.xml and report.json all put the bugs
    first, and report.json keeps them (read back, the writers say the same again)."""
    from xml.etree import ElementTree

    from scrubcheck.reports import read_report, validate_report, write_reports

    out = tmp_path / "run"
    assert main(["run", "--scrubber", BROKEN["prefill_ignored"], "--rule", "R-ORPHAN-2",
                 "--no-linear", "--out", str(out), "--no-progress"]) == 1
    console = capsys.readouterr().out
    assert console.index("1 bug explains") < console.index("failing scenarios (")
    markdown = (out / "report.md").read_text(encoding="utf-8")
    assert markdown.index("## Bugs: 1 bug explains") < markdown.index("## Summary") \
        if "## Summary" in markdown else "## Bugs: 1 bug explains" in markdown
    assert "the reasoning of a pre-filled block is shown" in markdown
    page = (out / "report.html").read_text(encoding="utf-8")
    assert '<section id="bugs">' in page
    suites = ElementTree.parse(out / "junit.xml").getroot()
    assert suites[0].get("name") == "bugs" and suites[0].get("failures") == "1"
    data = json.loads((out / "report.json").read_text(encoding="utf-8"))
    validate_report(data)
    assert data["explanation"]["bugs"] == 1
    again = tmp_path / "again"
    write_reports(read_report(out / "report.json"), again)
    assert (again / "report.md").read_text(encoding="utf-8") == markdown
    assert next((out / "bugs").glob("bug-1-*.md")).is_file() and (out / "bugs.yaml").is_file()


def test_a_difference_only_json_makes_is_not_a_peer_s_bug() -> None:
    """Two halves of a surrogate pair side by side in one delta reach a peer over JSON as
    the one character they encode: an output that differs from the expected one only so
    is the protocol's doing. The scenario is listed as not explained, saying why, and the
    same output from an in-process scrubber, or any other difference, stays a bug."""
    from scrubcheck.explain.conduct import TRANSPORT, _not_the_transport
    from scrubcheck.explain.signature import Signature
    from scrubcheck.explain.transport import json_text, same_after_transport

    assert json_text("a\ud83d\ude00b") == "a😀b" and json_text("\ud83d") == "\ud83d"
    assert same_after_transport("\ud83d\ude00", "😀") and same_after_transport("😀", "😀")
    assert not same_after_transport("\ud83d", "")
    changed = Signature(Did.CHANGES_TEXT)
    joined = Explained("pair", "expected", "R-FID-1", "MUST", False, changed,
                       ("\ud83d\ude00",), expected="\ud83d\ude00", got="😀")
    real = Explained("drop", "expected", "R-FID-1", "MUST", False, Signature(Did.DROPS_ANSWER),
                     ("ab",), expected="ab", got="a")
    # as it comes back from a worker or the cache: both sides joined already
    crossed = Explained("crossed", "expected", "R-FID-1", "MUST", False, changed, ("😀",),
                        expected="😀", got="😀")
    held = Explained("held", "holdback", "R-STREAM-2", "SHOULD", False,
                     Signature(Did.HOLDS_BACK), ("ab",), expected="ab", got="ab")
    unexplained: dict[str, str] = {}
    assert _not_the_transport([joined, real, crossed, held], unexplained) == [real, held]
    assert unexplained == {"pair": TRANSPORT, "crossed": TRANSPORT}
