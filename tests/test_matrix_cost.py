"""What makes the full matrix cheaper changes no verdict: a batch implementation runs
each distinct joined text once per scenario, and a peer gets many streams per request."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

import scrubcheck.runner.joined as joined
from scrubcheck.adapters import load_adapter
from scrubcheck.checks import Trace
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
