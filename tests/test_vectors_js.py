"""js/scrubcheck-vectors: its node tests pass, its verdicts are `scrubcheck run`'s on the
same JS scrubbers (served to run over the peer protocol), its report.json is one that
merge and diff read, its committed test vectors are current, and `npm pack` of it
installs in a clean folder and runs."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from scrubcheck.cli import main
from scrubcheck.corpus import load_corpus
from scrubcheck.reports.json_report import read_report, validate_report
from scrubcheck.runner import RunSettings
from scrubcheck.runner.shard import run_selection
from scrubcheck.vectors import build_vector_set, write_vector_set
from scrubcheck.vectors.checks import DATA_CHECKS

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "js" / "scrubcheck-vectors"
PEERS = Path(__file__).resolve().parent / "js_peers"
NODE = shutil.which("node")
NPM = shutil.which("npm")
pytestmark = pytest.mark.skipif(NODE is None, reason="node (20 or later) is not installed")
FIXTURE_AREAS = ("blocks", "split-tags")
TAG = ("tag", "R-TAG-1", "MUST")


#: the vectors carry no conformance class yet: compare with run in the generic class
GENERIC_RUN = RunSettings(linear_check=False, jobs=2, conformance_class="generic")


def _node(*args: str, cwd: Path = PACKAGE, env: dict | None = None,
          timeout: float = 600) -> subprocess.CompletedProcess:
    assert NODE is not None
    return subprocess.run([NODE, *args], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout, env=env)


def test_node_tests_pass() -> None:
    done = _node("--test", "test/")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert "# fail 0" in done.stdout


def test_committed_test_vectors_are_current(tmp_path: Path) -> None:
    args = [a for area in FIXTURE_AREAS for a in ("--area", area)]
    assert main(["export", "--out", str(tmp_path), *args]) == 0
    committed = PACKAGE / "test" / "vectors"
    stale = [p.name for p in committed.iterdir()
             if p.read_bytes() != (tmp_path / p.name).read_bytes()]
    assert stale == [], ("regenerate with: scrubcheck export --out js/scrubcheck-vectors/test/"
                         "vectors --area blocks --area split-tags && rm js/scrubcheck-vectors/"
                         "test/vectors/vectors.jsonl.gz")


@pytest.fixture(scope="module")
def sample(tmp_path_factory):
    """Six scenarios of each area (up to 2,000 characters) and the fixture areas whole."""
    corpus = load_corpus(None)
    seen: dict[str, int] = {}
    chosen = []
    for scenario in corpus.scenarios:
        if len(scenario.text) > 2000:
            continue
        seen[scenario.area] = seen.get(scenario.area, 0) + 1
        if scenario.area in FIXTURE_AREAS or seen[scenario.area] <= 6:
            chosen.append(scenario)
    vector_set = build_vector_set(chosen)
    out = tmp_path_factory.mktemp("vectors")
    write_vector_set(vector_set, out)
    left_out = {i for i, _ in vector_set.left_out}
    return out, [s for s in chosen if s.id not in left_out]


def _js_report(vectors: Path, example: str, out: Path, *extra: str) -> dict:
    done = _node("src/cli.mjs", str(vectors), f"examples/{example}.mjs", "--out", str(out),
                 *extra)
    assert done.returncode in (0, 1), done.stderr
    report = json.loads(out.read_text(encoding="utf-8"))
    validate_report(report)
    return report


@pytest.mark.parametrize("example", ["naive-regex", "small-scrubber"])
def test_js_runner_agrees_with_run(sample, tmp_path: Path, example: str) -> None:
    vectors, scenarios = sample
    report = _js_report(vectors, example, tmp_path / "report.json")
    run = run_selection(f"peer:{PEERS / ('js-' + example) / 'peer.toml'}", scenarios,
                        GENERIC_RUN, progress=False)
    ours = {r["scenario_id"]: r for r in report["results"]}
    assert list(ours) == [s.id for s in scenarios]
    differ, not_judged, failing = [], 0, 0
    for result in run.results:
        theirs = {(f.check, f.rule, f.level) for f in result.failures if f.check in DATA_CHECKS}
        mine = ours[result.scenario_id]
        found = {(f["check"], f["rule"], f["level"]) for f in mine["failures"]}
        if theirs - found == {TAG} and found == theirs - {TAG} and any(
                "R-TAG-1 not judged" in n for n in mine["notes"]):
            not_judged += 1  # the one case the data cannot decide, counted in the notes
            continue
        failing += bool(found)
        unsupported = (result.outcome.value == "UNSUPPORTED", mine["outcome"] == "UNSUPPORTED")
        if found != theirs or unsupported[0] != unsupported[1]:
            differ.append(f"{result.scenario_id}: run {result.outcome.value} {sorted(theirs)}, "
                          f"js {mine['outcome']} {sorted(found)}")
    assert differ == [], "\n".join(differ[:10])
    assert not_judged <= 6 and failing > 0  # both examples fail somewhere in the sample


def test_js_reports_merge_and_diff(sample, tmp_path: Path, capsys) -> None:
    vectors, scenarios = sample
    shards = [_js_report(vectors, "small-scrubber", tmp_path / f"shard{k}.json", "--shard",
                         f"{k}/2") for k in (1, 2)]
    assert sum(len(s["results"]) for s in shards) == len(scenarios)
    merged = tmp_path / "merged"
    assert main(["merge", str(tmp_path / "shard1.json"), str(tmp_path / "shard2.json"),
                 "--out", str(merged)]) == 1  # merged, and failing as the scrubber does
    whole = _js_report(vectors, "small-scrubber", tmp_path / "whole.json")
    assert [(r.scenario_id, r.outcome) for r in read_report(merged / "report.json").results] \
        == [(r["scenario_id"], r["outcome"]) for r in whole["results"]]
    naive = _js_report(vectors, "naive-regex", tmp_path / "naive.json")
    capsys.readouterr()
    assert main(["diff", str(tmp_path / "whole.json"), str(tmp_path / "naive.json")]) == 1
    assert "leak" in capsys.readouterr().out.lower()
    assert naive["settings"]["vector_checks"]["ran"][:3] == ["exception", "type", "leak"]


@pytest.mark.skipif(NPM is None, reason="npm is not installed")
def test_npm_pack_installs_in_a_clean_folder_and_runs(tmp_path: Path) -> None:
    assert NPM is not None
    packed = subprocess.run([NPM, "pack", str(PACKAGE), "--pack-destination", str(tmp_path)],
                            capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert packed.returncode == 0, packed.stderr
    tarball = tmp_path / packed.stdout.strip().splitlines()[-1]
    clean = tmp_path / "clean"
    clean.mkdir()
    (clean / "package.json").write_text('{"name": "consumer", "private": true, '
                                        '"type": "module"}\n', encoding="utf-8")
    installed = subprocess.run([NPM, "install", "--offline", "--no-audit", "--no-fund",
                                str(tarball)], capture_output=True, text=True, timeout=300,
                               cwd=clean)
    assert installed.returncode == 0, installed.stderr
    examples = clean / "node_modules" / "scrubcheck-vectors" / "examples"
    for name in ("scrubber.test.mjs", "small-scrubber.mjs"):  # what a project copies
        shutil.copy(examples / name, clean / name)
    vectors = tmp_path / "vectors"
    assert main(["export", "--out", str(vectors), "--area", "blocks", "--area",
                 "split-tags"]) == 0
    ids = ["blocks-back-to-back", "split-close-inside-name"]
    env = {"PATH": str(Path(NODE or "node").parent), "SCRUBCHECK_VECTORS": str(vectors),
           "SCRUBCHECK_IDS": ",".join(ids)}
    done = _node("--test", cwd=clean, env=env)
    assert done.returncode == 0 and "# pass 1" in done.stdout, done.stdout + done.stderr
    env["SCRUBCHECK_IDS"] = "blocks-nesting-different-names"  # outside its selection
    assert _node("--test", cwd=clean, env=env).returncode == 1
    cli = clean / "node_modules" / ".bin" / "scrubcheck-vectors"
    leaked = subprocess.run([str(cli), str(vectors), str(examples / "naive-regex.mjs")],
                            capture_output=True, text=True, timeout=300, cwd=clean, env=env)
    assert leaked.returncode == 1 and "leak reasoning" in leaked.stdout, leaked.stderr


# ------------------------------------------------- the AI SDK rows, natively in Node
@pytest.mark.peers
@pytest.mark.parametrize(("name", "via"), [
    ("ai6-stream", "wrapStream"), ("ai6-stream", "streamText"), ("ai7-stream", "wrapStream"),
    ("ai7-stream", "streamText"), ("ai6-generate", "generateText"),
    ("ai7-generate", "generateText")])
def test_ai_sdk_natively_agrees_with_the_protocol_rows(sample, protocol_runs, tmp_path: Path,
                                                       name: str, via: str) -> None:
    """The real extractReasoningMiddleware judged by the JS runner (its wrapStream alone,
    through streamText as the stream peers drive it, or through generateText as the batch
    peers do) gets the protocol row's verdicts, check for check, on every scenario both
    judge."""
    from scrubcheck.peers import find_manifest, read_marker
    from scrubcheck.peers.envs import env_dir

    manifest = find_manifest(name)
    if read_marker(manifest.package) is None:
        pytest.skip(f"peer {name} is not installed (scrubcheck peers install {name})")
    vectors, scenarios = sample
    if via == "streamText":  # about 9x the cost per stream: the fixture areas only
        scenarios = [s for s in scenarios if s.area in FIXTURE_AREAS]
    out = tmp_path / "report.json"
    done = _node("src/cli.mjs", str(vectors), "--ai-sdk", str(env_dir(manifest.package)),
                 "--via", via, "--out", str(out),
                 *(a for s in scenarios for a in ("--id", s.id)) if via == "streamText"
                 else ())
    assert done.returncode in (0, 1), done.stderr
    report = json.loads(out.read_text(encoding="utf-8"))
    validate_report(report)
    _assert_same_verdicts(protocol_runs(name, sample[1]), report, scenarios)


@pytest.fixture(scope="module")
def protocol_runs():
    """The protocol row of a peer over the sample, run once for every path that is
    compared with it (a stream peer's wrapStream and streamText)."""
    runs: dict[str, object] = {}

    def protocol_run(name: str, scenarios: list):
        if name not in runs:
            runs[name] = run_selection(f"peer:{name}", scenarios, GENERIC_RUN, progress=False)
        return runs[name]

    return protocol_run


def _assert_same_verdicts(run, report: dict, scenarios: list | None = None) -> None:
    """The JS report judged exactly `scenarios` (default: the run's), each with the
    protocol run's verdict, check for check."""
    ours = {r["scenario_id"]: r for r in report["results"]}
    compared = {s.id for s in scenarios} if scenarios is not None else {
        r.scenario_id for r in run.results}
    assert set(ours) == compared
    differ, not_judged, judged = [], 0, 0
    for result in run.results:
        if result.scenario_id not in compared:
            continue
        mine = ours[result.scenario_id]
        if result.outcome.value == "UNSUPPORTED" or mine["outcome"] == "UNSUPPORTED":
            if result.outcome.value != mine["outcome"]:
                differ.append(f"{result.scenario_id}: run {result.outcome.value}, "
                              f"js {mine['outcome']} ({mine['reason']})")
            continue
        judged += 1
        theirs = {(f.check, f.rule, f.level) for f in result.failures if f.check in DATA_CHECKS}
        found = {(f["check"], f["rule"], f["level"]) for f in mine["failures"]}
        if theirs - found == {TAG} and found == theirs - {TAG} and any(
                "R-TAG-1 not judged" in n for n in mine["notes"]):
            not_judged += 1
            continue
        if found != theirs:
            differ.append(f"{result.scenario_id}: run {sorted(theirs)}, js {sorted(found)}")
    assert differ == [], "\n".join(differ[:10])
    assert judged > 0 and not_judged <= max(6, judged // 20)


def test_matrix_shows_a_row_from_a_js_report(tmp_path: Path, capsys) -> None:
    vectors = PACKAGE / "test" / "vectors"
    _js_report(vectors, "naive-regex", tmp_path / "naive.json")
    out = tmp_path / "matrix"
    area = [a for name in FIXTURE_AREAS for a in ("--area", name)]
    assert main(["matrix", "--no-peers", *area, "--quick", "--no-progress", "--out", str(out),
                 "--add-report", f"js-naive={tmp_path / 'naive.json'}"]) == 0
    matrix = json.loads((out / "matrix.json").read_text(encoding="utf-8"))
    row = next(r for r in matrix["rows"] if r["name"] == "js-naive")
    assert row["totals"]["LEAK"] > 20 and row["totals"]["PASS"] > 0
    assert "not run here" in row["restrictions"][0]
    assert "js-naive" in (out / "matrix.md").read_text(encoding="utf-8")
    capsys.readouterr()
    assert main(["matrix", "--no-peers", "--area", "blocks", "--out", str(out), "--add-report",
                 f"js-naive={tmp_path / 'naive.json'}"]) == 2  # another selection
    assert "export the vectors with the same selection" in capsys.readouterr().err
