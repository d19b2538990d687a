"""The matrix's native rows (scrubcheck.vectors.native): the JS vector runner, watched by
the harness, costs a hanging or crashing scenario only that scenario; a peer with a
[native] table is judged natively with the protocol row's verdicts; the row says how it
was judged; the result cache keeps native and protocol results apart."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from scrubcheck.corpus import load_corpus
from scrubcheck.peers import find_manifest, read_marker
from scrubcheck.peers.manifest import ManifestError, load_manifest
from scrubcheck.results import Outcome
from scrubcheck.runner import RunSettings
from scrubcheck.runner.harness import implementation_digest
from scrubcheck.runner.shard import run_selection
from scrubcheck.vectors.native import RUNNER, judge_vectors, native_implementation, run_row

NODE = shutil.which("node")
pytestmark = pytest.mark.skipif(NODE is None, reason="node (20 or later) is not installed")
VECTORS = RUNNER / "test" / "vectors"
IDS = ["blocks-two-blocks-answer-between", "blocks-mid-line", "blocks-back-to-back",
       "blocks-three-in-one-line", "blocks-empty-pair"]

#: a pass-through scrubber that hangs on blocks-mid-line's text and exits on the one of
#: blocks-three-in-one-line: what a broken JS scrubber can do to the process judging it
HOSTILE = """
import {{ feedFlush }} from "{index}";
export default feedFlush(() => ({{
  feed(delta) {{
    if (delta.includes("144")) for (;;) {{}}
    if (delta.includes("weekday")) process.exit(3);
    return delta;
  }},
  flush() {{ return ""; }},
}}), {{ name: "hostile" }});
"""


def _node_processes(marker: str) -> list[str]:
    listed = subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True).stdout
    return [line for line in listed.splitlines() if marker in line and "ps -eo" not in line]


def test_a_hang_and_a_crash_cost_their_own_scenarios(tmp_path: Path) -> None:
    module = tmp_path / "hostile-scrubber.mjs"
    module.write_text(HOSTILE.format(index=(RUNNER / "src" / "index.mjs").as_uri()),
                      encoding="utf-8")
    found, header = judge_vectors([str(module)], VECTORS, IDS,
                                  RunSettings(jobs=1, timeout_s=3))
    assert sorted(found) == sorted(IDS)
    hung, crashed = found["blocks-mid-line"], found["blocks-three-in-one-line"]
    assert hung.outcome is Outcome.TIMEOUT and "in 3 s" in (hung.reason or "")
    assert crashed.outcome is Outcome.ERROR and "exit code 3" in (crashed.reason or "")
    others = [found[i] for i in IDS if i not in ("blocks-mid-line", "blocks-three-in-one-line")]
    # a pass-through shows the tags and the reasoning: judged, failing, after both restarts
    assert all(r.outcome is Outcome.FAIL for r in others)
    assert sum(any(f.leak for f in r.failures) for r in others) == 2
    assert header["scrubber"] == "hostile"
    assert _node_processes(str(module)) == []  # the hung runner was killed


def test_garbage_on_the_runner_s_stdout_is_an_error_naming_the_line(tmp_path: Path) -> None:
    module = tmp_path / "noisy-scrubber.mjs"
    module.write_text(HOSTILE.format(index=(RUNNER / "src" / "index.mjs").as_uri()).replace(
        'return delta;', 'process.stdout.write("not json\\\\n"); return delta;'),
        encoding="utf-8")
    found, _ = judge_vectors([str(module)], VECTORS, IDS[:1], RunSettings(jobs=1, timeout_s=10))
    assert found[IDS[0]].outcome is Outcome.ERROR
    assert "not a result" in (found[IDS[0]].reason or "")
    assert "not json" in (found[IDS[0]].reason or "")


def test_a_native_table_is_checked(tmp_path: Path) -> None:
    source = find_manifest("ai6-stream").folder
    folder = tmp_path / "ai6-stream"
    shutil.copytree(source, folder)
    path = folder / "peer.toml"
    text = path.read_text(encoding="utf-8")
    assert load_manifest(path).native is not None
    for bad, says in (('via = "wrapStream"', "native via 'sideways'"),
                      ('runner = "ai-sdk"', "native runner 'deno'")):
        wrong = bad.replace("wrapStream", "sideways").replace("ai-sdk", "deno")
        path.write_text(text.replace(bad, wrong), encoding="utf-8")
        with pytest.raises(ManifestError, match=says):
            load_manifest(path)
    path.write_text(text.replace('via = "wrapStream"', 'via = "streamText"\nspeed = 2'),
                    encoding="utf-8")
    with pytest.raises(ManifestError, match="exactly the keys runner and via"):
        load_manifest(path)


def test_a_protocol_row_is_run_as_before(monkeypatch: pytest.MonkeyPatch) -> None:
    corpus = load_corpus(None)
    scenarios = [s for s in corpus.scenarios if s.area == "blocks"][:3]
    run = run_row("reference", scenarios, RunSettings(jobs=1, linear_check=False))
    assert "native" not in run.settings and len(run.results) == 3
    assert native_implementation("reference") == implementation_digest("reference")


@pytest.mark.peers
@pytest.mark.parametrize("name", ["ai6-stream", "ai7-stream"])
def test_a_native_row_gets_the_protocol_row_s_verdicts(name: str) -> None:
    """Natively (in Node, the middleware's wrapStream) and over the peer protocol (through
    streamText, as adapter.mjs drives it), the same verdict on every scenario of a sample
    that holds the one JSON cannot carry (it runs over the protocol); the run says how it
    was judged."""
    from scrubcheck.matrix.verdicts import verdict

    manifest = find_manifest(name)
    if read_marker(manifest.package) is None:
        pytest.skip(f"peer {name} is not installed (scrubcheck peers install {name})")
    corpus = load_corpus(None)
    seen: dict[str, int] = {}
    sample = []
    for scenario in corpus.scenarios:
        seen[scenario.area] = seen.get(scenario.area, 0) + 1
        if seen[scenario.area] <= 4 and len(scenario.text) < 2000 \
                or scenario.id == "unicode-surrogate-halves-in-separate-deltas":
            sample.append(scenario)
    settings = RunSettings(jobs=2, linear_check=False, conformance_class="generic")
    said: list[str] = []
    native = run_row(f"peer:{name}", sample, settings, say=said.append)
    protocol = run_selection(f"peer:{name}", sample, settings)
    assert [r.scenario_id for r in native.results] == [s.id for s in sample]
    differ = [f"{a.scenario_id}: native {verdict(a)}, protocol {verdict(b)}"
              for a, b in zip(native.results, protocol.results, strict=True)
              if verdict(a) != verdict(b)]
    assert differ == [], "\n".join(differ[:10])
    assert native.settings["native"]["over_protocol"] == [
        "unicode-surrogate-halves-in-separate-deltas"]
    assert "holdback" in native.settings["vector_checks"]["not_run"]
    assert "timeout" in native.settings["vector_checks"]["ran"]
    assert any("judged natively" in line for line in said)
    assert native_implementation(f"peer:{name}") != implementation_digest(f"peer:{name}")
    json.dumps(native.to_dict())  # a report can be written from it
    # each failure's replay command names the scrubber, as a protocol row's does
    from scrubcheck.runner.replay import replay_command
    failures = [(r.scenario_id, f) for r in native.results for f in r.failures]
    assert failures, "the sample has failures to reproduce"
    for scenario_id, failure in failures:
        assert failure.replay == replay_command(scenario_id, f"peer:{name}", failure.chunking,
                                                0), failure.replay


def test_a_runner_that_dies_after_its_last_result_costs_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every scenario judged, then the process dies before its closing report line: the
    results stand and nothing is marked lost (nor run again)."""
    from scrubcheck.vectors import native

    calls = []

    def judged_then_died(arguments, vectors, timeout_s):
        calls.append(arguments)
        done = [native._lost(i, Outcome.PASS, "") for i in IDS[:2]]
        return done, {}, (Outcome.ERROR, "the vector runner stopped (exit code 1)")

    monkeypatch.setattr(native, "_one_runner", judged_then_died)
    found: dict = {}
    native._judge_part([], VECTORS, tmp_path, IDS[:2], 5.0, found, [])
    assert len(calls) == 1 and sorted(found) == sorted(IDS[:2])
    assert all(r.outcome is Outcome.PASS for r in found.values())


