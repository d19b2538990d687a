"""`gateway audit` against gateways whose behaviour is known: the replay server itself, a
correct pass-through, a correct splitter, and one broken gateway per failure the issue
names (tests/data/gateways/broken_gateways.py). Each broken one must get its verdict and
the correct ones must not, so the audit is shown able to fail. Every server a test starts
is stopped by it (context managers), also when the test fails.
"""

from __future__ import annotations

import importlib.util
import json
import socket
import sys
import time
import xml.etree.ElementTree as ET
from collections import Counter
from contextlib import contextmanager
from pathlib import Path

import pytest

from scrubcheck.cli import main
from scrubcheck.gateway.audit import AuditOptions, audit, replay_upstream
from scrubcheck.gateway.audit_report import (
    file_names,
    render_html,
    render_markdown,
    report_dict,
    validate_audit,
    write_audit_reports,
)
from scrubcheck.gateway.capture import Capture, read_captures
from scrubcheck.gateway.compare import expectation, judge, sent
from scrubcheck.gateway.replay import Catalog
from scrubcheck.gateway.route import Route, RouteError
from scrubcheck.gateway.server import ReplayServer, running
from scrubcheck.gateway.upstream import Shape, native_chunks, parse_selector, selector
from scrubcheck.gateway.verdicts import Action as A
from scrubcheck.gateway.verdicts import ClientOutcome as O

GATEWAYS_FILE = Path(__file__).parent / "data" / "gateways" / "broken_gateways.py"
_spec = importlib.util.spec_from_file_location("broken_gateways", GATEWAYS_FILE)
gw = importlib.util.module_from_spec(_spec)
sys.modules["broken_gateways"] = gw
_spec.loader.exec_module(gw)

#: A bounded selection that covers the shapes a gateway can break: closed blocks, an open
#: tag split across deltas, a pre-filled template, an unclosed block whose answer is
#: recovered (inline_answer), and streams cut by the length limit.
SPLIT_OPEN = "split-sglang-qwen3-hi-thi"
LENGTH_INLINE = "inline-finish-length-not-recovered"
SELECTION = ["blocks-two-blocks-answer-between", SPLIT_OPEN, "orphan-prefill-basic",
             "inline-minimax-recovered-basic", LENGTH_INLINE, "trunc-multiline-no-close"]
SECRET = "sk-audit-test-5f4e3d2c1b0a"


@pytest.fixture(scope="module")
def scenarios(corpus):
    by_id = {s.id: s for s in corpus.scenarios}
    missing = [i for i in SELECTION if i not in by_id]
    assert not missing, f"the test selection names scenarios the corpus lost: {missing}"
    return [by_id[i] for i in SELECTION]


@pytest.fixture(scope="module")
def upstream(corpus):
    with replay_upstream(corpus.scenarios) as server:
        yield server


@contextmanager
def gateway(behaviour, upstream):
    """A broken (or correct) gateway in front of `upstream`, stopped however the block ends."""
    with running(gw.Gateway(upstream.url, behaviour)) as server:
        yield server


def audit_through(behaviour, upstream, scenarios, **options):
    with gateway(behaviour, upstream) as server:
        return audit(server.url, scenarios, AuditOptions(**options), upstream=upstream)


def verdicts(result) -> dict[tuple[str, str], tuple[A, O, O]]:
    """(scenario, shape) -> (what the gateway did, raw client, scrubbing client)."""
    return {(r.scenario.id, r.shape.value): (r.action, r.raw, r.scrubbed)
            for r in result.results}


def actions(result) -> dict[tuple[str, str], A]:
    return {key: found[0] for key, found in verdicts(result).items()}


def pass_verdicts(result, mode: str) -> dict[tuple[str, str], tuple[A, O, O]]:
    return {(r.scenario.id, r.shape.value): next((p.action, p.raw, p.scrubbed)
                                                 for p in r.passes if p.mode == mode)
            for r in result.results}


