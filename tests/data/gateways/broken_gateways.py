"""Small OpenAI-compatible gateways for the audit's own tests: loopback proxies in front of
the replay server, each correct or broken in one known way.

A `Gateway` forwards `POST /v1/chat/completions` to its upstream with httpx, reads the
upstream's SSE events, and hands them to its `Behaviour`, which may change, drop, add or
hold them; the non-streaming answer goes through `Behaviour.completion`. Each broken
behaviour is a small, plain model of a real failure a gateway can have, so that the
audit is shown to name it.
"""

from __future__ import annotations

import copy
import json
import re
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx

from scrubcheck.gateway.inline import reasoning_parts, spec_run
from scrubcheck.gateway.wire import (
    CONTEXT_HEADER,
    SCENARIO_HEADER,
    context_from_dict,
    parse_context_header,
)
from scrubcheck.model import Context
from scrubcheck.scrubbers.reference import ReferenceScrubber

Event = dict[str, Any]
OPEN = "<think>"


def _choice(event: Event) -> dict[str, Any] | None:
    choices = event.get("choices") or []
    return choices[0] if choices else None


def _delta(event: Event) -> dict[str, Any]:
    choice = _choice(event)
    return choice.setdefault("delta", {}) if choice else {}


def _chunk_like(event: Event, **delta: Any) -> Event:
    """A new chunk with the id and model of `event`."""
    return {"id": event.get("id"), "object": "chat.completion.chunk",
            "created": event.get("created", 0), "model": event.get("model"),
            "choices": [{"index": 0, "delta": delta, "finish_reason": None}]}


def _error(status: int, message: str) -> tuple[int, bytes, str]:
    body = {"error": {"message": message, "type": "gateway_error", "param": None,
                      "code": None}}
    return status, json.dumps(body).encode(), "application/json"


class Behaviour:
    """A correct pass-through: every event and every completion unchanged."""

    done = True  # send `data: [DONE]` after the events
    stream_as_json = False  # answer a streaming request with the non-streaming JSON

    def __init__(self) -> None:
        self.stop = threading.Event()  # set when the gateway stops (ends hanging handlers)

    def refuse(self, headers: Any, body: dict[str, Any]) -> tuple[int, bytes, str] | None:
        """(status, body, content type) to answer instead of forwarding, or None."""
        return None

    def events(self, events: Iterator[Event], context: Context) -> Iterator[Event | bytes]:
        yield from events

    def completion(self, data: dict[str, Any], context: Context) -> dict[str, Any]:
        return data


class Splitter(Behaviour):
    """A correct splitter: the reference scrubber, with the context the upstream announces,
    turns content into the answer; what it removed, tags split off, goes on
    reasoning_content before the finish chunk."""

    def events(self, events: Iterator[Event], context: Context) -> Iterator[Event | bytes]:
        scrubber = ReferenceScrubber(**context.as_kwargs())
        deltas: list[str] = []
        finish: Event | None = None
        last: Event | None = None
        for event in events:
            last = event
            delta = _delta(event)
            if delta.get("content"):
                deltas.append(delta["content"])
                delta["content"] = scrubber.feed(delta["content"])
            choice = _choice(event)
            if choice is not None and choice.get("finish_reason") is not None:
                finish = event
                continue
            yield event
        tail = scrubber.flush()
        removed = reasoning_parts(spec_run(deltas, context).pieces, context.features)
        if last is not None and removed:
            yield _chunk_like(last, reasoning_content="\n".join(removed))
        if last is not None and tail:
            yield _chunk_like(last, content=tail)
        if finish is not None:
            yield finish

    def completion(self, data: dict[str, Any], context: Context) -> dict[str, Any]:
        message = data["choices"][0]["message"]
        text = message.get("content") or ""
        run = spec_run([text], context)
        message["content"] = run.output
        removed = reasoning_parts(run.pieces, context.features)
        if removed:
            message["reasoning_content"] = "\n".join(removed)
        return data


