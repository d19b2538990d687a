"""The vectors judged by a consumer written from docs/vectors.md alone agree with
`scrubcheck run`, scenario for scenario and check for check, on the data-only checks,
for the reference and every bundled broken scrubber but the one that hangs (a hang is
judged by the harness's timeout, which the guide lists as a harness check)."""

from __future__ import annotations

import ast
import importlib.util
import sys
from pathlib import Path

import pytest

from scrubcheck.corpus import load_corpus
from scrubcheck.reports.json_report import validate_report
from scrubcheck.runner import RunSettings
from scrubcheck.runner.shard import run_selection
from scrubcheck.scrubbers.broken import BROKEN
from scrubcheck.vectors import build_vector_set, write_vector_set
from scrubcheck.vectors.checks import DATA_CHECKS, HARNESS_CHECKS

CONSUMER = Path(__file__).resolve().parent.parent / "docs" / "examples" / "vectors_consumer.py"
REFERENCE = "scrubcheck.scrubbers.reference:ReferenceScrubber"
PER_AREA = 6  # scenarios of each area, up to 2,000 characters (the long ones cost minutes)
#: broken scrubbers whose bug this sample shows (the others: a harness check, hold-back
#: or time, or scenarios outside the sample; agreement with run is asserted for all)
CAUGHT_IN_SAMPLE = {"passthrough", "stateless", "tags_only", "raises", "returns_bytes",
                    "flush_leaks_tail", "prefill_ignored"}
TAG = ("tag", "R-TAG-1", "MUST")


#: the vectors carry no conformance class yet: compare with run in the generic class
GENERIC_RUN = RunSettings(linear_check=False, jobs=1, conformance_class="generic")


def _consumer():
    spec = importlib.util.spec_from_file_location("vectors_consumer", CONSUMER)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def test_the_consumer_uses_nothing_of_scrubcheck() -> None:
    tree = ast.parse(CONSUMER.read_text(encoding="utf-8"))
    imported = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import)
                for alias in node.names}
    imported |= {node.module or "" for node in ast.walk(tree)
                 if isinstance(node, ast.ImportFrom)}
    assert imported and not any(name.split(".")[0] == "scrubcheck" for name in imported)


@pytest.fixture(scope="module")
def vectors(tmp_path_factory):
    corpus = load_corpus(None)
    by_area: dict[str, list] = {}
    for scenario in corpus.scenarios:
        if len(scenario.text) <= 2000:
            by_area.setdefault(scenario.area, []).append(scenario)
    chosen = [s for area in sorted(by_area) for s in by_area[area][:PER_AREA]]
    vector_set = build_vector_set(chosen)
    out = tmp_path_factory.mktemp("vectors")
    write_vector_set(vector_set, out)
    left_out = {scenario_id for scenario_id, _ in vector_set.left_out}
    return out, [s for s in chosen if s.id not in left_out]


def _data_verdict(failures: set[tuple[str, str, str]]) -> str:
    if any(check == "exception" for check, _, _ in failures):
        return "ERROR"
    return "FAIL" if failures else "PASS"


@pytest.mark.parametrize("name", ["reference", *(n for n in BROKEN if n != "hangs")])
def test_consumer_agrees_with_run(vectors, name: str) -> None:
    folder, scenarios = vectors
    spec = REFERENCE if name == "reference" else BROKEN[name]
    run = run_selection(spec, scenarios, GENERIC_RUN,
                        progress=False)
    report = _consumer().consume(folder, spec)
    validate_report(report)  # what merge, diff and matrix read
    assert set(report["settings"]["vector_checks"]["not_run"]) >= set(HARNESS_CHECKS)
    mine = {r["scenario_id"]: r for r in report["results"]}
    assert list(mine) == [s.id for s in scenarios]
    differ, tag_not_judged, failing = [], 0, 0
    for result in run.results:
        theirs = {(f.check, f.rule, f.level) for f in result.failures if f.check in DATA_CHECKS}
        ours = mine[result.scenario_id]
        found = {(f["check"], f["rule"], f["level"]) for f in ours["failures"]}
        outcome = ("UNSUPPORTED" if result.outcome.value == "UNSUPPORTED"
                   else _data_verdict(theirs))
        if theirs - found == {TAG} and found == theirs - {TAG} and any(
                "R-TAG-1 not judged" in note for note in ours["notes"]):
            tag_not_judged += 1  # the guide's one undecidable case, counted and noted
            continue
        failing += bool(found)
        if found != theirs or ours["outcome"] != outcome:
            differ.append(f"{result.scenario_id}: run {outcome} {sorted(theirs)}, "
                          f"consumer {ours['outcome']} {sorted(found)}")
    assert differ == [], "\n".join(differ[:10])
    # the code-guard scenarios of the sample whose tags stand after a backtick: 5 today,
    # for passthrough and stateless (counted in the notes, never taken as a pass)
    assert tag_not_judged <= 6, tag_not_judged
    if name == "reference":
        assert failing == 0 and report["counts"] == {"PASS": len(scenarios)}
    elif name in CAUGHT_IN_SAMPLE:
        assert failing > 0  # the data alone catches the bug, as the harness does
