"""`gateway audit` with stored answers (gateway/answers.py): a cached audit must report
what an uncached one does, timings apart; a second audit must send no request for the
answers it holds, and judge them afresh (a change to the judging costs no request); a
changed scenario must be requested again, a moved one point where it is now;
reproduction commands must name this run's gateway and upstream; and an answer of the
machine (a timeout, a busy status) must never be kept.

The gateways are the small loopback gateways of tests/data/gateways/broken_gateways.py
in front of the replay server, each started by a context manager (stopped however the
test ends); each counts the requests it gets, so "no request" is seen at the gateway.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import threading
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from test_gateway_audit import SELECTION, free_port, gw

from scrubcheck.cli import main
from scrubcheck.gateway import answers as answers_module
from scrubcheck.gateway import audit as audit_module
from scrubcheck.gateway.answers import answers_row_key, not_kept, wire_digest
from scrubcheck.gateway.audit import AuditOptions, audit, replay_upstream
from scrubcheck.gateway.audit_report import file_names, validate_audit, write_audit_reports
from scrubcheck.gateway.capture import Capture
from scrubcheck.gateway.products import GatewayError, audited
from scrubcheck.gateway.products.running import Endpoint
from scrubcheck.gateway.server import running
from scrubcheck.gateway.upstream import Shape, selector
from scrubcheck.gateway.verdicts import Action as A
from scrubcheck.peers.envs import Installed
from scrubcheck.runner.cache import ResultCache, key_digest

CHANGED = "blocks-two-blocks-answer-between"  # its answer gets a sentence more
MOVED = "orphan-prefill-basic"  # moved to another file and line, content unchanged
#: the scenario whose non-streamed answer the gateway refuses, the same way every time
REFUSED = "inline-minimax-recovered-basic"
#: LiteLLM's answer to a stream with a lone surrogate: the gateway's, not the machine's
DETERMINISTIC_500 = "str is not valid UTF-8: surrogates not allowed"


class StripAndRefuse(gw.PerDeltaStrip):
    """Strips `<think>` blocks delta by delta (failures, with their captures kept), and
    answers the non-streamed request for REFUSED with an HTTP 500 every time."""

    def refuse(self, headers: Any, body: dict[str, Any]) -> tuple[int, bytes, str] | None:
        if REFUSED in str(body.get("model")) and not body.get("stream"):
            return gw._error(500, DETERMINISTIC_500)
        return None


class Busy(gw.Behaviour):
    """HTTP 503 for every request: a gateway too busy at the moment."""

    def refuse(self, headers: Any, body: dict[str, Any]) -> tuple[int, bytes, str] | None:
        return gw._error(503, "the server is busy, retry later")


@contextmanager
def counted_gateway(behaviour: gw.Behaviour, upstream: Any) -> Iterator[tuple[Any, Counter]]:
    """A gateway in front of `upstream` (a replay server or its URL) and the requests it
    got, by model; stopped however the block ends."""
    seen: Counter[str] = Counter()
    lock = threading.Lock()
    refuse = behaviour.refuse

    def counting(headers: Any, body: dict[str, Any]):
        with lock:
            seen[str(body.get("model"))] += 1
        return refuse(headers, body)

    behaviour.refuse = counting  # type: ignore[method-assign]
    url = upstream if isinstance(upstream, str) else upstream.url
    with running(gw.Gateway(url, behaviour)) as server:
        yield server, seen


@pytest.fixture(scope="module")
def scenarios(corpus):
    by_id = {s.id: s for s in corpus.scenarios}
    return [by_id[i] for i in SELECTION]


@pytest.fixture
def cache(tmp_path) -> ResultCache:
    return ResultCache(tmp_path / "cache")


KEY = {"product": "test-gateway", "version": "1", "config": "strip"}


def untimed(report: dict[str, Any]) -> dict[str, Any]:
    """An audit report without what depends on the moment: timings, the request count
    of a server several audits share, and the cache's own entry."""
    data = copy.deepcopy(report)
    for name in ("started_at", "duration_s", "timing", "upstream_requests"):
        data.pop(name)
    data["settings"].pop("cache", None)
    for result in data["results"]:
        result.pop("slow")
        for one in result["passes"]:
            one["received"].pop("duration_s")
    return data