def raw_when_passed_through(scenario, shape: str) -> O:
    """What a raw-content client of a pass-through shows: the inline reasoning (LEAK), or
    the empty tags of a scenario without reasoning (altered), or the answer (native)."""
    if shape == "native":
        return O.RIGHT
    return O.LEAK if has_reasoning(scenario) else (
        O.RIGHT if scenario.text == scenario.visible else O.ALTERED)


def has_reasoning(scenario) -> bool:
    return bool(sent(scenario, Shape.NATIVE).reasoning.strip())


# ------------------------------------------------------------ correct gateways
def test_the_replay_server_itself_is_passed_through_everywhere(corpus, upstream):
    """`gateway serve` used directly as the "gateway": content as sent, for a bounded
    selection of whole areas (the full corpus is the next test's, in full runs)."""
    chosen = [s for s in corpus.scenarios if s.area in ("blocks", "split-tags",
                                                         "orphan-prefill", "inline-answer")]
    with running(ReplayServer(Catalog(corpus.scenarios))) as server:
        result = audit(server.url, chosen, AuditOptions(shapes=(Shape.INLINE,)),
                       upstream=upstream)
    assert len(result.results) == len(chosen) > 100
    assert Counter(actions(result).values()) == {A.PASSED_THROUGH: len(chosen)}
    assert result.headline() == (len(chosen), len(chosen))  # every scrubbing client right
    raw = result.headline(client="raw")[0]
    assert raw == sum(1 for s in chosen if s.text == s.visible) < len(chosen)
    assert result.exit_code() == 1 and result.problem is None  # raw clients see reasoning


@pytest.mark.slow
def test_full_corpus_through_the_replay_server(corpus, upstream, capsys):
    """Every scenario of the corpus, in both shapes, streaming and not, through `gateway
    serve` as the gateway: passed-through everywhere, every client right. About two minutes
    of openai-client parsing on two busy cores (the longest streams have 65,000 chunks), so
    it is marked slow."""
    began = time.monotonic()
    with running(ReplayServer(Catalog(corpus.scenarios))) as server:
        result = audit(server.url, corpus.scenarios, AuditOptions(timeout=300),
                       upstream=upstream)
    wrong = [(r.scenario.id, r.action.value, r.passes[0].detail[:200])
             for r in result.results
             if r.action is not A.PASSED_THROUGH or r.scrubbed is not O.RIGHT
             or (r.shape is Shape.NATIVE and r.raw is not O.RIGHT)]
    assert not wrong, wrong[:10]
    assert len(result.results) == 2 * len(corpus.scenarios)
    with capsys.disabled():
        print(f"\n  full-corpus audit of gateway serve: {len(corpus.scenarios)} scenarios, "
              f"both shapes, streaming and not, in {time.monotonic() - began:.1f} s")


def test_a_correct_pass_through_is_passed_through_in_both_shapes(upstream, scenarios):
    result = audit_through(gw.Behaviour(), upstream, scenarios)
    for (ident, shape), found in verdicts(result).items():
        scenario = next(s for s in scenarios if s.id == ident)
        assert found == (A.PASSED_THROUGH, raw_when_passed_through(scenario, shape),
                         O.RIGHT), (ident, shape)
    assert result.headline() == (2 * len(scenarios), 2 * len(scenarios))
    assert result.exit_code() == 1  # a raw-content client shows the inline reasoning
    native = audit_through(gw.Behaviour(), upstream, scenarios, shapes=(Shape.NATIVE,))
    assert native.exit_code() == 0 and native.headline(client="raw") == native.headline()
    assert result.upstream_requests >= 4 * len(scenarios)  # both shapes, streaming and not
    prefill = next(r for r in result.results
                   if r.scenario.id == "orphan-prefill-basic" and r.shape is Shape.INLINE)
    assert prefill.needs == ["starts_in_reasoning=true (R-ORPHAN-2)"]
    assert "starts_in_reasoning=true (R-ORPHAN-2)" in result.needs_summary()


