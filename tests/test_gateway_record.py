"""`gateway record` against a scripted loopback server, through the real openai client:
both reasoning field names, every finish_reason, and every way a stream can fail,
each keeping what arrived before the failure and saying clearly what happened."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from scrubcheck.cli import main
from scrubcheck.gateway.capture import read_captures
from scrubcheck.gateway.recorder import Recorder, public_url
from scrubcheck.gateway.server import running

PROMPT = [{"role": "user", "content": "hi"}]
SECRET = "sk-test-9f8e7d6c5b4a39281706"


def chunk(delta: dict, finish: str | None = None, index: int = 0) -> dict:
    return {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1,
            "model": "scripted-model",
            "choices": [{"index": index, "delta": delta, "finish_reason": finish}]}


def event(data: dict | str) -> bytes:
    text = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)
    return b"data: " + text.encode("utf-8") + b"\n\n"


@dataclass
class Script:
    """What the fixture server answers: a status, body pieces, and how the body ends."""

    events: list[bytes] = field(default_factory=list)
    status: int = 200
    json_body: dict | None = None  # a plain JSON answer (errors)
    framing: str = "chunked"  # chunked | close (no length: the body ends when the socket does)
    cut: bytes | None = None  # sent last, then the connection is dropped mid-chunk


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: ScriptedServer

    def log_message(self, *args: object) -> None:
        pass

    def do_POST(self) -> None:  # noqa: N802
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
        script = self.server.script(self, body)
        if script.json_body is not None:
            body = json.dumps(script.json_body).encode()
            self.send_response(script.status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        self.send_response(script.status)
        self.send_header("Content-Type", "text/event-stream")
        if script.framing == "chunked":
            self.send_header("Transfer-Encoding", "chunked")
        else:
            self.send_header("Connection", "close")
        self.end_headers()
        for data in script.events:
            self._write(data, script.framing)
        if script.cut is not None:
            if script.framing == "chunked":  # announce the whole chunk, send half of it
                self.wfile.write(b"%X\r\n%s" % (len(script.cut) * 2, script.cut))
            else:
                self.wfile.write(script.cut)
            self.wfile.flush()
            self.close_connection = True
            return
        if script.framing == "chunked":
            self.wfile.write(b"0\r\n\r\n")
        else:
            self.close_connection = True

    def _write(self, data: bytes, framing: str) -> None:
        self.wfile.write(b"%X\r\n%s\r\n" % (len(data), data) if framing == "chunked" else data)
        self.wfile.flush()


class ScriptedServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, script: Callable[[BaseHTTPRequestHandler, dict], Script]) -> None:
        self.script = script
        super().__init__(("127.0.0.1", 0), _Handler)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"


def record_script(script: Script | Callable[[BaseHTTPRequestHandler, dict], Script], **kwargs):
    handler = script if callable(script) else (lambda _request, _body: script)
    with running(ScriptedServer(handler)) as server:
        return Recorder(server.url, **kwargs).record("scripted-model", PROMPT, name="s")


def test_both_reasoning_field_names_and_exact_chunks():
    capture = record_script(Script(events=[
        event(chunk({"role": "assistant", "content": ""})),
        event(chunk({"reasoning_content": "Let me "})),
        event(chunk({"reasoning": "think."})),
        event(chunk({"reasoning_content": "both", "reasoning": "both"})),
        event(chunk({"content": "Hi <thi"})),
        event(chunk({"content": "nk> ünï ✓\u2028 "})),
        event(chunk({"content": "", "reasoning_content": None})),
        event(chunk({}, "stop")),
        event("[DONE]")]))
    assert capture.error is None and capture.done
    assert capture.content_deltas == ["", "Hi <thi", "nk> ünï ✓\u2028 ", ""]
    assert capture.reasoning_deltas == ["Let me ", "think.", "both"]
    assert capture.reasoning_fields == ["reasoning_content", "reasoning"]
    assert capture.finish_reason == "stop"
    assert capture.response["model"] == "scripted-model"
    times = [c.t for c in capture.chunks]
    assert times == sorted(times) and times[0] > 0
    assert capture.duration_s >= times[-1]


@pytest.mark.parametrize("finish", ["stop", "length", "tool_calls", "content_filter"])
def test_every_finish_reason_is_kept(finish):
    tool = [{"index": 0, "id": "call_1", "type": "function",
             "function": {"name": "search", "arguments": "{}"}}]
    capture = record_script(Script(events=[
        event(chunk({"content": "<think>plan"})),
        event(chunk({"tool_calls": tool} if finish == "tool_calls" else {}, finish)),
        event("[DONE]")]))
    assert capture.error is None
    assert capture.finish_reason == finish
    if finish == "tool_calls":
        assert capture.chunks[-1].tool_calls[0]["function"]["name"] == "search"


def test_usage_chunks_and_other_choices_are_not_deltas():
    capture = record_script(Script(events=[
        event(chunk({"content": "a"})),
        event(chunk({"content": "other choice"}, index=1)),
        event(chunk({}, "stop")),
        event({"id": "x", "object": "chat.completion.chunk", "created": 1, "model": "m",
               "choices": [], "usage": {"prompt_tokens": 1, "completion_tokens": 1,
                                        "total_tokens": 2}}),
        event("[DONE]")]))
    assert capture.content_deltas == ["a"] and capture.error is None


@pytest.mark.parametrize("status", [400, 401, 429, 500, 503])
def test_http_errors_are_recorded_with_the_server_message(status):
    capture = record_script(Script(status=status, json_body={"error": {
        "message": f"scripted failure {status}", "type": "server_error"}}))
    assert capture.error.kind == "http" and capture.error.status == status
    assert f"HTTP {status}" in capture.error.message
    assert f"scripted failure {status}" in capture.error.message
    assert capture.chunks == []


def test_stream_cut_mid_chunk_keeps_what_arrived():
    capture = record_script(Script(events=[event(chunk({"content": "Hello"})),
                                           event(chunk({"content": " world"}))],
                                   cut=b'data: {"id":"chatcmpl-1","choi'))
    assert capture.content_deltas == ["Hello", " world"]
    assert capture.error.kind == "cut"
    assert "after 2 chunks" in capture.error.message
    assert not capture.done


def test_connection_closed_inside_an_event_is_a_cut():
    capture = record_script(Script(framing="close", events=[event(chunk({"content": "Hel"}))],
                                   cut=b'data: {"id":"chatcmpl-1","choices":[{"ind'))
    assert capture.content_deltas == ["Hel"]
    assert capture.error.kind == "cut"
    assert "inside an event" in capture.error.message and "choices" in capture.error.message


def test_stream_ending_without_finish_or_done_is_a_cut():
    capture = record_script(Script(events=[event(chunk({"content": "Hel"}))]))
    assert capture.content_deltas == ["Hel"]
    assert capture.error.kind == "cut"
    assert "without a finish_reason or data: [DONE]" in capture.error.message


def test_done_inside_a_delta_is_not_the_end_of_the_stream():
    capture = record_script(Script(events=[event(chunk({"content": "data: [DONE]"})),
                                           event(chunk({"content": "\n\ndata: [DONE]\n\n"}))]))
    assert capture.content_deltas == ["data: [DONE]", "\n\ndata: [DONE]\n\n"]
    assert not capture.done
    assert capture.error.kind == "cut"


def test_tap_finds_the_done_line_across_pieces():
    from scrubcheck.gateway.tap import Tap

    tap = Tap()
    for piece in [b'data: {"c": "[DONE]"}\r', b"\n\r\ndata:[DO", b"NE]\r\n", b"\r\n"]:
        tap.feed(piece)
        assert not tap.done or piece == b"\r\n"
    assert tap.done and tap.unfinished == b""
    tap = Tap()
    tap.feed(b'data: {"a": 1}\n\ndata: {"b')
    assert not tap.done and tap.unfinished == b'data: {"b'


def test_malformed_json_in_a_data_line():
    capture = record_script(Script(events=[event(chunk({"content": "ok "})),
                                           b'data: {"id": "x", "choices": [\n\n',
                                           event(chunk({"content": "never"}))]))
    assert capture.content_deltas == ["ok "]
    assert capture.error.kind == "malformed"
    assert "malformed JSON in a data: line after 1 chunks" in capture.error.message


def test_error_event_mid_stream():
    capture = record_script(Script(events=[
        event(chunk({"content": "partial"})),
        event({"error": {"message": "upstream model overloaded", "type": "server_error"}})]))
    assert capture.content_deltas == ["partial"]
    assert capture.error.kind == "stream"
    assert "upstream model overloaded" in capture.error.message


def test_unreachable_server_is_a_connection_error():
    with running(ScriptedServer(lambda _r, _b: Script())) as server:
        url = server.url
    capture = Recorder(url, timeout=5).record("m", PROMPT, name="gone")
    assert capture.error.kind == "connection"
    assert "cannot reach the server" in capture.error.message


def echo_key(request: BaseHTTPRequestHandler, body: dict) -> Script:
    """A careless gateway: the key comes back in the error and in the answer."""
    auth = request.headers.get("Authorization", "")
    if body["model"] == "refused":
        return Script(status=401, json_body={"error": {"message": f"bad key {auth}"}})
    return Script(events=[event(chunk({"content": f"your header was {auth}"})),
                          event(chunk({}, "stop")), event("[DONE]")])


def test_api_key_is_never_written(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("SCRUBCHECK_TEST_KEY", SECRET)
    out = tmp_path / "k.capture.json"
    with running(ScriptedServer(echo_key)) as server:
        code = main(["gateway", "record", "--base-url", server.url, "--model", "m",
                     "--model", "refused", "--api-key-env", "SCRUBCHECK_TEST_KEY",
                     "--out", str(out)])
    printed = capsys.readouterr()
    assert code == 1  # the refused stream failed
    text = out.read_text(encoding="utf-8")
    assert SECRET not in text
    assert SECRET not in printed.out + printed.err
    ok, refused = read_captures(out)
    assert ok.content == "your header was Bearer [redacted]"  # the server did see the key
    assert refused.error.status == 401
    assert refused.error.message == "HTTP 401: bad key Bearer [redacted]"
    assert "bad key Bearer [redacted]" in printed.out


def test_missing_key_variable_is_a_usage_error(monkeypatch, capsys):
    monkeypatch.delenv("SCRUBCHECK_NO_SUCH_KEY", raising=False)
    code = main(["gateway", "record", "--base-url", "http://127.0.0.1:9/v1", "--model", "m",
                 "--api-key-env", "SCRUBCHECK_NO_SUCH_KEY"])
    assert code == 2
    assert "SCRUBCHECK_NO_SUCH_KEY is not set" in capsys.readouterr().err


def test_a_test_server_never_receives_the_environments_openai_key(tmp_path, monkeypatch,
                                                                  capsys):
    """OPENAI_API_KEY is OpenAI's: unasked, a loopback server gets the placeholder, and
    the console says the key was held back and how to send one."""
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    out = tmp_path / "default.capture.json"
    with running(ScriptedServer(echo_key)) as server:
        code = main(["gateway", "record", "--base-url", server.url, "--model", "m",
                     "--out", str(out)])
    printed = capsys.readouterr()
    assert code == 0
    (capture,) = read_captures(out)
    assert capture.content == "your header was Bearer scrubcheck-no-key"
    assert "OPENAI_API_KEY is set but is not sent to http://127.0.0.1:" in printed.err
    assert "--api-key-env VAR sends the key" in printed.err
    assert SECRET not in printed.out + printed.err + out.read_text(encoding="utf-8")


def test_the_openai_key_is_sent_when_the_user_names_it(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    out = tmp_path / "asked.capture.json"
    with running(ScriptedServer(echo_key)) as server:
        code = main(["gateway", "record", "--base-url", server.url, "--model", "m",
                     "--api-key-env", "OPENAI_API_KEY", "--out", str(out)])
    printed = capsys.readouterr()
    assert code == 0
    (capture,) = read_captures(out)
    assert capture.content == "your header was Bearer [redacted]"  # sent, then redacted
    assert "API key from OPENAI_API_KEY" in printed.err and "warning" not in printed.err
    assert SECRET not in printed.out + printed.err + out.read_text(encoding="utf-8")


@pytest.mark.parametrize("value", [None, ""])
def test_without_any_key_the_placeholder_is_sent_with_a_warning(tmp_path, monkeypatch, capsys,
                                                                 value):
    if value is None:
        monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    else:
        monkeypatch.setenv("OPENAI_API_KEY", value)
    out = tmp_path / "none.capture.json"
    with running(ScriptedServer(echo_key)) as server:
        code = main(["gateway", "record", "--base-url", server.url, "--model", "m",
                     "--out", str(out)])
    assert code == 0
    (capture,) = read_captures(out)
    assert capture.content == "your header was Bearer scrubcheck-no-key"
    err = capsys.readouterr().err
    assert "warning: no API key: no --api-key-env was given" in err
    assert "'scrubcheck-no-key'" in err


@pytest.mark.parametrize("base_url, sent", [
    ("https://api.openai.com/v1", True),
    ("https://API.OpenAI.com/v1", True),
    ("http://api.openai.com/v1", False),  # not over TLS: not OpenAI's API as published
    ("https://api.openai.com.evil.example/v1", False),
    ("https://gateway.example/v1", False),
    ("http://127.0.0.1:8000/v1", False),
    (None, False),
])
def test_the_openai_key_goes_unasked_only_to_openai(base_url, sent):
    from scrubcheck.gateway.recorder import api_key

    key, note = api_key(None, base_url, {"OPENAI_API_KEY": "sk-default-0000"})
    assert (key == "sk-default-0000") is sent and "sk-default" not in note


def test_a_named_key_variable_wins_over_the_openai_one(monkeypatch):
    from scrubcheck.gateway.recorder import api_key

    environ = {"OPENAI_API_KEY": "sk-default-0000", "MY_KEY": SECRET}
    key, note = api_key("MY_KEY", "http://127.0.0.1:9/v1", environ)
    assert key == SECRET and note == "API key from MY_KEY" and SECRET not in note
    key, note = api_key(None, "https://api.openai.com/v1", environ)
    assert key == "sk-default-0000" and "sk-default" not in note


def test_failed_stream_still_writes_the_capture(tmp_path, capsys):
    out = tmp_path / "cut.capture.json"
    script = Script(events=[event(chunk({"content": "kept"}))], cut=b"data: {")
    with running(ScriptedServer(lambda _r, _b: script)) as server:
        code = main(["gateway", "record", "--base-url", server.url, "--model", "m",
                     "--prompt", "one", "--prompt", "two", "--out", str(out)])
    assert code == 1
    captures = read_captures(out)
    assert [c.name for c in captures] == ["m-1", "m-2"]
    assert all(c.content_deltas == ["kept"] and c.error.kind == "cut" for c in captures)
    assert "everything received before the failure is kept" in capsys.readouterr().out


def test_public_url_drops_credentials():
    assert public_url("https://user:pw@gw.example:8443/v1?key=abc#x") == \
        "https://gw.example:8443/v1"