def untimed_captures(path: Path) -> list[dict[str, Any]]:
    captures = json.loads(path.read_text(encoding="utf-8"))["captures"]
    for capture in captures:
        capture.pop("started_at", None)
        capture.pop("duration_s", None)
        for chunk in capture["chunks"]:
            chunk.pop("t")
    return captures


def reports(result, folder: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The JSON report (schema-checked) and the failures capture file, untimed."""
    write_audit_reports(result, folder)
    data = json.loads((folder / file_names()["json"]).read_text(encoding="utf-8"))
    validate_audit(data)
    return untimed(data), untimed_captures(folder / file_names()["captures"])


# ------------------------------------------------------------------ answers
def test_a_stored_answer_gives_the_capture_back(scenarios, corpus, cache):
    """What the store keeps is the capture as the recorder made it, to the chunk."""
    with replay_upstream(corpus.scenarios) as upstream, \
            counted_gateway(StripAndRefuse(), upstream) as (server, _):
        audit(server.url, scenarios[:3], AuditOptions(), upstream=upstream, cache=cache,
              cache_key=KEY)
    rows = list((cache.root / "answers").rglob("*.json"))
    assert len(rows) == 1
    stored = json.loads(rows[0].read_text())["answers"]
    assert len(stored) == 3 * 2 * 2  # scenarios x shapes x (stream, complete)
    for answer in stored.values():
        assert "base_url" not in answer["request"], "the gateway URL is this run's"
        assert "scrubcheck_audit" not in json.dumps(answer), "no judging in an answer"
        assert Capture.from_dict(copy.deepcopy(answer)).to_dict() == answer


def test_the_package_is_split_into_wire_and_judging_modules():
    """Every file of the gateway package is placed: a new module changes what a stored
    answer is keyed by only when it is named as wire code."""
    package = Path(answers_module.__file__).parent
    files = {p.name for p in package.iterdir() if p.is_file()}
    placed = set(answers_module.WIRE_MODULES) | set(answers_module.JUDGING_MODULES)
    assert files == placed, (files - placed, placed - files)
    assert not set(answers_module.WIRE_MODULES) & set(answers_module.JUDGING_MODULES)


# ------------------------------------------------------------ cached audits
def test_a_cached_audit_equals_an_uncached_one_and_a_second_requests_nothing(
        scenarios, corpus, cache, tmp_path):
    with replay_upstream(corpus.scenarios) as upstream, \
            counted_gateway(StripAndRefuse(), upstream) as (server, seen):
        plain = audit(server.url, scenarios, AuditOptions(), upstream=upstream)
        cold = audit(server.url, scenarios, AuditOptions(), upstream=upstream,
                     cache=cache, cache_key=KEY)
        before_gateway, before_upstream = sum(seen.values()), sum(upstream.requests.values())
        warm = audit(server.url, scenarios, AuditOptions(), upstream=upstream,
                     cache=cache, cache_key=KEY)
        assert sum(seen.values()) == before_gateway, "a reused pair was requested"
        assert sum(upstream.requests.values()) == before_upstream
    pairs = 2 * len(scenarios)
    assert plain.failures() and any(p.action is A.ERROR for r in plain.results
                                    for p in r.passes), "the audit must find failures"
    assert "cache" not in plain.settings
    assert cold.settings["cache"] | {"answers": None, "wire": None} == {
        "answers": None, "wire": None, "reused": 0, "ran": pairs, "kept": pairs,
        "not_kept": 0}  # the deterministic HTTP 500 is kept
    assert warm.settings["cache"]["reused"] == pairs and warm.settings["cache"]["ran"] == 0
    assert warm.settings["cache"]["wire"] == wire_digest()
    assert warm.timing() == cold.timing(), "reused pairs keep the durations measured"
    expected = reports(plain, tmp_path / "plain")
    assert reports(cold, tmp_path / "cold") == expected
    assert reports(warm, tmp_path / "warm") == expected
    assert cache.reused == pairs and cache.ran == pairs


def test_a_change_to_the_judging_rejudges_stored_answers_without_a_request(
        scenarios, corpus, cache, monkeypatch):
    """The answers are kept apart from the verdicts: with another yardstick (here, every
    scenario expected to show one more sentence) a warm audit requests nothing and
    judges the stored answers by it, as an uncached audit under it does."""
    with replay_upstream(corpus.scenarios) as upstream, \
            counted_gateway(StripAndRefuse(), upstream) as (server, seen):
        audit(server.url, scenarios, AuditOptions(), upstream=upstream, cache=cache,
              cache_key=KEY)
        original = audit_module.expectation

        def moved_yardstick(scenario):
            if scenario.visible is None:
                return original(scenario)
            return original(dataclasses.replace(scenario, visible=scenario.visible + " More."))

        monkeypatch.setattr(audit_module, "expectation", moved_yardstick)
        before = sum(seen.values())
        warm = audit(server.url, scenarios, AuditOptions(), upstream=upstream, cache=cache,
                     cache_key=KEY)
        assert sum(seen.values()) == before, "a stored answer was requested again"
        plain = audit(server.url, scenarios, AuditOptions(), upstream=upstream)
    assert warm.settings["cache"]["ran"] == 0
    judged = [(r.scenario.id, r.shape, r.raw, r.scrubbed) for r in warm.results]
    assert judged == [(r.scenario.id, r.shape, r.raw, r.scrubbed) for r in plain.results]
    assert len(warm.failures()) > len([s for s in scenarios if s.visible is None]), \
        "the moved yardstick must fail what it moved"


def test_a_changed_scenario_is_requested_again_and_a_moved_one_points_where_it_is(
        scenarios, cache, tmp_path):
    with replay_upstream(scenarios) as first, \
            counted_gateway(StripAndRefuse(), first) as (server, _):
        audit(server.url, scenarios, AuditOptions(), upstream=first, cache=cache,
              cache_key=KEY)
        first_port = first.server_address[1]
    now = []
    for s in scenarios:
        if s.id == CHANGED:
            s = dataclasses.replace(s, deltas=(*s.deltas[:-1], s.deltas[-1] + " Extra."),
                                    visible=s.visible + " Extra.")
        elif s.id == MOVED:
            s = dataclasses.replace(s, file="corpora/moved.yaml", line=999)
        now.append(s)
    # another upstream and gateway, on other ports: the reproductions must name these
    with replay_upstream(now) as second, \
            counted_gateway(StripAndRefuse(), second) as (server, seen):
        warm = audit(server.url, now, AuditOptions(), upstream=second, cache=cache,
                     cache_key=KEY)
        requested = set(seen)
        plain = audit(server.url, now, AuditOptions(), upstream=second)
        gateway_url, second_port = server.url, second.server_address[1]
    assert requested == {selector(CHANGED, shape) for shape in Shape}
    assert warm.settings["cache"]["reused"] == 2 * (len(now) - 1)
    assert warm.settings["cache"]["ran"] == 2
    moved = next(r for r in warm.results if r.scenario.id == MOVED)
    assert (moved.scenario.file, moved.scenario.line) == ("corpora/moved.yaml", 999)
    reused_failures = [r for r in warm.failures() if r.scenario.id != CHANGED]
    assert reused_failures, "the selection must reuse a failure"
    for r in reused_failures:
        text = "\n".join(r.reproduce)
        assert f"--upstream-port {second_port}" in text and gateway_url in text
        assert f"--upstream-port {first_port} " not in text
        assert all(p.capture.request["base_url"] == gateway_url
                   for p in r.passes if p.capture is not None)
    assert reports(warm, tmp_path / "warm") == reports(plain, tmp_path / "plain")


def test_an_audit_killed_before_its_end_keeps_every_answer_it_received(
        scenarios, corpus, cache, monkeypatch):
    """Each answer goes to the row's journal as it arrives: an audit whose process dies
    before it saves (here: its save does nothing) costs the next audit no request."""
    chosen = scenarios[:4]
    with replay_upstream(corpus.scenarios) as upstream, \
            counted_gateway(StripAndRefuse(), upstream) as (server, seen):
        with monkeypatch.context() as patched:
            patched.setattr(answers_module.AnswerStore, "save", lambda self: 0)
            audit(server.url, chosen, AuditOptions(), upstream=upstream, cache=cache,
                  cache_key=KEY)
        journals = list((cache.root / "answers").rglob("*.journal.jsonl"))
        assert len(journals) == 1 and len(journals[0].read_text().splitlines()) == 16
        with journals[0].open("a") as out:
            out.write('{"request": "cut short')  # the line being written when it died
        before = sum(seen.values())
        again = audit(server.url, chosen, AuditOptions(), upstream=upstream, cache=cache,
                      cache_key=KEY)
        assert sum(seen.values()) == before, "a journalled answer was requested again"
    assert again.settings["cache"]["reused"] == 8 and again.settings["cache"]["ran"] == 0
    assert not journals[0].exists(), "the journal is folded into the row"


def test_timeouts_and_busy_answers_are_not_kept(scenarios, corpus, cache):
    one = [scenarios[0]]
    options = AuditOptions(shapes=(Shape.INLINE,), timeout=1.0, budget=3.0,
                           non_streaming=False)
    with replay_upstream(corpus.scenarios) as upstream:
        for behaviour in (gw.Hang(), Busy()):
            with counted_gateway(behaviour, upstream) as (server, seen):
                for _ in range(2):
                    result = audit(server.url, one, options, upstream=upstream, cache=cache,
                                   cache_key={**KEY, "config": type(behaviour).__name__})
                    assert result.results[0].action is A.ERROR
                    assert result.settings["cache"]["kept"] == 0
                    assert result.settings["cache"]["reused"] == 0
                    assert result.settings["cache"]["ran"] == 1
                    assert result.settings["cache"]["not_kept"] == 1
                assert seen[selector(one[0].id, Shape.INLINE)] >= 4  # probe and stream, twice


def _answer(error: dict[str, Any] | None, **request: Any) -> dict[str, Any]:
    return {"name": "x.stream", "request": request, "response": {}, "chunks": [],
            "error": error}


@pytest.mark.parametrize("error, kept", [
    (None, True),
    ({"kind": "http", "status": 500, "message": f"HTTP 500: {DETERMINISTIC_500}"}, True),
    ({"kind": "stream", "message": "the server sent an error event: litellm."
      "InternalServerError: The model is repeating the same chunk"}, True),
    ({"kind": "malformed", "message": "the body is not a chat.completion"}, True),
    ({"kind": "timeout", "message": "no data within 60 s; 3 chunks kept"}, False),
    ({"kind": "connection", "message": "cannot reach the server: ConnectError"}, False),
    ({"kind": "cut", "message": "the connection broke mid-stream after 3 chunks"}, False),
    ({"kind": "http", "status": 503, "message": "HTTP 503: busy"}, False),
    ({"kind": "http", "status": 429, "message": "HTTP 429: slow down"}, False),
    ({"kind": "http", "status": 401, "message": "HTTP 401: bad key"}, False),
    ({"kind": "http", "status": 500, "message": "HTTP 500: litellm.Timeout: Request "
      "timed out"}, False),
    ({"kind": "http", "status": 500, "message": "HTTP 500: litellm.APIConnectionError: "
      "Connection error"}, False),
])
def test_what_is_kept_is_decided_from_the_answer(error, kept):
    assert (not_kept(_answer(error)) is None) is kept


def test_an_answer_naming_an_address_of_this_run_is_not_kept():
    error = {"kind": "http", "status": 500,
             "message": "HTTP 500: upstream http://127.0.0.1:41071/v1 said no"}
    assert not_kept(_answer(error), ("127.0.0.1:41071",)) is not None
    assert not_kept(_answer(error), ("127.0.0.1:9999",)) is None
    # the capture's gateway URL is rewritten on reuse, so it does not count
    assert not_kept(_answer(None, base_url="http://127.0.0.1:41071/v1"),
                    ("127.0.0.1:41071",)) is None


def test_the_row_names_what_changes_a_request_and_not_the_machine():
    base = AuditOptions()
    digest = key_digest(answers_row_key(KEY, base))
    for changed in (dict(timeout=5.0), dict(budget=10.0), dict(non_streaming=False)):
        assert key_digest(answers_row_key(KEY, dataclasses.replace(base, **changed))) != digest
    for same in (dict(jobs=7), dict(slow=1.0), dict(label="x"), dict(api_key="sk-x"),
                 dict(shapes=(Shape.NATIVE,))):
        assert key_digest(answers_row_key(KEY, dataclasses.replace(base, **same))) == digest
    assert key_digest(answers_row_key({**KEY, "version": "2"}, base)) != digest
    assert "sk-x" not in json.dumps(answers_row_key(KEY, dataclasses.replace(
        base, api_key="sk-x")))


def test_a_cached_audit_needs_a_key_and_the_replay_server(scenarios, cache):
    with replay_upstream(scenarios) as upstream:
        with pytest.raises(ValueError, match="cache_key"):
            audit("http://127.0.0.1:9/v1", scenarios, upstream=upstream, cache=cache)
    with pytest.raises(ValueError, match="replay server"):
        audit("http://127.0.0.1:9/v1", scenarios, upstream="http://127.0.0.1:9/v1",
              cache=cache, cache_key=KEY)


# ----------------------------------------------------------- named gateways
@pytest.fixture
def fake_product(monkeypatch, corpus):
    """`litellm-proxy` as installed at version 9.9.9, started as a test gateway (the real
    product is not needed to show how its audit is keyed); the gateways it started."""
    record = Installed("spec", "9.9.9", "2026-01-01T00:00:00+00:00", 1.0)
    monkeypatch.setattr(audited, "installed", lambda manifest: record)
    started: list[Counter] = []

    @contextmanager
    def running_gateway(manifest, config, upstream_url, **kwargs):
        behaviour = StripAndRefuse()
        with counted_gateway(behaviour, upstream_url) as (server, seen):
            started.append(seen)
            yield Endpoint(manifest.name, config, server.url, "sk-test")

    monkeypatch.setattr(audited, "running_gateway", running_gateway)
    return record, started


def test_a_products_key_names_product_version_runtime_and_configuration(fake_product,
                                                                        monkeypatch):
    key = audited.product_cache_key("litellm-proxy")
    assert key["product"] == "litellm-proxy" and key["config"] == "plain"
    assert key["version"] == "9.9.9" and key["runtime"]
    assert audited.product_cache_key("litellm-proxy:merge")["config"] == "merge"
    monkeypatch.setattr(audited, "installed", lambda manifest: None)
    with pytest.raises(GatewayError, match="not installed"):
        audited.product_cache_key("litellm-proxy:plain")


def test_the_cli_caches_a_named_gateway_by_its_product(fake_product, monkeypatch, tmp_path,
                                                       capsys):
    _, started = fake_product
    monkeypatch.setenv("SCRUBCHECK_CACHE", str(tmp_path / "user-cache"))
    ids = [a for i in SELECTION[:3] for a in ("--id", i)]

    def cli(out: str, *extra: str) -> dict[str, Any]:
        code = main(["gateway", "audit", "--gateway-name", "litellm-proxy:plain",
                     "--upstream-port", "0", "--no-progress", "--out", str(tmp_path / out),
                     *ids, *extra])
        assert code == 1, capsys.readouterr()  # the stripper fails some of them
        return json.loads((tmp_path / out / "litellm-proxy-plain.json").read_text())

    plain = cli("plain")
    cold = cli("cold", "--cache")
    warm = cli("warm", "--cache")
    assert sum(started[-1].values()) == 0, "the warm audit requested a reused pair"
    assert warm["settings"]["cache"]["reused"] == 6 and warm["settings"]["cache"]["ran"] == 0
    for data in (plain, cold, warm):  # each run starts its gateway and upstream anew
        del data["gateway"], data["upstream"]
    assert untimed(cold) == untimed(plain) == untimed(warm)
    assert any(r["reproduce"] for r in warm["results"])
    for r in warm["results"]:
        for command in r["reproduce"]:
            assert command.startswith("scrubcheck gateway audit --gateway-name "
                                      "litellm-proxy:plain ")
    rows = list((tmp_path / "user-cache" / "answers").rglob("*.json"))
    assert len(rows) == 1
    key = json.loads(rows[0].read_text())["key"]
    assert {k: key["gateway"][k] for k in ("product", "config", "version", "install")} == {
        "product": "litellm-proxy", "config": "plain", "version": "9.9.9", "install": "spec"}
    assert "litellm" in key["gateway"]["package"] and key["gateway"]["runtime"]
    assert "sk-test" not in rows[0].read_text()
    assert "reused" in capsys.readouterr().out


@pytest.mark.parametrize("args, words", [
    (["--gateway", "http://127.0.0.1:9/v1"], "--cache needs --gateway-name"),
    (["--gateway-name", "litellm-proxy:plain", "--upstream-url", "http://127.0.0.1:9/v1"],
     "not --upstream-url"),
])
def test_cache_without_a_product_or_with_a_users_upstream_is_a_usage_error(args, words,
                                                                           capsys):
    code = main(["gateway", "audit", *args, "--cache", "--id", SELECTION[0],
                 "--upstream-port", str(free_port())])
    assert code == 2
    assert words in capsys.readouterr().err