def test_a_correct_splitter_splits_inline_and_keeps_native(upstream, scenarios):
    result = audit_through(gw.Splitter(), upstream, scenarios)
    found = actions(result)
    for s in scenarios:
        assert found[(s.id, "inline")] is (A.SPLIT if has_reasoning(s) else A.PASSED_THROUGH), \
            (s.id, [p.detail for r in result.results if r.scenario.id == s.id
                    for p in r.passes])
        assert found[(s.id, "native")] is A.PASSED_THROUGH, s.id
    assert result.headline() == (2 * len(scenarios), 2 * len(scenarios))
    assert result.headline(client="raw") == result.headline()
    assert result.exit_code() == 0


# ------------------------------------------------------------- broken gateways
def test_merging_reasoning_into_content_is_a_leak_in_the_native_shape(upstream, scenarios):
    result = audit_through(gw.MergeReasoning(), upstream, scenarios)
    found = verdicts(result)
    for s in scenarios:
        assert found[(s.id, "inline")][0] is A.PASSED_THROUGH, s.id  # nothing to merge
        if has_reasoning(s):  # in <think> tags: a scrubbing client removes it, raw shows it
            assert found[(s.id, "native")] == (A.MERGED_WITH_TAGS, O.LEAK, O.RIGHT), s.id
    leak = next(r for r in result.results if r.action is A.MERGED_WITH_TAGS)
    assert all(p.raw is O.LEAK for p in leak.passes)  # streaming and not
    assert "reasoning field written into content" in leak.passes[0].detail
    assert leak.reproduce[0].startswith("scrubcheck gateway audit --gateway ")
    assert f"--id {leak.scenario.id}" in leak.reproduce[0]
    assert "--upstream native" in leak.reproduce[0]
    assert any(c.startswith("scrubcheck gateway record ") and f"{leak.scenario.id}:native" in c
               for c in leak.reproduce)
    assert any(c.startswith("curl ") and "what the upstream sent" in c for c in leak.reproduce)
    assert result.exit_code() == 1


def test_dropping_the_finish_chunk_changes_the_finish_and_loses_inline_answers(upstream,
                                                                              scenarios):
    """Without the finish chunk a client cannot recover an answer written inside an
    unclosed block (the inline-answer convention needs finish_reason stop): LOSS."""
    result = audit_through(gw.DropLastEvent(), upstream, scenarios)
    stream = pass_verdicts(result, "stream")
    for s in scenarios:
        for shape in ("inline", "native"):
            assert stream[(s.id, shape)][0] is A.FINISH_CHANGED, (s.id, shape)
    assert stream[("inline-minimax-recovered-basic", "inline")][2] is O.LOSS
    assert stream[("inline-minimax-recovered-basic", "native")][2] is O.RIGHT
    assert stream[("blocks-two-blocks-answer-between", "inline")][2] is O.RIGHT
    detail = result.results[0].passes[0].detail
    assert "finish_reason stop arrived as none" in detail
    assert pass_verdicts(result, "complete")[(scenarios[0].id, "inline")][0] is \
        A.PASSED_THROUGH
    assert result.exit_code() == 1


def test_dropping_the_last_content_chunk_is_a_loss(upstream, scenarios):
    result = audit_through(gw.DropLastContent(), upstream, scenarios)
    found = pass_verdicts(result, "stream")
    assert found[("blocks-two-blocks-answer-between", "native")] == (A.CUT, O.LOSS, O.LOSS)
    assert found[("orphan-prefill-basic", "inline")][::2] == (A.CUT, O.LOSS)
    assert found[("orphan-prefill-basic", "native")] == (A.CUT, O.LOSS, O.LOSS)
    assert result.exit_code() == 1


def test_moving_half_a_split_tag_to_the_structured_channel_leaks(upstream, scenarios):
    result = audit_through(gw.SplitTagHalf(), upstream, scenarios)
    found = verdicts(result)
    assert found[(SPLIT_OPEN, "inline")] == (A.SPLIT, O.LEAK, O.LEAK)
    audited = next(r for r in result.results
                   if r.scenario.id == SPLIT_OPEN and r.shape is Shape.INLINE)
    assert "shows reasoning" in audited.passes[0].scrubbed_detail
    # streams without a split open tag are untouched
    others = {k: v[0] for k, v in found.items() if k != (SPLIT_OPEN, "inline")}
    assert set(others.values()) == {A.PASSED_THROUGH}