@pytest.mark.peers
def test_native_shards_merge_into_the_unsharded_run() -> None:
    """`matrix --shard K/N` and the Dask matrix judge a native row in parts: each part's
    record counts its own share (scenarios in Node, those over the protocol, the linear
    check only shard 1 runs), which `merge_shards` alone refuses as a disagreement.
    `merge_runs` gives them the whole run's record: the merged run is the unsharded one."""
    from scrubcheck.corpus.shard import Shard
    from scrubcheck.runner.merge import MergeError, merge_shards
    from scrubcheck.vectors.native import merge_runs

    name = "ai6-stream"
    if read_marker(find_manifest(name).package) is None:
        pytest.skip(f"peer {name} is not installed (scrubcheck peers install {name})")
    corpus = load_corpus(None)
    sample = [s for s in corpus.scenarios if s.area == "blocks"][:12] + [
        s for s in corpus.scenarios if s.id == "unicode-surrogate-halves-in-separate-deltas"]
    settings = RunSettings(jobs=1, linear_check=False)
    whole = run_row(f"peer:{name}", sample, settings)
    parts = [(f"part {k}", run_row(f"peer:{name}", sample, settings,
                                   shard=Shard.parse(f"{k}/3"))) for k in (1, 2, 3)]
    records = [run.settings["native"] for _, run in parts]
    assert sum(r["scenarios"] for r in records) == whole.settings["native"]["scenarios"]
    assert any(r != records[0] for r in records)  # the over-protocol one is in one part
    with pytest.raises(MergeError, match="setting native"):
        merge_shards(parts)
    merged = merge_runs(parts)
    assert [(r.scenario_id, r.outcome) for r in merged.results] == \
        [(r.scenario_id, r.outcome) for r in whole.results]
    for key in ("native", "vector_checks"):
        assert merged.settings[key] == whole.settings[key], key
    assert all("merged_from" not in run.settings for _, run in parts)  # inputs untouched


def test_a_runner_that_cannot_load_the_scrubber_fails_the_row_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A package whose API the driver does not fit (AI SDK 5 under the AI SDK 6 driver:
    "Mock is not a constructor") dies before it has loaded the scrubber. That is the
    row failing to start, said once, not every scenario an ERROR with a runner started
    again for each (3,775 node starts for the corpus)."""
    from scrubcheck.adapters import AdapterError
    from scrubcheck.vectors import native

    module = tmp_path / "broken-api.mjs"
    module.write_text('throw new Error("extractReasoningMiddleware is not a function");\n',
                      encoding="utf-8")
    starts = []
    real = native._one_runner

    def counted(*args, **kwargs):
        starts.append(args[0])
        return real(*args, **kwargs)

    monkeypatch.setattr(native, "_one_runner", counted)
    with pytest.raises(AdapterError, match="extractReasoningMiddleware is not a function"):
        judge_vectors([str(module)], VECTORS, IDS, RunSettings(jobs=2, timeout_s=10))
    assert len(starts) == 2  # one runner per part, none started again
