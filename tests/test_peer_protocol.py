"""The peer protocol end to end, against in-repo peer programs (no peer package needed).

The misbehaving test peer crashes, hangs, raises, returns bytes or prints to
stdout when a delta says so; the harness must turn each into the right trace
and keep going. The minimal example from docs/ must work as documented.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import jsonschema
import pytest

from scrubcheck.adapters import load_adapter
from scrubcheck.adapters.drive import drive, run_stream
from scrubcheck.adapters.peer import PeerAdapter
from scrubcheck.model import Context, Scenario
from scrubcheck.results import Outcome
from scrubcheck.runner import RunSettings, run_scenario

ROOT = Path(__file__).resolve().parent.parent
MISBEHAVING = f"peer:{ROOT / 'tests' / 'data' / 'peers' / 'misbehaving' / 'peer.toml'}"
EXAMPLE = f"peer:{ROOT / 'docs' / 'examples' / 'minimal-peer' / 'peer.toml'}"
SCHEMA = json.loads((ROOT / "suite" / "adapters" / "peer_protocol.schema.json").read_text())


@pytest.fixture(scope="module", autouse=True)
def cache(tmp_path_factory):
    """Peer stderr logs in a temporary folder, not the user's cache."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SCRUBCHECK_CACHE", str(tmp_path_factory.mktemp("cache")))
        yield


@pytest.fixture(scope="module")
def peer(cache) -> PeerAdapter:
    adapter = load_adapter(MISBEHAVING)
    yield adapter
    adapter.close()


def test_whole_stream_op_equals_per_delta_ops(peer):
    deltas = ("Hello <think>", "HOLD", "world", "BYTES", "")
    batched = run_stream(peer, Context(), deltas)
    session = peer.open(Context())
    per_delta = [session.feed(d) for d in deltas] + [session.flush()]
    assert [str(v) for v in per_delta] == batched.returns
    assert batched.returns == ["Hello ", "", "world", "bytes!", "", "HOLD"]


def test_non_str_return_is_recorded_with_its_type(peer):
    trace = run_stream(peer, Context(), ["a", "BYTES"])
    assert trace.ok
    assert [(b.step, b.type_name, b.shown) for b in trace.bad_returns] == [
        (1, "bytes", "b'bytes!'")]


def test_exception_in_the_peer_names_the_call_and_step(peer):
    trace = run_stream(peer, Context(), ["fine", "RAISE", "never fed"])
    assert trace.error is not None
    assert (trace.error.call, trace.error.step) == ("feed", 1)
    assert trace.error.summary.startswith("ValueError: told to raise")
    assert trace.returns == ["fine"]


def test_crash_restarts_the_peer_and_keeps_its_stderr(peer):
    trace = run_stream(peer, Context(), ["CRASH"])
    assert trace.error is not None and not trace.ok
    assert "died" in trace.error.summary and "exit code 3" in trace.error.summary
    assert "about to crash on purpose" in trace.error.summary
    again = run_stream(peer, Context(), ["still", " alive"])
    assert again.ok and again.output == "still alive"


def test_hang_times_out_and_the_next_stream_runs(peer):
    started = time.monotonic()
    trace = run_stream(peer, Context(), ["HANG"])
    assert time.monotonic() - started < 10  # the manifest's timeout is 3 s
    assert trace.error is not None
    assert "request `run` got no answer within 3 s (the peer's timeout_s)" in trace.error.summary
    assert run_stream(peer, Context(), ["next"]).output == "next"


def test_printing_to_stdout_does_not_break_the_protocol(peer):
    trace = run_stream(peer, Context(), ["SHOUT", "!"])
    assert trace.ok and trace.output == "shouted!"


def test_context_reaches_the_peer_and_undeclared_context_is_unsupported(peer):
    assert run_stream(peer, Context(starts_in_reasoning=True), ["PREFILL"]).output == "True"
    assert peer.unsupported_reason(Context(starts_in_reasoning=True)) is None
    reason = peer.unsupported_reason(Context(inline_answer=True))
    assert reason and "inline_answer" in reason and "manifest" in reason
    assert peer.unsupported_reason(Context(features=("bracket",))) is None
    assert "kimi" in peer.unsupported_reason(Context(features=("kimi",)))


def test_one_object_serves_two_streams_for_the_reuse_check(peer):
    session = peer.open(Context())
    first = drive(session, ["HOLD"])
    second = drive(session, ["x"])
    assert first.output == "HOLD" and second.output == "x"


def test_a_crash_makes_the_scenario_an_error_with_the_stderr_tail(peer):
    scenario = Scenario(id="crashy", area="test", rules=("R-ROBUST-1",), description="",
                        deltas=("CRASH",), reasoning=(), visible="x")
    result = run_scenario(peer, scenario, RunSettings(random_count=0), only="whole")
    assert result.outcome is Outcome.ERROR
    assert "about to crash on purpose" in (result.reason or "")


def test_the_linear_time_op_times_the_peer_itself(peer):
    seconds, abandoned = peer.open(Context()).time_stream("abc" * 1000, 1, None)
    assert seconds >= 0 and abandoned is False


def test_the_minimal_example_peer_works_and_is_naive():
    adapter = load_adapter(EXAMPLE)
    try:
        assert adapter.kind == "batch"
        assert run_stream(adapter, Context(), ["a<think>b", "</think>c"]).output == "ac"
        leaked = run_stream(adapter, Context(), ["a<think>unclosed"]).output
        assert leaked == "a<think>unclosed"  # the regular expression needs a close
    finally:
        adapter.close()


def _exchange(adapter: PeerAdapter, request: dict) -> dict:
    return adapter.process.request(request, 10)


def test_requests_and_responses_follow_the_shipped_schema(peer):
    context = Context().as_kwargs() | {"features": []}
    requests = [
        {"op": "hello"},
        {"op": "start", "stream": "x1", "context": context},
        {"op": "feed", "stream": "x1", "delta": "BYTES", "step": 0},
        {"op": "flush", "stream": "x1"},
        {"op": "run", "context": context, "runs": [{"deltas": ["a", "RAISE"]}]},
        {"op": "time", "context": context, "text": "abc", "size": 1, "budget": None},
        {"op": "close", "stream": "x1"},
    ]
    for number, request in enumerate(requests, 1):
        jsonschema.validate({**request, "id": number}, SCHEMA)
        jsonschema.validate(_exchange(peer, request), SCHEMA)


def test_a_bad_request_is_answered_not_fatal(peer):
    from scrubcheck.peers.process import PeerFailure

    with pytest.raises(PeerFailure, match="unknown op"):
        _exchange(peer, {"op": "dance"})
    assert run_stream(peer, Context(), ["ok"]).output == "ok"