class MergeReasoning(Behaviour):
    """Writes the structured reasoning back into content inside <think>…</think>, as a
    gateway option that "merges reasoning into choices" does."""

    def events(self, events: Iterator[Event], context: Context) -> Iterator[Event | bytes]:
        opened = False
        for event in events:
            delta = _delta(event)
            reasoning = delta.pop("reasoning_content", None) or delta.pop("reasoning", None)
            if reasoning:
                delta["content"] = ("" if opened else OPEN) + reasoning
                opened = True
            elif delta.get("content") and opened:
                delta["content"] = "</think>" + delta["content"]
                opened = False
            yield event

    def completion(self, data: dict[str, Any], context: Context) -> dict[str, Any]:
        message = data["choices"][0]["message"]
        reasoning = message.pop("reasoning_content", None)
        if reasoning:
            message["content"] = f"{OPEN}{reasoning}</think>{message.get('content') or ''}"
        return data


class DropLastEvent(Behaviour):
    """Loses the last event before [DONE] (the finish chunk, in the replay server's
    streams)."""

    def events(self, events: Iterator[Event], context: Context) -> Iterator[Event | bytes]:
        held: Event | None = None
        for event in events:
            if held is not None:
                yield held
            held = event


class DropLastContent(Behaviour):
    """Loses the last event that carries content."""

    def events(self, events: Iterator[Event], context: Context) -> Iterator[Event | bytes]:
        every = list(events)
        carrying = [i for i, e in enumerate(every) if _delta(e).get("content")]
        for index, event in enumerate(every):
            if not carrying or index != carrying[-1]:
                yield event


class SplitTagHalf(Behaviour):
    """A naive per-chunk parser: a delta that ends in the start of `<think>` is taken for
    the opening of reasoning and that fragment is moved to reasoning_content; the rest of
    the tag, in the next delta, is not recognised and stays in content."""

    def events(self, events: Iterator[Event], context: Context) -> Iterator[Event | bytes]:
        for event in events:
            delta = _delta(event)
            text = delta.get("content") or ""
            for size in range(len(OPEN) - 1, 1, -1):
                if text.endswith(OPEN[:size]):
                    delta["content"] = text[:-size]
                    delta["reasoning_content"] = text[-size:]
                    break
            yield event


class LengthToStop(Behaviour):
    """Reports every finish as `stop`: a stream cut by the length limit looks finished."""

    def events(self, events: Iterator[Event], context: Context) -> Iterator[Event | bytes]:
        for event in events:
            choice = _choice(event)
            if choice is not None and choice.get("finish_reason") == "length":
                choice["finish_reason"] = "stop"
            yield event

    def completion(self, data: dict[str, Any], context: Context) -> dict[str, Any]:
        if data["choices"][0].get("finish_reason") == "length":
            data["choices"][0]["finish_reason"] = "stop"
        return data


class KeepAlive(Behaviour):
    """Sends the first event, then an SSE comment (`: keep-alive`) every `every` seconds,
    and never ends the stream: no read timeout ever fires."""

    def __init__(self, every: float = 0.2) -> None:
        super().__init__()
        self.every = every

    def events(self, events: Iterator[Event], context: Context) -> Iterator[Event | bytes]:
        yield next(events)
        while not self.stop.wait(self.every):
            yield b": keep-alive\n\n"


class Trickle(Behaviour):
    """Sends the first event, then the next one a byte every `every` seconds, a `data:`
    line that never ends (nothing a client can parse, bytes all the time)."""

    def __init__(self, every: float = 0.2) -> None:
        super().__init__()
        self.every = every

    def events(self, events: Iterator[Event], context: Context) -> Iterator[Event | bytes]:
        yield next(events)
        line = b"data: " + json.dumps(next(events)).encode() * 1000
        for byte in line:
            if self.stop.wait(self.every):
                return
            yield bytes([byte])


class JoinSurrogates(Behaviour):
    """Re-chunks a delta that ends in the first half of a UTF-16 surrogate pair with the
    next one, so the pair arrives as the one character it encodes (what a gateway that
    decodes and re-encodes UTF-16 does): every client decodes the same text."""

    def events(self, events: Iterator[Event], context: Context) -> Iterator[Event | bytes]:
        carry = ""
        for event in events:
            delta = _delta(event)
            text = delta.get("content")
            if text is None and carry:
                delta["content"], carry = carry, ""
            elif text is not None:
                text, carry = carry + text, ""
                if text and "\ud800" <= text[-1] <= "\udbff":
                    text, carry = text[:-1], text[-1]
                delta["content"] = text
            yield event


