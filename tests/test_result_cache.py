"""The result cache gives what a run gives, reruns only what changed, and keeps nothing
that was the machine's answer rather than the code's."""

from __future__ import annotations

import json
import pkgutil
import shutil
from dataclasses import replace
from pathlib import Path

import pytest

import scrubcheck
from scrubcheck.corpus import Corpus, select
from scrubcheck.formats import registered_formats
from scrubcheck.formats.registry import shipped_format_dir
from scrubcheck.model import Scenario
from scrubcheck.results import Outcome, RunResult, ScenarioResult
from scrubcheck.runner import RunSettings, harness
from scrubcheck.runner import cache as cache_module
from scrubcheck.runner.cache import ResultCache, cached_run, scenario_digest
from scrubcheck.runner.harness import (
    GATEWAY_PARTS,
    JUDGING_PARTS,
    OUTSIDE,
    files_digest,
    implementation_digest,
)
from scrubcheck.runner.shard import run_selection

SETTINGS = RunSettings(jobs=2, random_count=1, linear_check=False)


def _comparable(run: RunResult) -> dict:
    """A run as report.json has it, without what a timing or the cache decides."""
    data = json.loads(json.dumps(run.to_dict()))
    for key in ("started_at", "duration_s"):
        data.pop(key)
    data["settings"].pop("cache", None)
    for result in data["results"] + data["scrubber_checks"]:
        result.pop("duration_s")
        result["metrics"] = {}
    return data


@pytest.fixture
def few(corpus: Corpus) -> list[Scenario]:
    return select(corpus.scenarios, areas=["split-tags"])[:12]


def test_every_module_is_inside_or_outside_the_harness_digest() -> None:
    """A new module must be placed: inside, its edits invalidate every cached result."""
    placed = {*JUDGING_PARTS, *GATEWAY_PARTS, *OUTSIDE}
    found = {m.name for m in pkgutil.iter_modules(scrubcheck.__path__)}
    assert found - placed == set(), "place these in scrubcheck.runner.harness"
    assert not set(JUDGING_PARTS) & set(OUTSIDE)


