"""A new check that needs a stream run of its own is its module and its registry line.

The throwaway check below names itself (`CheckName`, as a new module does), plans
one run of its own (every recorded delta cut in two) and fails whenever that run's
output is not upper case, so that it fires on the reference and its verdict is easy to
see. It joins the registry only through
`checks.registry.extended` for the length of a test, and `scrubcheck run`, the
hunt's properties, `scrubcheck show` and the pytest plugin then run it with no
further change; without it they do not (each test can fail).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path

import pytest

from scrubcheck.adapters import load_adapter
from scrubcheck.adapters.drive import Trace
from scrubcheck.adapters.labels import StreamLabel, own_label
from scrubcheck.checks.names import Check, CheckName
from scrubcheck.checks.registry import CheckEntry, PlannedRun, Subject, extended, without
from scrubcheck.cli import main
from scrubcheck.corpus import load_corpus
from scrubcheck.evidence import Evidence
from scrubcheck.hunt.case import Case
from scrubcheck.hunt.properties import violations
from scrubcheck.runner import run_scenario

pytest_plugins = ["pytester"]

SCENARIO = "skip-direct-answer-stop"  # "The capital of France " | "is Paris."
LABEL = own_label("halves")


SHOUTED = CheckName("shouted")


def _halves(subject: Subject) -> tuple[PlannedRun, ...]:
    deltas = tuple(part for delta in subject.scenario.deltas
                   for part in (delta[: len(delta) // 2], delta[len(delta) // 2 :]))
    return (PlannedRun(LABEL, subject.scenario.context, deltas),)


def _shouted(subject: Subject, traces: Mapping[StreamLabel, Trace]
             ) -> Iterable[tuple[StreamLabel, Evidence | None]]:
    for label, trace in traces.items():
        quiet = trace.output != trace.output.upper()
        yield label, (Evidence(SHOUTED, "R-CHUNK-1", detail=f"not shouted: "
                               f"{trace.output!r}") if quiet else None)


ENTRY = CheckEntry(SHOUTED, ("R-CHUNK-1",), _shouted, prop="shouted",
                   says="the halved stream's output is upper case (a throwaway)",
                   runs=_halves, on_runs=_shouted)


@pytest.fixture
def with_check() -> Iterator[None]:
    with extended(ENTRY):
        yield


def _scenario():
    return load_corpus().by_id()[SCENARIO]


def _shouted_failures(result) -> list[Evidence]:
    return [f for f in result.failures if f.check == SHOUTED]


def test_run_makes_the_check_s_own_run_and_reports_it(with_check) -> None:
    result = run_scenario(load_adapter("reference"), _scenario())
    (failure,) = _shouted_failures(result)
    assert failure.chunking == "halves" and failure.rule == "R-CHUNK-1"
    assert failure.deltas == ("The capital", " of France ", "is P", "aris.")
    assert "not shouted: 'The capital of France is Paris.'" in failure.detail
    assert "--chunking halves" in failure.replay


def test_without_the_registry_line_nothing_runs_it() -> None:
    result = run_scenario(load_adapter("reference"), _scenario())
    assert _shouted_failures(result) == []


def test_the_run_command_reports_it(with_check, tmp_path: Path) -> None:
    code = main(["run", "--id", SCENARIO, "--no-linear", "--no-progress", "--jobs", "1",
                 "--out", str(tmp_path)])
    assert code == 1  # a MUST rule failed
    report = json.loads((tmp_path / "report.json").read_text())
    (result,) = report["results"]
    assert [f["check"] for f in result["failures"]] == ["shouted"]


def test_the_hunt_searches_it_as_a_property(with_check) -> None:
    scenario = _scenario()
    case = Case(scenario.context, tuple(scenario.deltas), (scenario.text,), 0)
    found = [v for v in violations(load_adapter("reference"), case) if v.check == "shouted"]
    assert [v.deltas for v in found] == [("The capital", " of France ", "is P", "aris.")]


def test_show_gives_its_verdict_and_replays_its_run(with_check, capsys) -> None:
    assert main(["show", SCENARIO]) == 1
    assert "not shouted" in capsys.readouterr().out
    assert main(["show", SCENARIO, "--chunking", "halves"]) == 1
    shown = capsys.readouterr().out
    assert "run halves, planned by a check of its own" in shown
    assert "not shouted" in shown


def test_the_pytest_plugin_fails_on_it(with_check, pytester: pytest.Pytester) -> None:
    corpus = Path(__file__).resolve().parent.parent / "corpora" / "skip.yaml"
    pytester.makefile(".yaml", **{"corpus/skip": corpus.read_text(encoding="utf-8")})
    result = pytester.runpytest("-p", "no:cacheprovider", "--scrubber", "reference",
                                "--scrubcheck-corpus", "corpus", "--scrubcheck-jobs", "1",
                                "-k", SCENARIO)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*shouted R-CHUNK-1*"])


def _labels_run(scenario_id: str) -> list[str]:
    labels: list[str] = []
    run_scenario(load_adapter("reference"), load_corpus().by_id()[scenario_id],
                 progress=labels.append)
    return labels


def test_the_conductor_makes_only_the_kinds_of_run_a_check_reads() -> None:
    """Each entry says which runs it reads (`needs`): without the reuse and idempotence
    checks no reused object and no re-scrub is run, and the truncation cuts still are."""
    every = _labels_run(SCENARIO)
    assert any(label.startswith("reuse:") for label in every)
    with without(Check.REUSE, Check.IDEMPOTENCE):
        fewer = _labels_run(SCENARIO)
    assert not any(label.startswith("reuse:") for label in fewer)
    assert any(label.startswith("trunc@") for label in fewer)
    assert len(fewer) < len(every) - 4  # the 4 poisons and at least one re-scrub


def test_a_second_check_of_one_name_is_refused_and_the_registry_left_as_it_was() -> None:
    twin = CheckEntry(Check.REUSE, ("R-REUSE-1",), _shouted, runs=_halves, on_runs=_shouted)
    with pytest.raises(ValueError, match="two checks in the registry are named 'reuse'"):
        with extended(twin):
            pass
    assert _shouted_failures(run_scenario(load_adapter("reference"), _scenario())) == []