def test_turning_length_into_stop_is_altered(upstream, scenarios):
    result = audit_through(gw.LengthToStop(), upstream, scenarios)
    found = actions(result)
    for s in scenarios:
        want = A.FINISH_CHANGED if s.context.finish_reason == "length" else A.PASSED_THROUGH
        assert found[(s.id, "inline")] is want and found[(s.id, "native")] is want, s.id
    audited = next(r for r in result.results
                   if r.scenario.id == LENGTH_INLINE and r.shape is Shape.INLINE)
    assert "finish_reason length arrived as stop" in audited.passes[0].detail
    # the client recovers the "answer" of an unfinished block: it shows reasoning
    assert audited.scrubbed is O.LEAK and "shows reasoning" in audited.passes[0].scrubbed_detail
    assert result.exit_code() == 1


def test_a_hanging_gateway_is_an_error_and_bounded(upstream, scenarios):
    began = time.monotonic()
    result = audit_through(gw.Hang(), upstream, scenarios[:2], timeout=1.0)
    assert time.monotonic() - began < 60
    for r in result.results:
        assert (r.action, r.raw, r.scrubbed) == (A.ERROR, O.ERROR, O.ERROR)
        assert all(p.capture.error.kind == "timeout" for p in r.passes)
    assert "no data within 1 s" in result.results[0].passes[0].detail
    assert result.exit_code() == 1  # the stream started: the gateway was reached


def test_http_500_on_some_scenarios_is_an_error_for_those_only(upstream, scenarios):
    result = audit_through(gw.Fail500("orphan"), upstream, scenarios)
    for (ident, _), action in actions(result).items():
        assert action is (A.ERROR if "orphan" in ident else A.PASSED_THROUGH), ident
    failed = next(r for r in result.results if r.action is A.ERROR)
    assert "HTTP 500" in failed.passes[0].detail
    assert "connection pool exhausted" in failed.passes[0].detail
    assert result.exit_code() == 1


def test_invalid_json_in_a_chunk_is_an_error_per_scenario(upstream, scenarios):
    result = audit_through(gw.BadJsonChunk(), upstream, scenarios[:2], non_streaming=False)
    for r in result.results:
        assert r.action is A.ERROR and r.scrubbed is O.ERROR
        assert r.passes[0].capture.error.kind == "malformed"
        assert "malformed JSON" in r.passes[0].detail
    assert result.exit_code() == 1


def test_a_json_body_for_a_stream_is_an_error_naming_the_content_type(upstream, scenarios):
    result = audit_through(gw.JsonForStream(), upstream, scenarios[:2])
    for r in result.results:
        stream, complete = r.passes
        assert stream.action is A.ERROR and stream.scrubbed is O.ERROR
        assert "application/json" in stream.detail and "text/event-stream" in stream.detail
        assert complete.action is A.PASSED_THROUGH
    assert result.exit_code() == 1


# ---------------------------------------------------------------- nothing runs
def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def closed(port: int) -> bool:
    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) != 0


def cli_audit(capsys, gateway_url: str, *extra: str) -> tuple[int, str, str, int]:
    """`scrubcheck gateway audit` in this process; (exit code, stdout, stderr, the port
    of the upstream it started)."""
    port = free_port()
    code = main(["gateway", "audit", "--gateway", gateway_url, "--upstream-port", str(port),
                 "--no-progress", *[a for i in SELECTION[:2] for a in ("--id", i)], *extra])
    out, err = capsys.readouterr()
    return code, out, err, port