def test_a_cached_run_is_the_plain_run_and_a_second_run_runs_nothing(
        few: list[Scenario], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache = ResultCache(tmp_path)
    implementation = implementation_digest("reference")
    first = cached_run("reference", few, SETTINGS, cache, implementation)
    plain = run_selection("reference", few, SETTINGS)
    assert _comparable(first) == _comparable(plain)
    assert first.settings["cache"]["ran"] == len(few)

    def no_run(*args: object, **kwargs: object) -> RunResult:
        raise AssertionError("everything was cached: nothing may run")

    monkeypatch.setattr(cache_module, "run_selection", no_run)
    second = cached_run("reference", few, SETTINGS, cache, implementation)
    assert _comparable(second) == _comparable(plain)
    assert second.settings["cache"] == {**first.settings["cache"], "reused": len(few), "ran": 0}


def test_a_changed_scenario_is_rerun_and_a_moved_one_points_where_it_is_now(
        few: list[Scenario], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache = ResultCache(tmp_path)
    implementation = implementation_digest("reference")
    cached_run("reference", few, SETTINGS, cache, implementation)
    changed = replace(few[0], deltas=[*few[0].deltas, " and more"],
                      visible=(few[0].visible or "") + " and more")
    moved = replace(few[1], line=few[1].line + 40, description="moved down")
    asked: list[list[str]] = []
    real = cache_module.run_selection

    def counting(spec: str, scenarios: list[Scenario], *args: object, **kw: object) -> RunResult:
        asked.append([s.id for s in scenarios])
        return real(spec, scenarios, *args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(cache_module, "run_selection", counting)
    run = cached_run("reference", [changed, moved, *few[2:]], SETTINGS, cache, implementation)
    assert asked == [[changed.id]]
    assert scenario_digest(changed) != scenario_digest(few[0])
    assert (run.results[1].line, run.results[1].description) == (moved.line, "moved down")
    assert run.settings["cache"]["reused"] == len(few) - 1


def test_other_settings_or_another_implementation_share_nothing(
        few: list[Scenario], tmp_path: Path) -> None:
    cache = ResultCache(tmp_path)
    cached_run("reference", few[:3], SETTINGS, cache, implementation_digest("reference"))
    other_seed = cached_run("reference", few[:3], replace(SETTINGS, seed=7), cache,
                            implementation_digest("reference"))
    assert other_seed.settings["cache"]["reused"] == 0
    broken = "scrubcheck.scrubbers.broken.stateless:StatelessScrubber"
    other = cached_run(broken, few[:3], SETTINGS, cache, implementation_digest(broken))
    assert other.settings["cache"]["reused"] == 0


def test_timeouts_are_not_kept(corpus: Corpus, tmp_path: Path) -> None:
    """A TIMEOUT says how busy the machine was: the next run measures it again."""
    hangs = "scrubcheck.scrubbers.broken.hangs:HangsScrubber"
    (scenario,) = select(corpus.scenarios, ids=["split-less-than-at-delta-ends"])
    settings = replace(SETTINGS, timeout_s=2.0)
    cache = ResultCache(tmp_path)
    first = cached_run(hangs, [scenario], settings, cache, implementation_digest(hangs))
    assert first.results[0].outcome is Outcome.TIMEOUT
    second = cached_run(hangs, [scenario], settings, cache, implementation_digest(hangs))
    assert second.settings["cache"]["ran"] == 1


@pytest.mark.parametrize(("outcome", "kept"), [(Outcome.PASS, True), (Outcome.FAIL, False)])
def test_a_linear_time_pass_is_kept_and_a_fail_measured_again(
        few: list[Scenario], tmp_path: Path, outcome: Outcome, kept: bool) -> None:
    """A time ratio only worsens on a busy machine: a FAIL may be the machine's."""
    measured: list[bool] = []

    def run(spec: str, scenarios: list[Scenario], settings: RunSettings,
            **kw: object) -> RunResult:
        fresh = run_selection(spec, scenarios, replace(settings, linear_check=False), **kw)
        measured.append(settings.linear_check)
        if settings.linear_check:
            fresh.scrubber_checks = [ScenarioResult("(linear time)", "robustness",
                                                    ["R-ROBUST-2"], "", 0, "", outcome)]
        return fresh

    settings = replace(SETTINGS, linear_check=True)
    cache = ResultCache(tmp_path)
    implementation = implementation_digest("reference")
    first = cached_run("reference", few[:2], settings, cache, implementation, run=run)
    second = cached_run("reference", few[:2], settings, cache, implementation, run=run)
    assert [c.outcome for c in first.scrubber_checks] == [outcome]
    assert [c.outcome for c in second.scrubber_checks] == [outcome]
    assert measured == ([True] if kept else [True, True])


def test_the_file_digest_sees_every_byte_and_every_name(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x = 1\n")
    before = files_digest(tmp_path.rglob("*"), tmp_path)
    (tmp_path / "a.py").write_text("x = 1  # a comment\n")
    edited = files_digest(tmp_path.rglob("*"), tmp_path)
    (tmp_path / "a.py").rename(tmp_path / "b.py")
    renamed = files_digest(tmp_path.rglob("*"), tmp_path)
    assert len({before, edited, renamed}) == 3


def test_format_files_are_digested_one_by_one_and_not_in_the_harness_digest(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A format file is data: editing one changes its own digest and the registry's, not
    the harness digest (which would invalidate every result); the registry's README only
    explains the files, so editing it changes nothing."""
    registry = tmp_path / "formats"
    shutil.copytree(shipped_format_dir(), registry)
    formats = {name: replace(fmt, file=str(registry / Path(fmt.file).name))
               for name, fmt in registered_formats().items()}
    monkeypatch.setattr(harness, "registered_formats", lambda: formats)
    harness.harness_digest.cache_clear()
    try:
        before = (harness.harness_digest(), harness.format_digests(), harness.formats_digest())
        (registry / "README.md").write_text("edited\n", encoding="utf-8")
        assert (harness.harness_digest(), harness.format_digests(),
                harness.formats_digest()) == before
        think = registry / "think.yaml"
        think.write_text(think.read_text(encoding="utf-8") + "# edited\n", encoding="utf-8")
        digests = harness.format_digests()
        assert harness.harness_digest() == before[0]
        assert {n for n in digests if digests[n] != before[1][n]} == {"think"}
        assert harness.formats_digest() != before[2]
    finally:
        harness.harness_digest.cache_clear()


def _featured(corpus: Corpus, feature: str, count: int) -> list[Scenario]:
    return [s for s in corpus.scenarios if s.context.features == (feature,)][:count]


def test_a_changed_format_reruns_only_the_scenarios_that_read_it(
        corpus: Corpus, few: list[Scenario], tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """In the generic class a scenario reads the default family and the features it
    enables: a changed (or newly added) feature format reruns its scenarios and the
    implementation's own description, a changed default family reruns every scenario,
    and a claimed class (which places scenarios by every format) reads the registry."""
    harmony, bracket = _featured(corpus, "harmony", 3), _featured(corpus, "bracket", 2)
    scenarios = [*few[:4], *harmony, *bracket]
    assert len(harmony) == 3 and len(bracket) == 2
    settings = replace(SETTINGS, conformance_class="generic")
    cache = ResultCache(tmp_path)
    implementation = implementation_digest("reference")
    cached_run("reference", scenarios, settings, cache, implementation)
    shipped = harness.format_digests()
    asked: list[list[str]] = []
    real = cache_module.run_selection

    def counting(spec: str, chosen: list[Scenario], *args: object, **kw: object) -> RunResult:
        asked.append([s.id for s in chosen])
        return real(spec, chosen, *args, **kw)  # type: ignore[arg-type]

    def rerun_with(digests: dict[str, str], conformance_class: str = "generic") -> list[str]:
        asked.clear()
        monkeypatch.setattr(cache_module, "format_digests", lambda: digests)
        run = cached_run("reference", scenarios, replace(settings,
                         conformance_class=conformance_class), cache, implementation)
        assert run.settings["cache"]["ran"] == sum(map(len, asked))
        return [i for ids in asked for i in ids]

    monkeypatch.setattr(cache_module, "run_selection", counting)
    assert rerun_with(shipped) == []
    assert asked == []  # nothing ran at all: not even to describe the implementation
    assert sorted(rerun_with({**shipped, "harmony": "edited"})) == sorted(
        s.id for s in harmony)
    assert rerun_with({**shipped, "harmony": "edited", "acme": "added"}) == []
    assert asked == [[]]  # the implementation described afresh under the new registry
    base = next(n for n, f in registered_formats().items() if f.generic == "base")
    assert len(rerun_with({**shipped, base: "edited"})) == len(scenarios)
    assert len(rerun_with(shipped, conformance_class="think")) == len(scenarios)  # new row
    assert rerun_with(shipped, conformance_class="think") == []
    assert len(rerun_with({**shipped, "bracket": "edited"}, conformance_class="think")
               ) == len(scenarios)


def test_a_corrupt_cache_file_costs_a_rerun_not_an_error(few: list[Scenario],
                                                         tmp_path: Path) -> None:
    cache = ResultCache(tmp_path)
    implementation = implementation_digest("reference")
    cached_run("reference", few[:2], SETTINGS, cache, implementation)
    for path in cache.folder.glob("*.json"):
        path.write_text("{not json")
    again = cached_run("reference", few[:2], SETTINGS, cache, implementation)
    assert again.settings["cache"]["ran"] == 2


def test_a_page_re_rendered_from_matrix_json_still_says_the_cache_gave_its_results(
        few: list[Scenario], tmp_path: Path) -> None:
    """A matrix built from cached results says its times are not a full run's; so must
    the same matrix re-rendered from its matrix.json (`matrix --render-from`), or a reader
    takes the minutes of what was left to run for a full run's."""
    from scrubcheck.matrix import write_matrix
    from scrubcheck.matrix.runs import run_matrix
    from scrubcheck.matrix.stored import load_stored_matrix

    cache = ResultCache(tmp_path / "cache")
    for name in ("cold", "warm"):
        matrix = run_matrix([], set(), few[:4], SETTINGS, tmp_path / name, quick=True,
                            say=lambda _: None, cache=cache)
        write_matrix(matrix, tmp_path / name)
    warm = "4 of 4 results were taken from the result cache"
    assert warm not in load_stored_matrix(tmp_path / "cold" / "matrix.json").production()
    again = load_stored_matrix(tmp_path / "warm" / "matrix.json").production()
    assert warm in again and "re-rendered from matrix.json" in again