class PerDeltaStrip(Behaviour):
    """Removes `<think>…</think>` with a regular expression applied to each delta alone
    (and to the whole non-streamed answer): a block inside one delta goes, a block over
    several deltas stays, and so do the tags it split."""

    PATTERN = re.compile(r"<think>.*?</think>", re.DOTALL)

    def events(self, events: Iterator[Event], context: Context) -> Iterator[Event | bytes]:
        for event in events:
            delta = _delta(event)
            if delta.get("content"):
                delta["content"] = self.PATTERN.sub("", delta["content"])
            yield event

    def completion(self, data: dict[str, Any], context: Context) -> dict[str, Any]:
        message = data["choices"][0]["message"]
        message["content"] = self.PATTERN.sub("", message.get("content") or "")
        return data


class CleanStrip(Splitter):
    """A correct stripper: the splitter's content (the reference scrubber with the
    announced context), and the reasoning dropped, not delivered anywhere."""

    def events(self, events: Iterator[Event], context: Context) -> Iterator[Event | bytes]:
        for event in super().events(events, context):
            if not isinstance(event, bytes):
                delta = _delta(event)
                if delta.pop("reasoning_content", None) and not delta.get("content") \
                        and (_choice(event) or {}).get("finish_reason") is None:
                    continue
            yield event

    def completion(self, data: dict[str, Any], context: Context) -> dict[str, Any]:
        data = super().completion(data, context)
        data["choices"][0]["message"].pop("reasoning_content", None)
        return data


class MergeUntagged(Behaviour):
    """Writes the structured reasoning into content as plain text, no delimiters: no
    client can tell it from the answer."""

    def events(self, events: Iterator[Event], context: Context) -> Iterator[Event | bytes]:
        for event in events:
            delta = _delta(event)
            reasoning = delta.pop("reasoning_content", None) or delta.pop("reasoning", None)
            if reasoning:
                delta["content"] = reasoning
            yield event

    def completion(self, data: dict[str, Any], context: Context) -> dict[str, Any]:
        message = data["choices"][0]["message"]
        reasoning = message.pop("reasoning_content", None)
        if reasoning:
            message["content"] = reasoning + (message.get("content") or "")
        return data


class Hang(Behaviour):
    """Sends the first event, then nothing, and never ends the stream (until stopped); a
    non-streaming request gets no answer at all."""

    def events(self, events: Iterator[Event], context: Context) -> Iterator[Event | bytes]:
        yield next(events)
        self.stop.wait(120)

    def completion(self, data: dict[str, Any], context: Context) -> dict[str, Any]:
        self.stop.wait(120)
        return data


class Fail500(Behaviour):
    """HTTP 500 for every request whose model or scenario names `word`."""

    def __init__(self, word: str) -> None:
        super().__init__()
        self.word = word

    def refuse(self, headers: Any, body: dict[str, Any]) -> tuple[int, bytes, str] | None:
        if self.word in json.dumps([body.get("model"), body.get("scenario")]):
            return _error(500, "upstream connection pool exhausted")
        return None


class CheckKey(Behaviour):
    """401 unless the request carries `key`; the refusal echoes the key it got, as some
    gateways do, so the audit must keep it out of what it writes."""

    def __init__(self, key: str) -> None:
        super().__init__()
        self.key = key

    def refuse(self, headers: Any, body: dict[str, Any]) -> tuple[int, bytes, str] | None:
        given = (headers.get("Authorization") or "").removeprefix("Bearer ")
        if given != self.key:
            return _error(401, f"Incorrect API key provided: {given}")
        return None


class CheckHeader(Behaviour):
    """401 unless the request carries header `name` with `value` (a gateway's virtual key);
    then it echoes the value into each streamed answer, as a careless debug mode would,
    so the audit must keep it out of everything it writes."""

    def __init__(self, name: str, value: str) -> None:
        super().__init__()
        self.name, self.value = name, value

    def refuse(self, headers: Any, body: dict[str, Any]) -> tuple[int, bytes, str] | None:
        if headers.get(self.name) != self.value:
            return _error(401, f"missing or wrong {self.name}")
        return None

    def events(self, events: Iterator[Event], context: Context) -> Iterator[Event | bytes]:
        last = None
        for event in events:
            last = event
            if (_choice(event) or {}).get("finish_reason") is not None:
                yield _chunk_like(event, content=f" (routed with {self.value})")
            yield event
        assert last is not None