def test_an_unreachable_gateway_exits_2_and_stops_the_upstream(capsys):
    code, out, err, port = cli_audit(capsys, f"http://127.0.0.1:{free_port()}/v1",
                                     "--timeout", "5")
    assert code == 2, (out, err)
    assert "cannot reach the gateway at http://127.0.0.1:" in out
    assert "result: NOTHING RAN (exit 2)" in out
    assert closed(port)  # the replay server it started is gone


def test_a_wrong_key_exits_2_and_the_key_is_written_nowhere(upstream, capsys, tmp_path,
                                                            monkeypatch):
    monkeypatch.setenv("AUDIT_TEST_KEY", SECRET[::-1])
    with gateway(gw.CheckKey(SECRET), upstream) as server:
        code, out, err, port = cli_audit(capsys, server.url, "--key-env", "AUDIT_TEST_KEY",
                                         "--out", str(tmp_path / "wrong"))
        assert code == 2, (out, err)
        assert "refuses the request with the key from AUDIT_TEST_KEY" in out
        assert "HTTP 401" in out and "[redacted]" in out
        monkeypatch.setenv("AUDIT_TEST_KEY", SECRET)
        code, out2, err2, _ = cli_audit(capsys, server.url, "--key-env", "AUDIT_TEST_KEY",
                                        "--out", str(tmp_path / "right"))
        assert code == 1 and "result: FAIL" in out2, (out2, err2)  # it ran: raw clients leak
    assert closed(port)
    written = "".join(p.read_text("utf-8") for p in tmp_path.rglob("*") if p.is_file())
    assert "AUDIT_TEST_KEY" in written  # the variable is named in the commands …
    for text in (out, err, out2, err2, written):
        assert SECRET not in text and SECRET[::-1] not in text  # … the key never


def test_the_environments_openai_key_never_reaches_a_test_gateway(upstream, capsys,
                                                                   tmp_path, monkeypatch):
    """Unasked, OPENAI_API_KEY goes only to OpenAI's own API: a loopback gateway that
    wants exactly that key is sent the placeholder (and refuses it); named with
    --key-env, the same key is sent and the audit runs."""
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    with gateway(gw.CheckKey(SECRET), upstream) as server:
        code, out, err, _ = cli_audit(capsys, server.url, "--out", str(tmp_path / "unasked"))
        assert code == 2, (out, err)
        assert "Incorrect API key provided: scrubcheck-no-key" in out
        assert "OPENAI_API_KEY is set but is not sent to" in err
        code, out2, err2, _ = cli_audit(capsys, server.url, "--key-env", "OPENAI_API_KEY",
                                        "--out", str(tmp_path / "asked"))
        assert code == 1 and "result: FAIL" in out2, (out2, err2)  # it ran: raw clients leak
    written = "".join(p.read_text("utf-8") for p in tmp_path.rglob("*") if p.is_file())
    for text in (out, err, out2, err2, written):
        assert SECRET not in text


def test_an_upstream_the_user_runs_is_checked_and_used(upstream, capsys, tmp_path):
    """--upstream-url: the audit starts no replay server; one that is not a replay server
    (or lacks the scenarios) is refused before anything is sent through the gateway."""
    with gateway(gw.Behaviour(), upstream) as server:
        code, out, err, port = cli_audit(capsys, server.url, "--upstream-url", upstream.url,
                                         "--upstream", "native", "--out", str(tmp_path))
        assert code == 0, (out, err)
        assert closed(port)  # nothing was started on --upstream-port
        data = json.loads((tmp_path / "audit.json").read_text("utf-8"))
        assert data["upstream"] == upstream.url and data["upstream_requests"] is None
        code, out, err, _ = cli_audit(capsys, server.url, "--upstream-url",
                                      f"http://127.0.0.1:{free_port()}/v1")
    assert code == 2 and "does not answer GET /models" in err


def test_a_gateway_answering_html_exits_2_naming_the_content_type(upstream, capsys):
    with gateway(gw.HtmlPage(), upstream) as server:
        code, out, err, _ = cli_audit(capsys, server.url)
    assert code == 2, (out, err)
    assert "nothing could run" in out and "text/html" in out and "Sign in" in out


