"""What makes the full matrix cheaper changes no verdict: a batch implementation runs
each distinct joined text once per scenario, and a peer gets many streams per request."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

import scrubcheck.runner.joined as joined
from scrubcheck.adapters import load_adapter
from scrubcheck.adapters.drive import Trace
from scrubcheck.corpus import load_corpus, select
from scrubcheck.runner import RunSettings, run_scenario

AREAS = ["blocks", "unicode", "split-tags", "code-guard"]
MINIMAL_PEER = "peer:" + str(Path(__file__).resolve().parent.parent / "docs" / "examples"
                             / "minimal-peer" / "peer.toml")

BATCH = '''
import re

def strip(text):
    """A naive batch scrubber: the regular expression over the whole text."""
    return re.sub(r"<think>.*?</think>", "", text, flags=re.S)

def split(text):
    """A naive batch splitter: (reasoning, answer)."""
    found = re.findall(r"<think>(.*?)</think>", text, flags=re.S)
    return "".join(found), re.sub(r"<think>.*?</think>", "", text, flags=re.S)

def shout(text):
    """Raises on some texts: an error keeps its own runs."""
    if "</think>" in text[-12:]:
        raise ValueError("ends on a close tag")
    return text.upper()
'''


@pytest.fixture(scope="module")
def scenarios():
    return select(load_corpus(None).scenarios, areas=AREAS)


@pytest.fixture(scope="module")
def batch_module(tmp_path_factory):
    path = tmp_path_factory.mktemp("batch") / "batch_scrubbers.py"
    path.write_text(BATCH, encoding="utf-8")
    return path


def _results(spec: str, scenarios, reuse: bool, monkeypatch) -> list[dict]:
    monkeypatch.setattr(joined, "ENABLED", reuse)
    adapter = load_adapter(spec)
    out = []
    for scenario in scenarios:
        result = dataclasses.asdict(run_scenario(adapter, scenario, RunSettings()))
        result.pop("duration_s")
        out.append(result)
    return out


@pytest.mark.parametrize("spec", ["batch:{m}:strip", "splitter:{m}:split", "batch:{m}:shout",
                                  "reference", MINIMAL_PEER])
def test_running_each_joined_text_once_changes_no_verdict(spec, scenarios, batch_module,
                                                          monkeypatch):
    spec = spec.format(m=batch_module)
    before = _results(spec, scenarios, False, monkeypatch)
    after = _results(spec, scenarios, True, monkeypatch)
    assert after == before
    outcomes = {r["outcome"] for r in after}
    if spec != "reference":
        assert "FAIL" in outcomes or "ERROR" in outcomes  # judged, not vacuously equal


def test_a_batch_adapter_gets_each_scenario_text_once(scenarios, batch_module, monkeypatch):
    adapter = load_adapter(f"batch:{batch_module}:strip")
    original = adapter.func
    scenario = next(s for s in scenarios if s.id.startswith("blocks"))
    counts = {}
    for reuse in (False, True):
        monkeypatch.setattr(joined, "ENABLED", reuse)
        calls: list[str] = []
        monkeypatch.setattr(adapter, "func",
                            lambda text, calls=calls, **kw: calls.append(text) or original(text))
        result = run_scenario(adapter, scenario, RunSettings())
        counts[reuse] = calls.count(scenario.text)
    assert result.chunkings_run > 20
    # every chunking is the same call f(text): once instead of once per chunking (the other
    # calls with the whole text, re-use after each poison and the cut at the end, remain)
    assert counts[False] - counts[True] == result.chunkings_run - 1


def test_streaming_adapters_are_never_answered_from_another_run(scenarios):
    runs = joined.JoinedTextRuns(load_adapter("reference"), scenarios[0].context)
    assert not runs.reuse
    first = runs.run(("a<think>b", "</think>c"))
    second = runs.run(("a<think>b</think>", "c"))
    assert runs.saved == 0 and isinstance(first, Trace) and second.deltas == (
        "a<think>b</think>", "c")


PEERLOOP_PEER = '''
"""A peerloop peer around the reference scrubber (it offers the `streams` op)."""
import os
import sys

sys.path.insert(0, os.environ["SCRUBCHECK_PEERLOOP_DIR"])
from peerloop import serve  # noqa: E402

from scrubcheck.scrubbers.reference import ReferenceScrubber  # noqa: E402

serve(lambda context: ReferenceScrubber(), kind="stream")
'''


@pytest.fixture(scope="module")
def reference_peer(tmp_path_factory):
    folder = tmp_path_factory.mktemp("peers") / "reference-peer"
    folder.mkdir()
    (folder / "adapter.py").write_text(PEERLOOP_PEER, encoding="utf-8")
    (folder / "peer.toml").write_text(
        'name = "reference-peer"\ntitle = "The reference behind the protocol"\n'
        'kind = "streaming scrubber"\nentry = "ReferenceScrubber"\nprogram = "adapter.py"\n',
        encoding="utf-8")
    return f"peer:{folder / 'peer.toml'}"


def test_a_peer_gets_many_streams_per_request_with_the_same_verdicts(reference_peer,
                                                                     scenarios, monkeypatch):
    import scrubcheck.peers.process as process
    from scrubcheck.adapters.peer import PeerAdapter

    chosen = [s for s in scenarios if s.area in ("blocks", "unicode")]
    requests: list[str] = []
    original = process.PeerProcess.request

    def counted(self, message, *args, **kwargs):  # type: ignore[no-untyped-def]
        requests.append(str(message.get("op")))
        return original(self, message, *args, **kwargs)

    monkeypatch.setattr(process.PeerProcess, "request", counted)
    adapter = load_adapter(reference_peer)
    assert adapter.prefetches  # its hello offers `streams`
    ahead = _results(reference_peer, chosen, True, monkeypatch)
    with_ahead = list(requests)
    requests.clear()
    monkeypatch.setattr(PeerAdapter, "prefetches", property(lambda self: False))
    one_by_one = _results(reference_peer, chosen, True, monkeypatch)
    assert ahead == one_by_one
    assert {r["outcome"] for r in ahead} >= {"PASS"}
    assert "streams" in with_ahead and "streams" not in requests
    assert len(with_ahead) * 5 < len(requests)  # measured: about 16x fewer round trips


def test_a_failed_prefetch_leaves_each_stream_to_run_and_report_itself(tmp_path):
    """The misbehaving test peer hangs on HANG: the `streams` request holding that stream
    times out, and the streams then run one by one, the hang reported by its own."""
    from scrubcheck.adapters.drive import run_stream
    from scrubcheck.adapters.peer import PeerAdapter
    from scrubcheck.model import Context

    peer = Path(__file__).parent / "data" / "peers" / "misbehaving" / "peer.toml"
    adapter = PeerAdapter(f"peer:{peer}")
    try:
        streams = [("a", "b"), ("HANG",), ("c",)]
        adapter.prefetch(Context(), streams)
        assert not adapter.ahead  # the request failed: nothing kept
        assert run_stream(adapter, Context(), ("a", "b")).output == "ab"
        hung = run_stream(adapter, Context(), ("HANG",))
        assert hung.error is not None and "request `run` got no answer" in hung.error.summary
        adapter.prefetch(Context(), [("x",), ("y", "z")])
        assert len(adapter.ahead) == 2
        assert run_stream(adapter, Context(), ("y", "z")).output == "yz"
        assert len(adapter.ahead) == 1  # taken once
    finally:
        adapter.close()
