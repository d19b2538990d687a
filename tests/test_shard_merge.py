"""`--shard K/N` and `scrubcheck merge`: N shards cover a selection exactly once, and
their merge is the unsharded run, verdict for verdict; anything that is not the N
parts of one run is refused with exit 2."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from scrubcheck.cli import main
from scrubcheck.corpus import load_corpus
from scrubcheck.corpus.shard import Shard, shard_of
from scrubcheck.hunt import HuntSettings, hunt
from scrubcheck.scrubbers.broken import BROKEN

SELECTION = ["--area", "blocks", "--area", "unicode"]
FAST = ["--no-progress", "--jobs", "1"]


def cli(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture(scope="module")
def scenarios():
    return load_corpus(None).scenarios


# ---------------------------------------------------------------- the partition
@pytest.mark.parametrize("count", [1, 2, 3, 7])
def test_every_scenario_is_in_exactly_one_shard(scenarios, count):
    shards = [Shard(k, count) for k in range(1, count + 1)]
    picked = [s.id for shard in shards for s in shard.pick(scenarios)]
    assert sorted(picked) == sorted(s.id for s in scenarios)
    assert len(set(picked)) == len(picked)
    if count > 1:  # a hash spreads them: no shard is empty or holds most of the corpus
        sizes = [len(shard.pick(scenarios)) for shard in shards]
        assert min(sizes) > 0 and max(sizes) < 2 * len(scenarios) / count


def test_adding_a_scenario_moves_only_itself(scenarios):
    before = {s.id: shard_of(s.id, 5) for s in scenarios}
    extra = replace(scenarios[0], id="a-new-scenario-added-later")
    after = {s.id: shard_of(s.id, 5) for s in [extra, *scenarios]}
    assert {k: v for k, v in after.items() if k != extra.id} == before
    # nor on the order or on the rest of the selection
    shard = Shard(2, 5)
    assert shard.pick(list(reversed(scenarios))) == list(reversed(shard.pick(scenarios)))
    assert shard.pick(scenarios[:40]) == [s for s in shard.pick(scenarios) if s in scenarios[:40]]


def test_the_hash_is_stable_across_processes_and_versions():
    # SHA-256 of the id, not Python's salted hash(): pinned, so every CI job agrees
    assert shard_of("a", 5) == 1 + int("ca978112ca1bbdca", 16) % 5


@pytest.mark.parametrize("text", ["0/3", "4/3", "1/0", "x", "1/", "-1/2", "2/3/4"])
@pytest.mark.parametrize("command", [
    ["run"], ["matrix", "--no-peers"], ["hunt", "--seed", "1"],
    ["gateway", "audit", "--gateway", "http://127.0.0.1:9/v1"],
])
def test_a_bad_shard_is_a_usage_error(capsys, command, text):
    with pytest.raises(SystemExit) as exit_info:
        main([*command, "--shard", text])
    assert exit_info.value.code == 2
    assert "--shard" in capsys.readouterr().err


def test_hunt_shard_needs_a_fixed_seed(capsys):
    """The shards split the search of one seed: `--seed random` would give each its own."""
    code, _, err = cli(capsys, "hunt", "--shard", "1/2", "--seed", "random", "--max-examples",
                       "1")
    assert code == 2 and "--shard needs a fixed --seed" in err


# ---------------------------------------------------------------- merge == unsharded
def _run_shards(capsys, tmp: Path, spec: str, count: int, *extra: str) -> list[Path]:
    paths = []
    for k in range(1, count + 1):
        folder = tmp / f"shard{k}"
        code, out, _ = cli(capsys, "run", "--scrubber", spec, *SELECTION, *FAST, *extra,
                           "--shard", f"{k}/{count}", "--out", str(folder))
        assert code in (0, 1), out
        assert f"shard {k}/{count}:" in out
        paths.append(folder / "report.json")
    return paths


def _comparable(report: dict) -> dict:
    """Everything a reader compares, without timings and per-machine settings."""
    results = [{k: v for k, v in r.items() if k != "duration_s"} for r in report["results"]]
    settings = {k: v for k, v in report["settings"].items()
                if k not in ("jobs", "merged_from")}
    return {"results": results, "counts": report["counts"], "settings": settings,
            "linear": [c["outcome"] for c in report["scrubber_checks"]],
            **{k: report[k] for k in ("scrubber", "scrubber_kind", "spec_version",
                                      "scrubcheck_version", "corpus_errors", "interrupted")}}


@pytest.mark.parametrize(("spec", "linear"), [("reference", True),
                                              (BROKEN["stateless"], False)])
def test_merged_shards_equal_the_unsharded_run(capsys, tmp_path, spec, linear):
    extra = [] if linear else ["--no-linear"]
    shards = _run_shards(capsys, tmp_path, spec, 3, *extra)
    whole_code, _, _ = cli(capsys, "run", "--scrubber", spec, *SELECTION, *FAST, *extra,
                           "--out", str(tmp_path / "whole"))
    code, out, err = cli(capsys, "merge", *map(str, shards), "--out",
                         str(tmp_path / "merged"))
    assert code == whole_code, err
    assert "merged 3 shards" in out
    whole = json.loads((tmp_path / "whole" / "report.json").read_text(encoding="utf-8"))
    merged = json.loads((tmp_path / "merged" / "report.json").read_text(encoding="utf-8"))
    assert _comparable(merged) == _comparable(whole)
    assert [r["scenario_id"] for r in merged["results"]] == \
        [r["scenario_id"] for r in whole["results"]]  # the unsharded (corpus) order
    if linear:  # measured once, by shard 1 only
        per_shard = [json.loads(p.read_text(encoding="utf-8"))["scrubber_checks"]
                     for p in shards]
        assert [len(c) for c in per_shard] == [1, 0, 0]
        assert merged["scrubber_checks"][0]["scenario_id"] == "linear-time"
    else:
        assert whole["counts"].get("FAIL", 0) > 0  # the broken scrubber really is judged
    for name in ("report.md", "report.html", "junit.xml"):
        assert (tmp_path / "merged" / name).stat().st_size > 0
    assert len(merged["settings"]["merged_from"]) == 3


@pytest.fixture(scope="module")
def shard_reports(tmp_path_factory):
    """Three shard reports of a failing scrubber, made once for the refusal tests."""
    tmp = tmp_path_factory.mktemp("shards")
    paths = []
    for k in (1, 2, 3):
        code = main(["run", "--scrubber", BROKEN["passthrough"], "--area", "blocks", *FAST,
                     "--no-linear", "--shard", f"{k}/3", "--out",
                     str(tmp / f"s{k}")])
        assert code == 1
        paths.append(tmp / f"s{k}" / "report.json")
    return paths


def _edited(path: Path, tmp: Path, name: str, edit) -> Path:  # type: ignore[no-untyped-def]
    data = json.loads(path.read_text(encoding="utf-8"))
    edit(data)
    out = tmp / name
    out.write_text(json.dumps(data), encoding="utf-8")
    return out


def test_merge_refuses_a_missing_shard(capsys, shard_reports, tmp_path):
    code, out, err = cli(capsys, "merge", str(shard_reports[0]), str(shard_reports[2]),
                         "--out", str(tmp_path / "m"))
    assert code == 2 and "shard 2/3 missing" in err
    assert not (tmp_path / "m").exists()


def test_merge_refuses_a_duplicated_shard(capsys, shard_reports):
    code, _, err = cli(capsys, "merge", *map(str, shard_reports), str(shard_reports[1]))
    assert code == 2 and "shard 2/3 given twice" in err


def test_merge_refuses_shards_that_disagree(capsys, shard_reports, tmp_path):
    def other_seed(data: dict) -> None:
        data["settings"]["seed"] = 7

    edited = _edited(shard_reports[1], tmp_path, "seed.json", other_seed)
    code, _, err = cli(capsys, "merge", str(shard_reports[0]), str(edited),
                       str(shard_reports[2]))
    assert code == 2 and "disagree on setting seed" in err and "seed.json" in err

    for key, value in [("corpus_digest", "0000000000000000"),
                       ("implementation_version", "other 9.9"), ("timeout_s", 1.0),
                       ("level", "should")]:
        edited = _edited(shard_reports[2], tmp_path, f"{key}.json",
                         lambda d, k=key, v=value: d["settings"].__setitem__(k, v))
        code, _, err = cli(capsys, "merge", str(shard_reports[0]), str(shard_reports[1]),
                           str(edited))
        assert code == 2 and f"disagree on setting {key}" in err, (key, err)

    edited = _edited(shard_reports[2], tmp_path, "spec.json",
                     lambda d: d.__setitem__("spec_version", "0.0.1"))
    code, _, err = cli(capsys, "merge", str(shard_reports[0]), str(shard_reports[1]),
                       str(edited))
    assert code == 2 and "disagree on spec_version" in err


def test_merge_refuses_a_scenario_in_two_shards(capsys, shard_reports, tmp_path):
    first = json.loads(shard_reports[0].read_text(encoding="utf-8"))

    def smuggle(data: dict) -> None:
        data["results"].append(first["results"][0])
        data["settings"]["selection"]["positions"].append(
            first["settings"]["selection"]["positions"][0])

    edited = _edited(shard_reports[1], tmp_path, "twice.json", smuggle)
    code, _, err = cli(capsys, "merge", str(shard_reports[0]), str(edited),
                       str(shard_reports[2]))
    assert code == 2
    assert f"scenario {first['results'][0]['scenario_id']} appears twice" in err


def test_merge_refuses_other_splits_and_unsharded_reports(capsys, shard_reports, tmp_path):
    edited = _edited(shard_reports[1], tmp_path, "n4.json",
                     lambda d: d["settings"].__setitem__("shard", "2/4"))
    code, _, err = cli(capsys, "merge", str(shard_reports[0]), str(edited))
    assert code == 2 and "different splits" in err
    whole = _edited(shard_reports[0], tmp_path, "whole.json",
                    lambda d: d["settings"].__setitem__("shard", None))
    code, _, err = cli(capsys, "merge", str(whole))
    assert code == 2 and "not a shard" in err
    bad = tmp_path / "bad.json"
    bad.write_text("[1, 2]", encoding="utf-8")
    code, _, err = cli(capsys, "merge", str(bad))
    assert code == 2 and "not a scrubcheck report.json" in err


def test_an_empty_shard_still_reports_and_merges(capsys, tmp_path):
    """More shards than scenarios: the empty shards write reports, the merge is whole."""
    count = 4
    paths = []
    for k in range(1, count + 1):
        code, out, _ = cli(capsys, "run", "--id", "blocks-basic", "--id", "unicode-*",
                           *FAST, "--no-linear", "--shard", f"{k}/{count}",
                           "--out", str(tmp_path / f"s{k}"))
        assert code == 0, out
        paths.append(str(tmp_path / f"s{k}" / "report.json"))
    sizes = [len(json.loads(Path(p).read_text())["results"]) for p in paths]
    code, out, _ = cli(capsys, "merge", *paths)
    assert code == 0 and f"{sum(sizes)} scenarios" in out.replace(",", "")


# ---------------------------------------------------------------- matrix and hunt
def test_matrix_shards_merge_into_the_unsharded_matrix(capsys, tmp_path):
    common = ["matrix", "--no-peers", "--scrubber", BROKEN["stateless"], "--area", "blocks",
              "--quick", *FAST]
    for k in (1, 2):
        code, out, _ = cli(capsys, *common, "--shard", f"{k}/2", "--out", str(tmp_path / f"m{k}"))
        assert code == 0, out
    code, _, _ = cli(capsys, *common, "--out", str(tmp_path / "whole"))
    assert code == 0
    code, out, err = cli(capsys, "merge", str(tmp_path / "m1" / "matrix.json"),
                         str(tmp_path / "m2" / "matrix.json"), "--out",
                         str(tmp_path / "merged"))
    assert code == 0, err
    whole = json.loads((tmp_path / "whole" / "matrix.json").read_text(encoding="utf-8"))
    merged = json.loads((tmp_path / "merged" / "matrix.json").read_text(encoding="utf-8"))
    for key in ("verdicts", "totals", "areas", "rule_groups", "hall_of_bugs", "linear_time"):
        assert [r[key] for r in merged["rows"]] == [r[key] for r in whole["rows"]], key
    assert merged["mode_note"] == whole["mode_note"] and merged["pruned"] == whole["pruned"]
    assert "Shard 1/2" in json.loads((tmp_path / "m1" / "matrix.json").read_text())["mode_note"]
    shard_one = tmp_path / "m1" / "matrix.json"
    code, _, err = cli(capsys, "merge", str(shard_one))
    assert code == 2 and "shard 2/2 missing" in err


def test_hunt_shards_split_the_cases_of_one_seed():
    def cases(shard: Shard | None) -> tuple[int, int]:
        result = hunt("reference", HuntSettings(seconds=120, seed=11, examples=250,
                                                database="memory", linear=False,
                                                shard=shard))
        return result.examples, result.batches

    shards = [cases(Shard(k, 2)) for k in (1, 2)]
    assert [s[1] for s in shards] == [2, 1]  # batches 0 and 2, batch 1 (of 100, 100, 50)
    assert sum(s[0] for s in shards) == 250 == cases(None)[0]
