"""`gateway audit` against gateways it never saw: one mangling gateway per behaviour of a
real gateway (tests/data/gateways/broken_gateways.py, a real HTTP server on 127.0.0.1 in
front of the replay server, started and stopped by each test, also when it fails).

Each behaviour must get the pair this project's issue 20 names, what the gateway did and
what each kind of client sees, within a stated wall-clock bound; the reproduction commands
the audit prints are run and must show the failure again; a key or header value from the
environment must appear in no report and no output; `gateway check` on the audit's own
failure capture must agree with the audit; and bad input gets a clear usage error.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from test_gateway_audit import audit_through, closed, free_port, gateway, gw

from scrubcheck.cli import main
from scrubcheck.gateway.audit import AuditOptions, audit, replay_upstream
from scrubcheck.gateway.capture import read_captures
from scrubcheck.gateway.check_audited import audited_expectation, judge_audited
from scrubcheck.gateway.recorder import Recorder
from scrubcheck.gateway.route import Route, RouteError
from scrubcheck.gateway.server import ReplayServer, running
from scrubcheck.gateway.upstream import Shape
from scrubcheck.gateway.verdicts import Action as A
from scrubcheck.gateway.verdicts import ClientOutcome as O

SURROGATES = "unicode-surrogate-halves-in-separate-deltas"
INLINE_ANSWER = "inline-minimax-recovered-basic"
CUT_RUN = "trunc-cut-run-inside-block-opened-on-the-line"
EMPTY_PAIR = "blocks-empty-pair"
TWO_BLOCKS = "blocks-two-blocks-answer-between"
KEY = "pk-mangle-test-9a8b7c6d5e4f"

#: behaviour -> (scenario, shape, request mode) -> (action, raw client, scrubbing client),
#: and the wall-clock seconds the audit of those scenarios may take (both shapes, both
#: requests, on a busy two-core machine; the budget cases are bounded by --request-timeout).
CASES = {
    "keep-alive comments": (lambda: gw.KeepAlive(), 60, {
        (TWO_BLOCKS, "inline", "stream"): (A.ERROR, O.ERROR, O.ERROR),
        (TWO_BLOCKS, "native", "stream"): (A.ERROR, O.ERROR, O.ERROR)}),
    "trickle": (lambda: gw.Trickle(), 60, {
        (TWO_BLOCKS, "inline", "stream"): (A.ERROR, O.ERROR, O.ERROR),
        (TWO_BLOCKS, "native", "stream"): (A.ERROR, O.ERROR, O.ERROR)}),
    "surrogate joining": (lambda: gw.JoinSurrogates(), 60, {
        (SURROGATES, "native", "stream"): (A.RECHUNKED, O.RIGHT, O.RIGHT),
        (SURROGATES, "inline", "stream"): (A.RECHUNKED, O.LEAK, O.RIGHT),
        (SURROGATES, "native", "complete"): (A.PASSED_THROUGH, O.RIGHT, O.RIGHT)}),
    "dropped finish on inline answers": (lambda: gw.DropLastEvent(), 60, {
        (INLINE_ANSWER, "inline", "stream"): (A.FINISH_CHANGED, O.LEAK, O.LOSS),
        (INLINE_ANSWER, "native", "stream"): (A.FINISH_CHANGED, O.RIGHT, O.RIGHT)}),
    "per-delta regex strip": (lambda: gw.PerDeltaStrip(), 60, {
        (CUT_RUN, "inline", "stream"): (A.STRIPPED, O.LEAK, O.LEAK),
        (EMPTY_PAIR, "inline", "stream"): (A.STRIPPED, O.RIGHT, O.RIGHT),
        (TWO_BLOCKS, "inline", "stream"): (A.PASSED_THROUGH, O.LEAK, O.RIGHT),
        (TWO_BLOCKS, "inline", "complete"): (A.STRIPPED, O.RIGHT, O.RIGHT)}),
    "clean strip": (lambda: gw.CleanStrip(), 60, {
        (TWO_BLOCKS, "inline", "stream"): (A.STRIPPED, O.RIGHT, O.RIGHT),
        (TWO_BLOCKS, "native", "stream"): (A.STRIPPED, O.RIGHT, O.RIGHT),
        (CUT_RUN, "inline", "complete"): (A.STRIPPED, O.RIGHT, O.RIGHT)}),
    "merge with tags": (lambda: gw.MergeReasoning(), 60, {
        (TWO_BLOCKS, "native", "stream"): (A.MERGED_WITH_TAGS, O.LEAK, O.RIGHT),
        (TWO_BLOCKS, "native", "complete"): (A.MERGED_WITH_TAGS, O.LEAK, O.RIGHT)}),
    "merge without tags": (lambda: gw.MergeUntagged(), 60, {
        (TWO_BLOCKS, "native", "stream"): (A.MERGED_WITHOUT_TAGS, O.LEAK, O.LEAK),
        (TWO_BLOCKS, "native", "complete"): (A.MERGED_WITHOUT_TAGS, O.LEAK, O.LEAK)}),
}


@pytest.fixture(scope="module")
def by_id(corpus):
    return {s.id: s for s in corpus.scenarios}


@pytest.fixture(scope="module")
def upstream(corpus):
    with replay_upstream(corpus.scenarios) as server:
        yield server


def found(result) -> dict[tuple[str, str, str], tuple[A, O, O]]:
    return {(r.scenario.id, r.shape.value, p.mode): (p.action, p.raw, p.scrubbed)
            for r in result.results for p in r.passes}


@pytest.mark.parametrize("name", list(CASES))
def test_each_mangling_gets_its_pair_within_its_bound(name, by_id, upstream):
    make, bound, wanted = CASES[name]
    chosen = [by_id[i] for i in dict.fromkeys(key[0] for key in wanted)]
    began = time.monotonic()
    result = audit_through(make(), upstream, chosen, timeout=5.0, budget=2.0)
    took = time.monotonic() - began
    assert took < bound, f"{name}: {took:.1f} s"
    got = found(result)
    for key, pair in wanted.items():
        assert got[key] == pair, (name, key, [p.detail for r in result.results
                                              for p in r.passes])
    assert result.exit_code() == (1 if any(r.failed for r in result.results) else 0)


def test_a_request_over_its_budget_names_it(by_id, upstream):
    result = audit_through(gw.KeepAlive(0.1), upstream, [by_id[TWO_BLOCKS]],
                           shapes=(Shape.NATIVE,), timeout=5.0, budget=1.0,
                           non_streaming=False)
    detail = result.results[0].passes[0].detail
    assert "wall-clock budget of 1 s" in detail and "keep-alive" in detail
    assert result.results[0].passes[0].received["duration_s"] < 5


def test_slow_requests_that_finish_are_counted_with_p50_and_p99(by_id, corpus):
    with replay_upstream(corpus.scenarios) as upstream, \
            running(ReplayServer(upstream.catalog, chunk_delay=0.05)) as slow:
        result = audit(slow.url, [by_id[TWO_BLOCKS]], AuditOptions(slow=0.1),
                       upstream=upstream)
    timing = result.timing()
    assert timing["requests"] == 4 and timing["slow"] >= 1
    assert 0 < timing["p50_s"] <= timing["p99_s"] == timing["max_s"]
    assert all(r.action is A.PASSED_THROUGH for r in result.results)


# ------------------------------------------------------------ reproductions
def _bin_env() -> dict[str, str]:
    """The environment with this interpreter's scripts (scrubcheck) first on PATH."""
    return {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}"
            f"{os.environ.get('PATH', '')}"}