def test_ctrl_c_keeps_what_finished_and_stops_the_servers(corpus, scenarios):
    def interrupt(_):
        raise KeyboardInterrupt

    with replay_upstream(corpus.scenarios) as server:
        port = server.server_address[1]
        with gateway(gw.Behaviour(), server) as proxy:
            result = audit(proxy.url, scenarios, AuditOptions(jobs=1), upstream=server,
                           progress=interrupt)
    assert result.interrupted and result.exit_code() == 130
    assert len(result.results) >= 1 and result.not_run
    assert len(result.results) + len(result.not_run) == 2 * len(scenarios)
    assert closed(port)
    assert "## Not run" in render_markdown(result)


# --------------------------------------------------------------------- reports
def test_reports_are_complete_valid_and_keyless(upstream, scenarios, tmp_path):
    result = audit_through(gw.MergeReasoning(), upstream, scenarios, key_env="SOME_KEY_VAR")
    paths = write_audit_reports(result, tmp_path, stem="merge")
    names = file_names("merge")
    assert sorted(p.name for p in paths) == sorted(names.values())
    data = json.loads((tmp_path / names["json"]).read_text("utf-8"))
    validate_audit(data)
    assert data == json.loads(json.dumps(report_dict(result)))
    assert data["counts"]["raw"]["LEAK"] == result.counts()["raw"]["LEAK"] > 0
    assert data["actions"]["merged-with-tags"] == result.actions()["merged-with-tags"] > 0
    assert data["headline"]["scrubbed"]["total"] == 2 * len(scenarios)
    assert set(data["areas"]) == {s.area for s in scenarios}
    leak = next(r for r in data["results"] if r["action"] == "merged-with-tags")
    assert leak["clients"] == {"raw": "LEAK", "scrubbed": "right"}
    assert leak["reproduce"] and "<think>" in leak["passes"][0]["received"]["content"]
    md = (tmp_path / names["md"]).read_text("utf-8")
    assert result.headline_text() in md and "## By area" in md
    assert "### merged-with-tags · raw LEAK · scrubbed right `" in md
    assert "## What the gateway did" in md and "## Timing" in md and "p99" in md
    html = (tmp_path / names["html"]).read_text("utf-8")
    assert "Content-Security-Policy" in html and "<script" not in html
    assert "&lt;think&gt;" in html and "<think>" not in html
    root = ET.parse(tmp_path / names["junit"]).getroot()
    assert int(root.get("tests")) == 2 * len(scenarios)
    assert int(root.get("failures")) == len(result.failures()) > 0
    captures = read_captures(tmp_path / names["captures"])
    assert captures and all(c.request["base_url"].startswith("http://127.0.0.1:")
                            for c in captures)
    assert render_html(result).count("<h3>") == len(result.failures())
    # the committed audits (scrubcheck regenerate) keep three forms and no captures, and
    # writing them so removes a capture an earlier run left
    committed = tmp_path / "committed"
    committed.mkdir()
    (committed / names["captures"]).write_text("[]", encoding="utf-8")
    kept = write_audit_reports(result, committed, stem="merge", kinds=("md", "html", "json"),
                               captures=False)
    assert sorted(p.name for p in committed.iterdir()) == sorted(p.name for p in kept) \
        == sorted(names[k] for k in ("md", "html", "json"))


def test_the_json_schema_rejects_an_unknown_verdict(upstream, scenarios):
    import jsonschema

    result = audit_through(gw.Behaviour(), upstream, scenarios[:1], shapes=(Shape.INLINE,))
    data = json.loads(json.dumps(report_dict(result)))
    validate_audit(data)
    data["results"][0]["action"] = "fine"
    with pytest.raises(jsonschema.ValidationError):
        validate_audit(data)
    data["results"][0]["action"] = "passed-through"
    validate_audit(data)
    data["results"][0]["clients"]["raw"] = "ok"
    with pytest.raises(jsonschema.ValidationError):
        validate_audit(data)


