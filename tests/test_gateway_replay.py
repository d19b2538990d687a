"""`gateway serve` through the real openai client over loopback HTTP.

The round trip is the issue's acceptance test: `gateway record` against the
replay server gives back every corpus scenario's deltas and finish_reason
exactly, and every shipped capture's chunks with both reasoning field names;
none is skipped. The openai client's parsing of each chunk is the floor (about
0.2 ms of CPU), so the streams are dealt to `scrubcheck gateway record`
processes that run at once, and the three generated streams of 40,000 to
65,000 chunks (most of a minute) have a test of their own, marked slow.
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import time
from pathlib import Path

import httpx
import openai
import pytest

from scrubcheck.cli import main
from scrubcheck.gateway.capture import Capture, Chunk, read_captures
from scrubcheck.gateway.recorder import Recorder
from scrubcheck.gateway.replay import Catalog, scenario_chunks
from scrubcheck.gateway.server import ReplayServer, running

PROMPT = [{"role": "user", "content": "hi"}]
SAMPLES = Path(__file__).resolve().parents[1] / "suite" / "gateway" / "samples"
#: `gateway record` processes recording at once in the round trip.
RECORDERS = 2
#: Scenarios of more chunks than this are round-tripped by a test of their own.
LONG = 12_000
#: What one request costs the client, in chunks' worth (for dealing out the work).
REQUEST_COST = 25


@pytest.fixture(scope="module")
def server(corpus):
    native = Capture(name="native-sample", chunks=[
        Chunk(role="assistant", reasoning_content="Thinking about "),
        Chunk(reasoning="it."),
        Chunk(content="Answer", reasoning=""),
        Chunk(content="", finish_reason="length")])
    with running(ReplayServer(Catalog(corpus.scenarios, [native, *samples()]))) as srv:
        yield srv


def samples() -> list[Capture]:
    return [c for path in sorted(SAMPLES.glob("*.json")) for c in read_captures(path)]


def fields(chunks: list[Chunk] | tuple[Chunk, ...]) -> list[tuple]:
    """Everything a chunk carries but its arrival time."""
    return [(c.content, c.reasoning_content, c.reasoning, c.finish_reason, c.role,
             c.tool_calls) for c in chunks]


def first_difference(got: list, want: list) -> str | None:
    """Where two long lists first differ, briefly (pytest's own diff of 65,000 items
    would take minutes), or None when they are equal."""
    if got == want:
        return None
    for index, (a, b) in enumerate(zip(got, want, strict=False)):
        if a != b:
            return f"item {index}: got {a!r}, want {b!r}"
    return f"got {len(got)} items, want {len(want)}"


def deal(work: list[tuple[str, int]], parts: int) -> list[list[str]]:
    """Models dealt to `parts` recorders with about equal work each, biggest first."""
    shares: list[list[str]] = [[] for _ in range(parts)]
    loads = [0] * parts
    for model, cost in sorted(work, key=lambda item: -item[1]):
        least = loads.index(min(loads))
        shares[least].append(model)
        loads[least] += cost
    return [share for share in shares if share]


def record_all(url: str, work: list[tuple[str, int]], recorders: int,
               tmp_path: Path) -> tuple[list[tuple[str, Capture]], float, tuple[float, float]]:
    """Record every model with `recorders` `scrubcheck gateway record` processes at once;
    each model with its capture, the wall time, and the CPU time of the recorders and of
    this process (the replay server's threads)."""
    started, cpu = time.monotonic(), _cpu()
    running_ = []
    for number, share in enumerate(deal(work, recorders)):
        out, log = tmp_path / f"share-{number}.capture.json", tmp_path / f"share-{number}.log"
        argv = [sys.executable, "-m", "scrubcheck.cli", "gateway", "record",
                "--base-url", url, "--out", str(out), "--timeout", "300"]
        for model in share:
            argv += ["--model", model]
        with log.open("w") as sink:
            running_.append((share, out, log, subprocess.Popen(
                argv, stdout=sink, stderr=subprocess.STDOUT)))
    try:
        for _, _, _, process in running_:
            process.wait(timeout=1200)
    finally:
        for _, _, _, process in running_:
            if process.poll() is None:  # a hung recorder must not outlive the test
                process.kill()
                process.wait()
    elapsed = time.monotonic() - started
    used = _cpu()
    recorded = []
    for share, out, log, process in running_:
        assert process.returncode == 0, log.read_text()[-3000:]
        captures = read_captures(out)
        assert len(captures) == len(share)
        recorded.extend(zip(share, captures, strict=True))
    return recorded, elapsed, (used[0] - cpu[0], used[1] - cpu[1])


def _cpu() -> tuple[float, float]:
    """CPU seconds used so far by finished child processes, and by this one."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    own = resource.getrusage(resource.RUSAGE_SELF)
    return children.ru_utime + children.ru_stime, own.ru_utime + own.ru_stime


def assert_scenario_round_trip(scenario, capture: Capture) -> None:
    """The recorded stream is the scenario exactly: every delta, the finish_reason, no
    structured reasoning, each chunk's fields, the announced context."""
    assert capture.error is None, (scenario.id, capture.error)
    assert capture.done, scenario.id
    assert capture.response["scenario"] == scenario.id
    difference = first_difference(capture.content_deltas, list(scenario.deltas))
    assert difference is None, (scenario.id, difference)
    assert capture.finish_reason == scenario.context.finish_reason, scenario.id
    assert capture.reasoning_fields == [], scenario.id  # nothing structured was sent
    difference = first_difference(fields(capture.chunks), fields(scenario_chunks(scenario)))
    assert difference is None, (scenario.id, difference)
    assert capture.context_header == {
        "starts_in_reasoning": scenario.context.starts_in_reasoning,
        "inline_answer": scenario.context.inline_answer,
        "finish_reason": scenario.context.finish_reason,
        "features": list(scenario.context.features),
        "may_skip_reasoning": scenario.context.may_skip_reasoning,
        "delimiters": [d.as_dict() for d in scenario.context.delimiters]}, scenario.id


def assert_capture_round_trip(model: str, want: Capture, capture: Capture) -> None:
    """A replayed capture comes back chunk for chunk, both reasoning field names kept."""
    assert capture.error is None and capture.done, (model, capture.error)
    difference = first_difference(fields(capture.chunks), fields(want.chunks))
    assert difference is None, (model, difference)
    assert capture.reasoning_fields == want.reasoning_fields, model
    assert capture.reasoning_deltas == want.reasoning_deltas, model
    assert capture.finish_reason == want.finish_reason, model


def long_streams(corpus) -> list:
    return [s for s in corpus.scenarios if len(s.deltas) > LONG]


def test_record_round_trips_every_corpus_scenario(corpus, server, tmp_path, capsys):
    """Every scenario of up to LONG chunks and every shipped capture, through `scrubcheck
    gateway record` processes (the openai client) against the replay server on loopback;
    the longer ones are the next test's."""
    scenarios = {s.id: s for s in corpus.scenarios if len(s.deltas) <= LONG}
    captures = {f"capture:{c.name}": c for c in samples()}
    work = [(model, len(s.deltas) + REQUEST_COST) for model, s in scenarios.items()]
    work += [(model, len(c.chunks) + REQUEST_COST) for model, c in captures.items()]
    recorded, elapsed, cpu = record_all(server.url, work, RECORDERS, tmp_path)
    for model, capture in recorded:
        if model in captures:
            assert_capture_round_trip(model, captures[model], capture)
        else:
            assert_scenario_round_trip(scenarios[model], capture)
    assert sorted(model for model, _ in recorded) == sorted([*scenarios, *captures])
    assert len(scenarios) + len(long_streams(corpus)) == len(corpus.scenarios)
    with capsys.disabled():
        print(f"\n  round trip: {len(scenarios)} scenarios and {len(captures)} captures, "
              f"{sum(len(c.chunks) for _, c in recorded)} chunks, {RECORDERS} recorders, in "
              f"{elapsed:.1f} s (CPU: recorders {cpu[0]:.1f} s, server {cpu[1]:.1f} s)")


@pytest.mark.slow
def test_record_round_trips_the_longest_streams(corpus, server, tmp_path, capsys):
    """The scenarios of more than LONG chunks (the generated long family, 40,000 to
    65,000 chunks each), exactly as the previous test: the openai client parses ~5,000
    chunks a second per core at best, so they cost most of a minute (marked slow). One
    recorder each, so they share the cores."""
    scenarios = {s.id: s for s in long_streams(corpus)}
    assert scenarios  # the corpus has long streams; this test must not pass vacuously
    named = ", ".join(f"{s.id} ({len(s.deltas)} chunks)" for s in scenarios.values())
    work = [(model, len(s.deltas)) for model, s in scenarios.items()]
    recorded, elapsed, cpu = record_all(server.url, work, len(work), tmp_path)
    for model, capture in recorded:
        assert_scenario_round_trip(scenarios[model], capture)
    assert sorted(model for model, _ in recorded) == sorted(scenarios)
    with capsys.disabled():
        print(f"\n  round trip of the longest streams: {named}, {len(work)} recorders, in "
              f"{elapsed:.1f} s (CPU: recorders {cpu[0]:.1f} s, server {cpu[1]:.1f} s)")


def test_capture_replay_keeps_both_reasoning_fields(server):
    capture = Recorder(server.url).record("capture:native-sample", PROMPT, name="again")
    assert [(c.content, c.reasoning_content, c.reasoning, c.finish_reason)
            for c in capture.chunks] == [
        (None, "Thinking about ", None, None), (None, None, "it.", None),
        ("Answer", None, "", None), ("", None, None, "length")]
    assert capture.structured_reasoning == "Thinking about it."
    assert capture.reasoning_fields == ["reasoning_content", "reasoning"]


def test_non_streaming_returns_the_joined_completion(corpus, server):
    scenario = next(s for s in corpus.scenarios if s.context.finish_reason == "length")
    client = openai.OpenAI(base_url=server.url, api_key="unused", max_retries=0)
    completion = client.chat.completions.create(model=scenario.id, messages=PROMPT)
    assert completion.object == "chat.completion"
    assert completion.choices[0].message.content == scenario.text
    assert completion.choices[0].finish_reason == "length"


def test_models_lists_scenarios_areas_and_captures(corpus, server):
    client = openai.OpenAI(base_url=server.url, api_key="unused", max_retries=0)
    ids = {m.id for m in client.models.list()}
    assert {s.id for s in corpus.scenarios} <= ids
    assert {"area:blocks", "area:generated", "capture:native-sample"} <= ids
    assert client.models.retrieve("area:blocks").id == "area:blocks"


def test_area_cycles_through_its_scenarios_in_order(corpus, server):
    area = [s for s in corpus.scenarios if s.area == "whitespace"]
    with Recorder(server.url) as recorder:
        seen = [recorder.record("area:whitespace", PROMPT, name="w").response["scenario"]
                for _ in range(len(area) + 1)]
    assert seen == [s.id for s in area] + [area[0].id]


def test_scenario_field_in_the_body_overrides_the_model(corpus, server):
    scenario = corpus.scenarios[3]
    capture = Recorder(server.url).record("any-fixed-model-name", PROMPT, name="x",
                                          extra_body={"scenario": scenario.id})
    assert capture.content_deltas == list(scenario.deltas)
    assert capture.response["model"] == "any-fixed-model-name"


def test_unknown_model_is_an_openai_404(server):
    client = openai.OpenAI(base_url=server.url, api_key="unused", max_retries=0)
    with pytest.raises(openai.NotFoundError) as caught:
        client.chat.completions.create(model="no-such-scenario", messages=PROMPT, stream=True)
    assert caught.value.code == "model_not_found"
    assert "no-such-scenario" in caught.value.message
    capture = Recorder(server.url).record("no-such-scenario", PROMPT, name="x")
    assert capture.error.kind == "http" and capture.error.status == 404
    assert "does not exist" in capture.error.message


def test_bad_requests_get_openai_errors(server):
    base = server.url
    response = httpx.post(f"{base}/chat/completions", content=b"{not json")
    assert response.status_code == 400
    assert "not valid JSON" in response.json()["error"]["message"]
    response = httpx.post(f"{base}/chat/completions", json={"messages": []})
    assert response.status_code == 400 and response.json()["error"]["param"] == "model"
    response = httpx.get(f"{base}/completions")
    assert response.status_code == 404 and response.json()["error"]["code"] == "unknown_url"


def test_sse_framing_is_openai_s(corpus, server):
    scenario = next(s for s in corpus.scenarios if len(s.deltas) >= 3)
    with httpx.stream("POST", f"{server.url}/chat/completions",
                      json={"model": scenario.id, "stream": True,
                            "stream_options": {"include_usage": True}}) as response:
        assert response.headers["content-type"].startswith("text/event-stream")
        raw = response.read()
    events = raw.split(b"\n\n")
    assert events[-1] == b"" and events[-2] == b"data: [DONE]"
    datas = [json.loads(e[len(b"data: "):]) for e in events[:-2]]
    assert all(e.startswith(b"data: {") for e in events[:-2])
    assert datas[0]["choices"][0]["delta"]["role"] == "assistant"
    assert [d["choices"][0]["delta"].get("content") for d in datas[:-2]] == list(
        scenario.deltas)
    assert datas[-2]["choices"][0]["finish_reason"] == scenario.context.finish_reason
    assert datas[-1]["choices"] == [] and "usage" in datas[-1]


def raw_http_chunks(url: str, scenario_id: str) -> list[bytes]:
    """The HTTP/1.1 chunks of a streamed answer, as they are framed on the wire."""
    import socket
    from urllib.parse import urlsplit

    where = urlsplit(url)
    body = json.dumps({"model": scenario_id, "stream": True}).encode()
    with socket.create_connection((where.hostname, where.port)) as sock:
        sock.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
                     b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
        raw = b"".join(iter(lambda: sock.recv(1 << 16), b""))
    head, _, rest = raw.partition(b"\r\n\r\n")
    assert b"transfer-encoding: chunked" in head.lower()
    chunks = []
    while True:
        size, _, rest = rest.partition(b"\r\n")
        length = int(size, 16)
        if length == 0:
            return chunks
        chunks.append(rest[:length])
        assert rest[length:length + 2] == b"\r\n"
        rest = rest[length + 2:]


def test_events_go_out_in_large_writes_or_one_by_one_with_a_delay(corpus, server):
    """Without a delay, whole events are gathered into large HTTP chunks (one write each);
    with --chunk-delay, each event is an HTTP chunk of its own, sent when due."""
    from scrubcheck.gateway.server import WRITE_BUFFER

    scenario = next(s for s in corpus.scenarios if 5_000 < len(s.deltas) < 20_000)
    chunks = raw_http_chunks(server.url, scenario.id)
    body = b"".join(chunks)
    assert all(c.startswith(b"data: ") and c.endswith(b"\n\n") for c in chunks)
    assert len(chunks) <= len(body) // WRITE_BUFFER + 1
    events = body.split(b"\n\n")[:-1]
    assert [json.loads(e[6:])["choices"][0]["delta"].get("content")
            for e in events[:-2]] == list(scenario.deltas)
    small = next(s for s in corpus.scenarios if len(s.deltas) == 4)
    with running(ReplayServer(Catalog([small]), chunk_delay=0.001)) as slow:
        chunks = raw_http_chunks(slow.url, small.id)
    assert len(chunks) == 4 + 2  # four deltas, the finish chunk, [DONE]
    assert all(c.startswith(b"data: ") and c.count(b"\n\n") == 1 for c in chunks)


def test_serve_binds_loopback_by_default():
    from scrubcheck.cli import build_parser

    args = build_parser().parse_args(["gateway", "serve"])
    assert args.host == "127.0.0.1"


def test_serve_command_end_to_end(tmp_path, corpus):
    """`scrubcheck gateway serve` as a process, recorded by `scrubcheck gateway record`."""
    import subprocess
    import sys

    from scrubcheck.corpus import default_corpus_dir

    scenario = next(s for s in corpus.scenarios if s.context.starts_in_reasoning)
    area_file = default_corpus_dir() / f"{scenario.area}.yaml"
    process = subprocess.Popen(
        [sys.executable, "-m", "scrubcheck.cli", "gateway", "serve", "--port", "0",
         "--corpus", str(area_file)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        banner = process.stdout.readline()
        assert "replaying" in banner and " at http://127.0.0.1:" in banner, (
            banner, process.stderr.read() if process.poll() is not None else "")
        url = banner.rsplit(" at ", 1)[1].strip()
        out = tmp_path / "one.capture.json"
        assert main(["gateway", "record", "--base-url", url, "--model", scenario.id,
                     "--out", str(out)]) == 0
    finally:
        process.terminate()
        process.wait(timeout=10)
    (capture,) = read_captures(out)
    assert capture.content_deltas == list(scenario.deltas)
    assert capture.context_header["starts_in_reasoning"] is True


def test_announced_context_reproduces_every_expected_output(corpus):
    """`gateway check` judges by the reference under the announced context; on the
    hand-written areas that must be exactly the corpus's expected output."""
    from scrubcheck.checks import ws_compare
    from scrubcheck.gateway.classify import analyse
    from scrubcheck.gateway.replay import scenario_chunks
    from scrubcheck.gateway.wire import context_header

    checked = 0
    for scenario in corpus.scenarios:
        if scenario.area == "generated" or scenario.visible is None:
            continue
        capture = Capture(name=scenario.id, chunks=list(scenario_chunks(scenario)),
                          response={"scrubcheck_context": json.loads(
                              context_header(scenario.context))})
        analysis = analyse(capture)
        assert analysis.context == scenario.context, scenario.id
        assert ws_compare(scenario.visible, analysis.answer, list(analysis.cuts)) is None, \
            scenario.id
        checked += 1
    assert checked > 300


def test_chunks_arrive_one_by_one_in_real_time(corpus):
    """With --chunk-delay each chunk leaves when written: arrival times are spread out,
    so an app under test sees a live stream, not one buffered body."""
    scenario = next(s for s in corpus.scenarios if len(s.deltas) == 4)
    with running(ReplayServer(Catalog([scenario]), chunk_delay=0.05)) as srv:
        capture = Recorder(srv.url).record(scenario.id, PROMPT, name="slow")
    times = [c.t for c in capture.chunks]
    assert len(times) == 5  # four deltas and the finish chunk
    gaps = [b - a for a, b in zip(times, times[1:], strict=False)]
    # the first parse may lag (the client's lazy set-up), so judge the span and each gap
    assert times[-1] - times[0] > 0.15 and min(gaps) > 0.01, gaps