def _run(command: str, cwd: Path, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", "-c", command], cwd=cwd, env=_bin_env(), text=True,
                          capture_output=True, timeout=timeout, check=False)


def _cli(capsys, *args: str) -> tuple[int, str, str]:
    code = main(["gateway", "audit", "--no-progress", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_every_printed_reproduction_reproduces_its_failure(upstream, tmp_path, capsys):
    """The audit of a per-delta strip fails CUT_RUN (streamed and not); once it ended, its
    replay server is gone: the printed audit command starts one on the same port and
    shows the same pair, and the script of the other commands (the replay server started,
    the failing requests, the upstream's answer) shows the leaked text again."""
    port = free_port()
    with gateway(gw.PerDeltaStrip(), upstream) as server:
        # the gateway is configured for the upstream on `port`, as a user's would be
        server.upstream = f"http://127.0.0.1:{port}/v1"
        code, out, err = _cli(capsys, "--gateway", server.url, "--upstream-port", str(port),
                              "--id", CUT_RUN, "--upstream", "inline",
                              "--out", str(tmp_path / "first"))
        assert code == 1, (out, err)
        data = json.loads((tmp_path / "first" / "audit.json").read_text("utf-8"))
        reproduce = data["results"][0]["reproduce"]
        assert closed(port)  # the audit's replay server is gone
        again = _run(reproduce[0] + f" --out {tmp_path / 'again'}", tmp_path)
        assert again.returncode == 1, (again.stdout, again.stderr)
        assert "stripped · raw LEAK · scrubbed LEAK " + CUT_RUN in again.stdout
        script = _run("\n".join(reproduce[1:]), tmp_path)
        assert closed(port)  # the script stopped the replay server it started
    assert script.returncode == 0, script.stderr
    assert "--upstream-url" not in reproduce[0] and "--stream-only" not in reproduce[0]
    assert any('"stream": false' in c for c in reproduce)
    assert '"content": "a`` tail text`"' in script.stdout.replace('":"', '": "')  # not streamed
    assert "<think>the hidden plan" in script.stdout  # what the upstream sent
    assert read_captures(tmp_path / f"{CUT_RUN}.capture.json")[0].content == "a`` tail text`"


def test_a_failure_of_the_plain_request_is_reproduced_without_streaming(upstream, tmp_path,
                                                                       capsys):
    port = free_port()
    with gateway(gw.EmptyCompletion(), upstream) as server:
        server.upstream = f"http://127.0.0.1:{port}/v1"
        code, out, err = _cli(capsys, "--gateway", server.url, "--upstream-port", str(port),
                              "--id", TWO_BLOCKS, "--upstream", "native",
                              "--out", str(tmp_path))
        assert code == 1, (out, err)
        data = json.loads((tmp_path / "audit.json").read_text("utf-8"))
        reproduce = data["results"][0]["reproduce"]
        script = _run("\n".join(reproduce[1:]), tmp_path)
    curls = [c for c in reproduce if c.startswith("curl ")]
    assert curls and all('"stream": false' in c for c in curls)
    assert not any("gateway record" in c for c in reproduce)  # record only streams
    answer, _ = json.JSONDecoder().raw_decode(script.stdout)  # the gateway's, then upstream's
    assert answer["choices"][0]["message"]["content"] == ""  # the failure, shown again


# ------------------------------------------------------------------ secrets
def test_a_header_key_from_the_environment_is_written_nowhere(upstream, tmp_path, capsys,
                                                             monkeypatch):
    """The gateway needs the header (401 without it) and echoes its value into the
    answers, so the failures hold it: every report, the capture file, stdout and stderr
    are searched for it."""
    monkeypatch.setenv("PK_TEST_KEY", KEY)
    with gateway(gw.CheckHeader("x-portkey-api-key", KEY), upstream) as server:
        outputs = []
        for how in (["--route", "model={id} header:x-portkey-api-key=$PK_TEST_KEY"],
                    ["--header-env", "x-portkey-api-key=PK_TEST_KEY"]):
            out_dir = tmp_path / how[0].strip("-")
            code, out, err = _cli(capsys, "--gateway", server.url, "--upstream-port", "0",
                                  "--id", TWO_BLOCKS, "--id", EMPTY_PAIR, *how,
                                  "--out", str(out_dir))
            assert code == 1, (out, err)  # it ran (a refusal is exit 2) and found the echo
            outputs += [out, err]
    written = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert {p.name for p in written} >= {"audit.json", "audit.md", "audit.html",
                                         "audit.junit.xml", "audit.failures.capture.json"}
    texts = outputs + [p.read_text("utf-8") for p in written]
    assert all(KEY not in text for text in texts)
    assert any("$PK_TEST_KEY" in text for text in texts)  # named by its variable
    assert "(routed with [redacted])" in (tmp_path / "route" / "audit.failures.capture.json"
                                          ).read_text("utf-8")  # the echo, redacted


def test_a_literal_credential_in_a_route_is_refused(capsys):
    code, out, err = _cli(capsys, "--gateway", "http://127.0.0.1:9/v1", "--route",
                          "model={id} header:x-portkey-api-key=pk-typed-secret")
    assert code == 2
    assert "looks like a credential" in err and "$VAR" in err
    assert "pk-typed-secret" not in out + err


def test_route_headers_from_the_environment_quotes_and_duplicates():
    environ = {"V": "v a l"}
    route = Route.parse("model=acme:{id} 'header:x-tag=a b' header:x-key=$V",
                        environ=environ, header_env={"x-other-token": "V"})
    assert route.request("s").headers == {"x-tag": "a b", "x-key": "v a l",
                                          "x-other-token": "v a l"}
    assert route.shown_headers("s") == {"x-tag": "a b", "x-key": "$V",
                                        "x-other-token": "$V"}
    assert route.secrets == ("v a l", "v a l") and "v a l" not in route.text
    for bad, words in [("model={{id}}", "brace"), ("model={id}}", "brace"),
                       ("model={id} header:x-a=1 header:X-A=2", "already set"),
                       ("model={id} header:x-a=$MISSING", "MISSING is not set"),
                       ("model={id} header:x-session=abc", "credential"),
                       ("model={id} 'header:x-a=b", "quote")]:
        with pytest.raises(RouteError, match=words):
            Route.parse(bad, environ=environ)


def test_a_started_gateways_headers_are_redacted_in_the_route():
    route = Route.parse("model={id}").with_hidden_headers({"x-portkey-custom-host": "http://h"})
    assert route.text == "model={id} header:x-portkey-custom-host=[redacted]"
    assert route.request("a").headers == {"x-portkey-custom-host": "http://h"}
    assert route.secrets == ("http://h",)


def test_a_recorder_redacts_header_values_and_keeps_no_request_header(upstream):
    with Recorder(upstream.url, secrets=("s3cr3t-value",)) as recorder:
        capture = recorder.record(TWO_BLOCKS, [], name="x", headers={"x-a": "s3cr3t-value"})
    assert capture.request["headers"] == {"x-a": "[redacted]"}
    assert "s3cr3t-value" not in json.dumps(capture.to_dict())


# ----------------------------------------------------------- check agrees
def test_gateway_check_on_the_audits_capture_agrees_scenario_for_scenario(by_id, upstream,
                                                                         tmp_path, capsys):
    chosen = [CUT_RUN, EMPTY_PAIR, TWO_BLOCKS, INLINE_ANSWER, "orphan-prefill-basic",
              "split-sglang-qwen3-hi-thi"]
    with gateway(gw.PerDeltaStrip(), upstream) as server:
        code, out, err = _cli(capsys, "--gateway", server.url, "--upstream-port", "0",
                              *[a for i in chosen for a in ("--id", i)],
                              "--out", str(tmp_path))
    assert code == 1, (out, err)
    data = json.loads((tmp_path / "audit.json").read_text("utf-8"))
    audited = {(r["id"], r["shape"], p["mode"]): p["clients"]["scrubbed"]["outcome"]
               for r in data["results"] for p in r["passes"]}
    captures = read_captures(tmp_path / "audit.failures.capture.json")
    assert len(captures) > 1
    scenarios = {s.id: s for s in by_id.values()}
    for capture in captures:
        block = capture.audit
        key = (block["scenario"], block["shape"], block["mode"])
        expect = audited_expectation(capture, scenarios)
        assert not isinstance(expect, str) and expect is not None
        verdict, = judge_audited(capture, *expect, ["reference"])
        assert verdict.status == ("ok" if audited[key] == "right" else audited[key]), key
    assert any(audited[(c.audit["scenario"], c.audit["shape"], c.audit["mode"])] == "LEAK"
               for c in captures)
    code = main(["gateway", "check", "--no-peers", str(tmp_path / "audit.failures.capture.json")])
    out = capsys.readouterr().out
    assert code == 1 and "leaks: reference on" in out
    assert "inferred from the stream" not in out and "the context gateway audit" in out


# --------------------------------------------------------------- bad input
@pytest.mark.parametrize("args, words", [
    (["--gateway", "http://127.0.0.1:9/v1", "--upstream-port", "70000"], "not a TCP port"),
    (["--gateway", "localhost:4999"], "not an http:// or https:// URL"),
    (["--gateway", "http://127.0.0.1:9/v1", "--route", "model={{id}}"], "brace"),
    (["--gateway", "http://127.0.0.1:9/v1", "--route",
      "model={id} header:x-a=1 header:x-a=2"], "already set"),
    (["--gateway", "http://127.0.0.1:9/v1", "--header-env", "x-a"], "not NAME=VAR"),
    (["--gateway", "http://127.0.0.1:9/v1", "--request-timeout", "0"], "must be positive"),
    (["--gateway", "http://127.0.0.1:9/v1", "--area", "blocks", "--id", "unicode-*"],
     "the filters intersect, and --area blocks alone: "),
])
def test_bad_input_is_a_usage_error(args, words, capsys):
    code, out, err = _cli(capsys, *args)
    assert code == 2 and words in err, (out, err)


def test_intersecting_filters_are_reported(upstream, capsys):
    with running(ReplayServer(upstream.catalog)) as server:
        code, out, err = _cli(capsys, "--gateway", server.url, "--upstream-port", "0",
                              "--area", "blocks", "--id", "blocks-empty-*",
                              "--upstream", "native")
    assert code == 0, (out, err)
    assert "match every one of --area, --id (the filters intersect)" in err


def test_a_passing_run_removes_a_stale_failures_capture(upstream, tmp_path, capsys):
    with gateway(gw.MergeUntagged(), upstream) as server:
        args = ["--gateway", server.url, "--upstream-port", "0", "--id", TWO_BLOCKS,
                "--upstream", "native", "--out", str(tmp_path)]
        assert _cli(capsys, *args)[0] == 1
        assert (tmp_path / "audit.failures.capture.json").exists()
    with running(ReplayServer(upstream.catalog)) as server:
        args[1] = server.url
        assert _cli(capsys, *args)[0] == 0
    assert not (tmp_path / "audit.failures.capture.json").exists()


def test_a_colon_model_prefix_reaches_the_scenario(by_id, upstream):
    with running(ReplayServer(upstream.catalog)) as server:
        result = audit(server.url, [by_id[TWO_BLOCKS]],
                       AuditOptions(route=Route.parse("model=acme:{id}")), upstream=upstream)
    assert {r.action for r in result.results} == {A.PASSED_THROUGH}


def test_messages_read_right(by_id, upstream):
    """No "at at column" in a malformed-JSON message, and the nothing-ran count says of
    how many requests."""
    result = audit_through(gw.BadJsonChunk(), upstream, [by_id[TWO_BLOCKS]],
                           non_streaming=False)
    assert "at at" not in result.results[0].passes[0].detail
    with gateway(gw.HtmlPage(), upstream) as server:
        result = audit(server.url, [by_id[TWO_BLOCKS], by_id[EMPTY_PAIR]], AuditOptions(),
                       upstream=upstream)
    assert result.problem is not None
    assert re.search(r"most often \(\d of 8 requests\)", result.problem), result.problem


def test_ctrl_c_during_the_probe_writes_a_report_and_exits_130(upstream, tmp_path, capsys,
                                                               monkeypatch):
    real = Recorder.record

    def record(self, model, messages, *, name, **kwargs):
        if name == "probe":
            raise KeyboardInterrupt
        return real(self, model, messages, name=name, **kwargs)

    monkeypatch.setattr(Recorder, "record", record)
    with running(ReplayServer(upstream.catalog)) as server:
        code, out, err = _cli(capsys, "--gateway", server.url, "--upstream-port", "0",
                              "--id", TWO_BLOCKS, "--out", str(tmp_path))
    assert code == 130, (out, err)
    data = json.loads((tmp_path / "audit.json").read_text("utf-8"))
    assert data["interrupted"] and len(data["not_run"]) == 2 and data["exit_code"] == 130