# ---------------------------------------------------------- routes and shapes
def test_route_templates_name_the_scenario_in_the_model_a_field_or_a_header(upstream,
                                                                           scenarios):
    """Through the replay server as the gateway, each routing style reaches the scenario
    (a provider prefix in the model name is ignored upstream)."""
    with running(ReplayServer(upstream.catalog)) as server:
        for template in ("model={id}", "model=openai/{id}", "model=fixed body.scenario={id}",
                         "model=fixed header:x-scrubcheck-scenario={id}"):
            result = audit(server.url, scenarios[:2],
                           AuditOptions(route=Route.parse(template)), upstream=upstream)
            assert set(actions(result).values()) == {A.PASSED_THROUGH}, template


def test_route_parsing():
    route = Route.parse("model=scrubcheck/{id} body.meta.scenario={id} header:x-s={id}")
    request = route.request("abc:native")
    assert request.model == "scrubcheck/abc:native"
    assert request.extra_body == {"meta": {"scenario": "abc:native"}}
    assert request.headers == {"x-s": "abc:native"}
    assert Route.parse("body.scenario={id}").request("x").model == "x"
    for bad, words in [("", "empty"), ("model=fixed", "no {id}"),
                       ("model={scenario}", "unknown placeholder"),
                       ("header:Authorization={id}", "API keys"),
                       ("body.stream={id}", "sets stream"), ("nonsense", "TARGET=VALUE"),
                       ("query.x={id}", "target must be"), ("model={id} model=x", "twice"),
                       ("body.a={id} body.a.b=x", "already set")]:
        with pytest.raises(RouteError, match=words):
            Route.parse(bad)


def test_selectors_round_trip():
    assert selector("a-b", Shape.INLINE) == "a-b"
    assert selector("a-b", Shape.NATIVE) == "a-b:native"
    assert parse_selector("a-b:native") == ("a-b", Shape.NATIVE)
    assert parse_selector("area:blocks") == ("area:blocks", Shape.INLINE)
    assert parse_selector("area:blocks:native") == ("area:blocks", Shape.NATIVE)


def test_native_shape_is_the_answer_plus_the_removed_reasoning(corpus):
    """For every scenario of the hand-written areas: the reasoning channel carries each of
    the scenario's reasoning strings, content never at the same time, the finish reason is
    the scenario's, and a pass-through of it is judged passed-through with the right
    answer (content is the expected output)."""
    checked = 0
    for scenario in corpus.scenarios:
        if scenario.area == "generated":
            continue
        chunks = native_chunks(scenario)
        stream = Capture(name=scenario.id, chunks=list(chunks))
        expect = expectation(scenario)
        assert all(c.content is None or c.reasoning_content is None for c in chunks)
        assert stream.finish_reason == scenario.context.finish_reason, scenario.id
        assert stream.reasoning_deltas == [r for r in scenario.reasoning if r.strip()] or \
            sorted(stream.reasoning_deltas) == sorted(r for r in scenario.reasoning
                                                      if r.strip()), scenario.id
        judged = judge(expect, sent(scenario, Shape.NATIVE), stream)
        assert judged.action is A.PASSED_THROUGH and judged.outcomes == (O.RIGHT, O.RIGHT), \
            (scenario.id, judged.detail, judged.scrubbed.detail)
        checked += 1
    assert checked > 300


def test_the_upstream_serves_the_native_shape_by_name(corpus, upstream):
    from scrubcheck.gateway.recorder import Recorder

    scenario = next(s for s in corpus.scenarios if s.id == "orphan-prefill-basic")
    with Recorder(upstream.url) as recorder:
        capture = recorder.record(f"openai/{scenario.id}:native", [], name="n")
    assert capture.error is None
    assert capture.content == sent(scenario, Shape.NATIVE).content
    assert "cacti" in capture.content and "</think>" not in capture.content
    assert capture.structured_reasoning and capture.response["scenario"] == scenario.id
    assert capture.context_header["starts_in_reasoning"] is False