class EmptyCompletion(Behaviour):
    """Streams as sent; the non-streamed answer arrives with empty content."""

    def completion(self, data: dict[str, Any], context: Context) -> dict[str, Any]:
        data["choices"][0]["message"]["content"] = ""
        return data


class HtmlPage(Behaviour):
    """A web page instead of an API (a login wall, a wrong path on a web server)."""

    def refuse(self, headers: Any, body: dict[str, Any]) -> tuple[int, bytes, str] | None:
        return 200, b"<!DOCTYPE html><html><body><h1>Sign in</h1></body></html>", "text/html"


class JsonForStream(Behaviour):
    """Ignores `stream: true`: answers with the whole chat.completion as JSON."""

    stream_as_json = True


class BadJsonChunk(Behaviour):
    """Sends the first event, then a `data:` line that is not JSON, then [DONE]."""

    def events(self, events: Iterator[Event], context: Context) -> Iterator[Event | bytes]:
        yield next(events)
        yield b'data: {"choices": [{"delta": {"content": "oops"\n\n'


class Gateway(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, upstream: str, behaviour: Behaviour) -> None:
        self.upstream = upstream.rstrip("/")
        self.behaviour = behaviour
        self.client = httpx.Client(timeout=30)
        super().__init__(("127.0.0.1", 0), _Handler)

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host}:{port}/v1"

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that gave up (the audit's timeout) is expected; anything else not."""
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)

    def server_close(self) -> None:
        self.behaviour.stop.set()
        super().server_close()
        self.client.close()


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: Gateway

    def log_message(self, *args: object) -> None:
        pass

    def do_POST(self) -> None:  # noqa: N802
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
        behaviour = self.server.behaviour
        refusal = behaviour.refuse(self.headers, body)
        if refusal is not None:
            self._send(*refusal)
            return
        forward = {k: v for k, v in self.headers.items() if k.lower() == SCENARIO_HEADER}
        url = self.server.upstream + "/chat/completions"
        if body.get("stream") and not behaviour.stream_as_json:
            with self.server.client.stream("POST", url, json=body, headers=forward) as answer:
                self._stream(answer, behaviour)
            return
        answer = self.server.client.post(url, json={**body, "stream": False}, headers=forward)
        if answer.status_code != 200:
            self._send(answer.status_code, answer.content, "application/json")
            return
        data = behaviour.completion(copy.deepcopy(answer.json()), _context(answer))
        self._send(200, json.dumps(data).encode(), "application/json", answer.headers)

    def _send(self, status: int, body: bytes, kind: str,
              upstream: httpx.Headers | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self._relay_headers(upstream)
        self.end_headers()
        self.wfile.write(body)

    def _relay_headers(self, upstream: httpx.Headers | None) -> None:
        for name in (SCENARIO_HEADER, CONTEXT_HEADER):
            if upstream is not None and upstream.get(name):
                self.send_header(name, upstream[name])

    def _stream(self, answer: httpx.Response, behaviour: Behaviour) -> None:
        if answer.status_code != 200:
            self._send(answer.status_code, answer.read(), "application/json")
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self._relay_headers(answer.headers)
        self.end_headers()
        try:
            for item in behaviour.events(_events(answer), _context(answer)):
                self._chunk(item if isinstance(item, bytes) else
                            b"data: " + json.dumps(item).encode() + b"\n\n")
            if behaviour.done:
                self._chunk(b"data: [DONE]\n\n")
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    def _chunk(self, data: bytes) -> None:
        self.wfile.write(b"%X\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()


def _events(answer: httpx.Response) -> Iterator[Event]:
    """The upstream's events, split at blank lines on the bytes: a text line splitter
    (httpx's iter_lines, str.splitlines) also breaks at U+2028, which JSON strings carry
    raw, and cuts such a chunk in two."""
    pending = b""
    for part in answer.iter_bytes():
        pending += part
        *events, pending = pending.split(b"\n\n")
        for event in events:
            data = event.removeprefix(b"data:").strip()
            if data == b"[DONE]":
                return
            if data:
                yield json.loads(data)


def _context(answer: httpx.Response) -> Context:
    announced = parse_context_header(answer.headers.get(CONTEXT_HEADER))
    return context_from_dict(announced) if announced else Context()
