"""An OpenAI-compatible server that replays scenarios and captures (`gateway serve`).

Endpoints: `POST /v1/chat/completions` (streaming and not), `GET /v1/models`
and `GET /v1/models/{id}`; the `/v1` prefix is optional. Streams go out as
OpenAI sends them, over HTTP/1.1 chunked transfer: one `data: {json}` event
per recorded chunk, so a client sees the recorded chunk boundaries; then
`data: [DONE]`. With a chunk delay each event is its own HTTP chunk, sent the
moment it is due. Without one, whole events are gathered into HTTP chunks of
about WRITE_BUFFER bytes, one write each: a send per event costs a system call
and a read on each side, and made long streams crawl. Each response names what
it plays in the `x-scrubcheck-scenario` header and the stream context in
`x-scrubcheck-context` (see `scrubcheck.gateway.wire`). Errors are OpenAI
error objects, so clients raise their usual exceptions. Binds to loopback
unless told otherwise.

The stream is chosen by the `x-scrubcheck-scenario` request header, else the
body's `scenario` field, else the model (see `replay.py`); a `:native` suffix
plays the scenario with its reasoning on `reasoning_content` and a provider
prefix a gateway adds (`openai/ID`) is ignored (see `upstream.py`).
"""

from __future__ import annotations

import json
import socket
import sys
import threading
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, TypeVar

from scrubcheck.gateway.capture import Chunk
from scrubcheck.gateway.replay import Catalog, Replay
from scrubcheck.gateway.sse import DONE, encode_event
from scrubcheck.gateway.upstream import resolve
from scrubcheck.gateway.wire import (
    CONTEXT_HEADER,
    SCENARIO_HEADER,
    chunk_object,
    completion_object,
    context_header,
    error_object,
)

LOOPBACK = "127.0.0.1"
MAX_BODY = 8 * 1024 * 1024
#: Without a chunk delay, events are gathered into writes of about this many bytes.
WRITE_BUFFER = 64 * 1024


class ReplayServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, catalog: Catalog, host: str = LOOPBACK, port: int = 0, *,
                 chunk_delay: float = 0.0, log: bool = False) -> None:
        self.catalog = catalog
        self.chunk_delay = chunk_delay
        self.log = log
        #: requests by the name they asked for (`unknown:NAME` when nothing matched)
        self.requests: Counter[str] = Counter()
        self._count_lock = threading.Lock()
        super().__init__((host, port), _Handler)

    def count(self, name: str, replay: Replay | None) -> None:
        """Note a request: an audit tells a gateway that never reached its upstream from
        one that got an answer it did not like."""
        with self._count_lock:
            self.requests[name if replay is not None else f"unknown:{name}"] += 1

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that hangs up (the openai client closes a stream's connection after
        [DONE] without reading on) is normal; anything else is reported."""
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)

    @property
    def url(self) -> str:
        """The base URL to give an OpenAI client (ends in /v1)."""
        host, port = self.server_address[:2]
        if isinstance(host, bytes | bytearray):  # the socket module's other spelling
            host = host.decode()
        return f"http://{host}:{port}/v1"


_S = TypeVar("_S", bound=ThreadingHTTPServer)


@contextmanager
def running(server: _S) -> Iterator[_S]:
    """Serve in a background thread for the duration of the block (any HTTP server)."""
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05},
                              name="scrubcheck-replay", daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: ReplayServer

    def setup(self) -> None:
        super().setup()
        # Each chunk must leave when written (a client sees the recorded boundaries in
        # real time), and Nagle's algorithm would hold small writes for an ACK.
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - base signature
        if self.server.log:
            sys.stderr.write(f"{self.address_string()} {format % args}\n")

    # ------------------------------------------------------------ routing
    def _path(self) -> str:
        path = self.path.split("?", 1)[0].rstrip("/")
        return path[3:] if path.startswith("/v1/") or path == "/v1" else path

    def do_GET(self) -> None:  # noqa: N802 - http.server naming
        path = self._path()
        if path == "/models":
            data = [_model(m) for m in self.server.catalog.model_ids()]
            self._json(200, {"object": "list", "data": data})
        elif path.startswith("/models/") and path[8:] in self.server.catalog:
            self._json(200, _model(path[8:]))
        elif path.startswith("/models/"):
            self._unknown_model(path[8:])
        else:
            self._not_found()

    def do_POST(self) -> None:  # noqa: N802 - http.server naming
        if self._path() != "/chat/completions":
            self._drain()
            self._not_found()
            return
        body = self._body()
        if body is None:
            return
        model = body.get("model")
        if not isinstance(model, str) or not model:
            self._json(400, error_object("you must provide a model parameter", param="model"))
            return
        scenario = self.headers.get(SCENARIO_HEADER) or body.get("scenario")
        chosen = scenario if isinstance(scenario, str) and scenario else None
        replay = resolve(self.server.catalog, model, chosen)
        self.server.count(chosen or model, replay)
        if replay is None:
            self._unknown_model(chosen or model)
            return
        if body.get("stream") is True:
            options = body.get("stream_options") or {}
            usage = isinstance(options, dict) and options.get("include_usage") is True
            self._stream(replay, model, usage)
        else:
            self._complete(replay, model)

    # ---------------------------------------------------------- responses
    def _body(self) -> dict[str, Any] | None:
        length = int(self.headers.get("Content-Length") or 0)
        if length > MAX_BODY:
            self.close_connection = True
            self._json(413, error_object("request body too large"))
            return None
        raw = self.rfile.read(length)
        try:
            body = json.loads(raw or b"null")
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            self._json(400, error_object(f"request body is not valid JSON: {exc}"))
            return None
        if not isinstance(body, dict):
            self._json(400, error_object("request body must be a JSON object"))
            return None
        return body

    def _drain(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        if 0 < length <= MAX_BODY:
            self.rfile.read(length)

    def _unknown_model(self, name: str) -> None:
        self._json(404, error_object(
            f"The model `{name}` does not exist: ask for a scenario id, area:NAME or "
            "capture:NAME, a scenario or area with :native for its native shape "
            "(GET /v1/models lists them)", param="model", code="model_not_found"))

    def _not_found(self) -> None:
        self._json(404, error_object(f"no route {self.command} {self.path}",
                                     code="unknown_url"))

    def _replay_headers(self, replay: Replay) -> None:
        if replay.scenario:
            self.send_header(SCENARIO_HEADER, replay.scenario)
        if replay.context is not None:
            self.send_header(CONTEXT_HEADER, context_header(replay.context))

    def _json(self, status: int, data: dict[str, Any], replay: Replay | None = None) -> None:
        body = json.dumps(data, ensure_ascii=True).encode("ascii")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        if replay is not None:
            self._replay_headers(replay)
        self.end_headers()
        self.wfile.write(body)

    def _complete(self, replay: Replay, model: str) -> None:
        data = completion_object(list(replay.chunks), completion_id=_completion_id(),
                                 model=model, created=int(time.time()))
        self._json(200, data, replay)

    def _stream(self, replay: Replay, model: str, usage: bool) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream; charset=utf-8")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self._replay_headers(replay)
        self.end_headers()
        ident, created = _completion_id(), int(time.time())
        delay = self.server.chunk_delay
        out = _ChunkedWriter(self.wfile, WRITE_BUFFER if not delay else 0)
        try:
            for chunk in replay.chunks:
                if delay:
                    time.sleep(delay)
                out.write(encode_event(
                    chunk_object(chunk, completion_id=ident, model=model, created=created)))
            if usage:
                out.write(encode_event(_usage_chunk(replay.chunks, ident, model, created)))
            out.write(DONE)
            out.close()
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True  # the client went away mid-stream


class _ChunkedWriter:
    """HTTP/1.1 chunked framing over a socket file. Whole events are gathered until
    `buffer` bytes are waiting, then go out as one HTTP chunk in one write; with a
    buffer of 0 each event is its own HTTP chunk, written and flushed at once."""

    def __init__(self, wfile: Any, buffer: int) -> None:
        self._wfile = wfile
        self._buffer = buffer
        self._parts: list[bytes] = []
        self._size = 0

    def write(self, event: bytes) -> None:
        self._parts.append(event)
        self._size += len(event)
        if self._size >= self._buffer:
            self._send()

    def close(self) -> None:
        """Send what is waiting and the last (empty) chunk, in one write."""
        self._send(b"0\r\n\r\n")

    def _send(self, tail: bytes = b"") -> None:
        data = b"".join(self._parts)
        self._parts, self._size = [], 0
        self._wfile.write((b"%X\r\n%s\r\n" % (len(data), data) if data else b"") + tail)
        self._wfile.flush()


def _model(name: str) -> dict[str, Any]:
    return {"id": name, "object": "model", "created": 0, "owned_by": "scrubcheck"}


def _completion_id() -> str:
    return f"chatcmpl-{uuid.uuid4().hex[:24]}"


def _usage_chunk(chunks: tuple[Chunk, ...], ident: str, model: str,
                 created: int) -> dict[str, Any]:
    count = sum(1 for c in chunks if c.content is not None)
    return {"id": ident, "object": "chat.completion.chunk", "created": created, "model": model,
            "system_fingerprint": None, "choices": [],
            "usage": {"prompt_tokens": 0, "completion_tokens": count, "total_tokens": count}}
