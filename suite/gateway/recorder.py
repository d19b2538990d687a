"""Record chat-completion streams through the official `openai` client (`gateway record`).

Recording goes through the client an agent builder's app uses, so the capture
shows what that app sees, while `tap` watches the raw bytes to tell a clean
end from a cut. Every chunk is kept with its arrival time the moment it is
parsed; a failure (HTTP error, error event, malformed JSON, cut connection,
timeout) ends the capture with an error and keeps every chunk before it. The
API key is passed to the client and nowhere else: it is redacted from any
message before the message is kept.

Which key: the variable named by `--api-key-env`; else `OPENAI_API_KEY`, but only
when the base URL is OpenAI's own API (a key minted by OpenAI is for OpenAI: a
user who points the recorder at a third-party gateway or a test server must not
hand it their OpenAI key unasked); else a placeholder, which only a server that
checks no key accepts. The user is told which variable was used, or why none
was, never the key.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from functools import cache
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpx
import openai
from openai.types.chat import ChatCompletionMessageParam

from scrubcheck.gateway.capture import Capture, CaptureError, Chunk
from scrubcheck.gateway.tap import OverBudget, Tap, TapTransport
from scrubcheck.gateway.wire import CONTEXT_HEADER, SCENARIO_HEADER, parse_context_header

#: Sent when no key is configured; the OpenAI client refuses an empty key.
NO_KEY = "scrubcheck-no-key"
REDACTED = "[redacted]"
#: The variable the openai client reads when it is given no key.
DEFAULT_KEY_ENV = "OPENAI_API_KEY"


class MissingKey(LookupError):
    """The variable the user named holds no key."""


#: The hosts whose key OPENAI_API_KEY is: the only ones it is sent to unasked.
OPENAI_HOSTS = frozenset({"api.openai.com"})


def is_openai(base_url: str | None) -> bool:
    """Whether `base_url` is OpenAI's own API over https (the key's owner)."""
    if not base_url:
        return False
    parts = urlsplit(base_url)
    return parts.scheme == "https" and (parts.hostname or "").lower() in OPENAI_HOSTS


def api_key(variable: str | None, base_url: str | None,
            environ: Mapping[str, str] = os.environ) -> tuple[str | None, str]:
    """(key or None for the placeholder, a sentence for the user naming where it came from).

    A variable the user named must hold a key (MissingKey otherwise) and is sent to
    `base_url`, whatever it is: the user asked. Unasked, OPENAI_API_KEY goes only to
    OpenAI's own API; anywhere else the placeholder goes out and the sentence says
    how to send a key. The key itself never appears in the sentence.
    """
    if variable:
        key = environ.get(variable)
        if not key:
            raise MissingKey(f"environment variable {variable} is not set or empty")
        return key, f"API key from {variable}"
    key = environ.get(DEFAULT_KEY_ENV)
    if key and is_openai(base_url):
        return key, (f"API key from {DEFAULT_KEY_ENV} (the base URL is OpenAI's own API; "
                     "--api-key-env VAR picks another variable)")
    placeholder = (f"sending the placeholder key {NO_KEY!r}, which only a server that "
                   "checks no key accepts; --api-key-env VAR sends the key held in VAR")
    if key:
        return None, (f"note: {DEFAULT_KEY_ENV} is set but is not sent to "
                      f"{public_url(base_url or '')}, which is not OpenAI's own API; "
                      + placeholder)
    return None, f"warning: no API key: no --api-key-env was given; {placeholder}"


def public_url(url: str) -> str:
    """`url` without user, password, query or fragment: what may be written down."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if parts.port:
        host = f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, host, parts.path, "", ""))


def redact(text: str, secret: str | tuple[str, ...] | None) -> str:
    """`text` with each secret (of 4 characters or more) replaced by [redacted]."""
    for one in (secret,) if isinstance(secret, str) or secret is None else secret:
        if one and len(one) >= 4:
            text = text.replace(one, REDACTED)
    return text


class Recorder:
    """One openai client for many recordings against one base URL (a client is costly
    to build: its HTTP transport loads TLS certificates). `timeout` bounds the wait for
    the next bytes, `budget` (wall clock, None for none) a whole request: a server
    sending keep-alive comments or a byte at a time never trips a read timeout.
    `secrets` (header values from the environment) are redacted as the key is, and
    no request header value is kept in a capture."""

    def __init__(self, base_url: str, *, api_key: str | None = None,
                 timeout: float = 120.0, budget: float | None = None,
                 secrets: tuple[str, ...] = ()) -> None:
        self.base_url = base_url
        self.timeout = timeout
        self.budget = budget
        self._secrets = tuple(s for s in (api_key, *secrets) if s)
        self._transport = TapTransport(budget)
        gap = timeout if budget is None else min(timeout, budget)
        self._client = openai.OpenAI(
            base_url=base_url, api_key=api_key or NO_KEY, max_retries=0,
            default_headers={"Accept-Encoding": "identity"},  # the tap must see plain bytes
            # openai 3 annotates an httpx2.Client and still takes an httpx one (its
            # is_legacy_httpx_sync_client), whose transport the tap is
            http_client=httpx.Client(  # type: ignore[arg-type, unused-ignore]
                transport=self._transport, timeout=gap))

    def __enter__(self) -> Recorder:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._client.close()

    def record(self, model: str, messages: Sequence[ChatCompletionMessageParam], *, name: str,
               extra_body: dict[str, Any] | None = None,
               headers: dict[str, str] | None = None) -> Capture:
        """Stream one chat completion and return its capture (never raises for the
        stream's own failures: they become the capture's `error`). `headers` are sent
        with the request and kept in the capture (they route, they carry no key)."""
        capture = self._capture(name, model, messages, extra_body, headers, stream=True)
        start = time.monotonic()
        try:
            _stream(self._client, capture, model, messages, extra_body, headers, start)
        except Exception as exc:  # every failure of the stream is data; see _failure
            capture.error = _failure(exc, capture, self.timeout)
            if capture.error is None:
                raise
        finally:
            capture.duration_s = time.monotonic() - start
        _judge_end(capture, self._transport.tap)
        _redact_capture(capture, self._secrets)
        return capture

    def complete(self, model: str, messages: Sequence[ChatCompletionMessageParam], *, name: str,
                 extra_body: dict[str, Any] | None = None,
                 headers: dict[str, str] | None = None) -> Capture:
        """Ask for the same completion without streaming. The capture holds one chunk:
        the message's channels whole and the finish_reason (`request.stream` is false,
        and `done` stays false: no `[DONE]` line ends a plain response)."""
        capture = self._capture(name, model, messages, extra_body, headers, stream=False)
        start = time.monotonic()
        try:
            _complete(self._client, capture, model, messages, extra_body, headers, start)
        except Exception as exc:  # as in record(): failures are data
            capture.error = _failure(exc, capture, self.timeout)
            if capture.error is None:
                raise
        finally:
            capture.duration_s = time.monotonic() - start
        _redact_capture(capture, self._secrets)
        return capture

    def _capture(self, name: str, model: str, messages: Sequence[ChatCompletionMessageParam],
                 extra_body: dict[str, Any] | None, headers: dict[str, str] | None,
                 *, stream: bool) -> Capture:
        capture = Capture(name=name, source="record", request={
            "base_url": public_url(self.base_url), "model": model, "messages": messages,
            **({"extra_body": extra_body} if extra_body else {}),
            **({"headers": {k: REDACTED for k in headers}} if headers else {}),
            **({} if stream else {"stream": False})})
        capture.started_at = datetime.now(UTC).isoformat(timespec="milliseconds")
        return capture


def record(base_url: str, model: str, messages: Sequence[ChatCompletionMessageParam], *, name: str,
           api_key: str | None = None, extra_body: dict[str, Any] | None = None,
           timeout: float = 120.0) -> Capture:
    """Record one stream with a client of its own."""
    with Recorder(base_url, api_key=api_key, timeout=timeout) as recorder:
        return recorder.record(model, messages, name=name, extra_body=extra_body)


def _failure(exc: Exception, capture: Capture, timeout: float) -> CaptureError | None:
    """The capture error for an exception of the client, or None for a bug of ours."""
    kept = f"{len(capture.chunks)} chunks kept"
    over = exc if isinstance(exc, OverBudget) else exc.__cause__
    if isinstance(over, OverBudget):
        return CaptureError("timeout", f"the response was still arriving after the "
                            f"request's wall-clock budget of {over.budget:g} s (keep-alive "
                            f"comments or a trickle of bytes); {kept}")
    if isinstance(exc, openai.APIStatusError):
        capture.response["status"] = exc.status_code
        body = exc.body
        said = body.get("message") if isinstance(body, dict) else None
        return CaptureError("http", f"HTTP {exc.status_code}: "
                            f"{said if isinstance(said, str) else exc.message}", exc.status_code)
    if isinstance(exc, openai.APITimeoutError | httpx.TimeoutException):
        return CaptureError("timeout", f"no data within {timeout:g} s; {kept}")
    if isinstance(exc, openai.APIConnectionError):
        cause = exc.__cause__ or exc
        # Newer clients wrap a connection that broke mid-stream the same way as one
        # that never opened; only the cause tells them apart.
        if isinstance(cause, httpx.TransportError) and not isinstance(cause, httpx.ConnectError):
            return _cut(capture, cause)
        return CaptureError("connection", f"cannot reach the server: "
                            f"{type(cause).__name__}: {cause}")
    if isinstance(exc, openai.APIError):  # an error event inside the stream
        return CaptureError("stream", f"the server sent an error event: {exc.message}; {kept}")
    if isinstance(exc, json.JSONDecodeError):
        return CaptureError("malformed", f"malformed JSON in a data: line after "
                            f"{len(capture.chunks)} chunks ({exc.msg}, column {exc.colno}: "
                            f"{exc.doc[:60]!r}); {kept}")
    if isinstance(exc, httpx.TransportError):
        return _cut(capture, exc)
    return None


def _cut(capture: Capture, exc: Exception) -> CaptureError:
    return CaptureError("cut", f"the connection broke mid-stream after "
                        f"{len(capture.chunks)} chunks ({type(exc).__name__}: {exc})")


def _note_headers(capture: Capture, status: int, headers: Mapping[str, str]) -> None:
    """The response facts a capture keeps: status, content type, what a scrubcheck
    replay server announced."""
    capture.response["status"] = status
    if headers.get("content-type"):
        capture.response["content_type"] = headers["content-type"]
    if headers.get(SCENARIO_HEADER):
        capture.response["scenario"] = headers[SCENARIO_HEADER]
    announced = parse_context_header(headers.get(CONTEXT_HEADER))
    if announced is not None:
        capture.response["scrubcheck_context"] = announced


def _stream(client: openai.OpenAI, capture: Capture, model: str,
            messages: Sequence[ChatCompletionMessageParam], extra_body: dict[str, Any] | None,
            headers: dict[str, str] | None, start: float) -> None:
    stream = client.chat.completions.create(model=model, messages=messages,
                                            stream=True, extra_body=extra_body,
                                            extra_headers=headers)
    _note_headers(capture, stream.response.status_code, stream.response.headers)
    wanted = [key for key in ("id", "model", "system_fingerprint")
              if key not in capture.response]  # each from the first chunk that has it
    with stream:
        for event in stream:
            t = time.monotonic() - start
            if wanted:
                for key in list(wanted):
                    value = getattr(event, key, None)
                    if isinstance(value, str):
                        capture.response[key] = value
                        wanted.remove(key)
            chunk = _chunk(event, t)
            if chunk is not None:
                capture.chunks.append(chunk)


def _complete(client: openai.OpenAI, capture: Capture, model: str,
              messages: Sequence[ChatCompletionMessageParam], extra_body: dict[str, Any] | None,
              headers: dict[str, str] | None, start: float) -> None:
    raw = client.chat.completions.with_raw_response.create(
        model=model, messages=messages, extra_body=extra_body, extra_headers=headers)
    _note_headers(capture, raw.status_code, raw.headers)
    kind = raw.headers.get("content-type", "")
    if "json" not in kind:
        capture.error = CaptureError("malformed", f"the server answered Content-Type "
                                     f"{kind or 'none'!r}, not JSON; the body starts "
                                     f"{raw.text[:80]!r}")
        return
    try:
        completion = raw.parse()
    except (ValueError, TypeError) as exc:  # json.JSONDecodeError and pydantic's errors
        capture.error = CaptureError("malformed", f"the body is not a chat.completion "
                                     f"({type(exc).__name__}: {str(exc)[:160]}); the body "
                                     f"starts {raw.text[:80]!r}")
        return
    for key in ("id", "model", "system_fingerprint"):
        value = getattr(completion, key, None)
        if isinstance(value, str):
            capture.response[key] = value
    choice = next((c for c in completion.choices or () if getattr(c, "index", 0) == 0), None)
    if choice is None or choice.message is None:
        capture.error = CaptureError("malformed", "the completion has no choice 0 with a "
                                     "message")
        return
    content, reasoning_content, reasoning, role = _texts(choice.message)
    finish = choice.finish_reason if isinstance(choice.finish_reason, str) else None
    capture.chunks.append(Chunk(t=time.monotonic() - start, content=content,
                                reasoning_content=reasoning_content, reasoning=reasoning,
                                role=role, finish_reason=finish))


def _chunk(event: Any, t: float) -> Chunk | None:
    choice = next((c for c in event.choices or () if getattr(c, "index", 0) == 0), None)
    if choice is None:
        return None  # a usage-only chunk
    finish = getattr(choice, "finish_reason", None)
    finish = finish if isinstance(finish, str) else None
    delta = choice.delta
    if delta is None:
        return Chunk(t=t, finish_reason=finish)
    content, reasoning_content, reasoning, role = _texts(delta)
    tools = getattr(delta, "tool_calls", None)
    return Chunk(t=t, content=content, reasoning_content=reasoning_content,
                 reasoning=reasoning, role=role, finish_reason=finish,
                 tool_calls=[tc.model_dump(exclude_none=True) for tc in tools] if tools
                 else None)


_TEXT_FIELDS = ("content", "reasoning_content", "reasoning", "role")


def _texts(delta: Any) -> list[str | None]:
    """The text fields of a parsed delta, declared or not: the client does not declare
    `reasoning_content` or `reasoning` and keeps them among the model's extras. (Asking
    getattr for an absent extra costs an AttributeError, most of a chunk's own cost.)"""
    kind: type = type(delta)
    declared = _declared(kind)
    extra = getattr(delta, "model_extra", None) or {}
    values = [getattr(delta, name, None) if name in declared else extra.get(name)
              for name in _TEXT_FIELDS]
    return [value if isinstance(value, str) else None for value in values]


@cache
def _declared(cls: type) -> frozenset[str]:
    return frozenset(getattr(cls, "model_fields", ()))


def _judge_end(capture: Capture, tap: Tap) -> None:
    capture.done = tap.done
    if capture.error is not None or capture.response.get("status") != 200:
        return
    kind = capture.response.get("content_type", "")
    if not capture.chunks and not tap.done and not kind.startswith("text/event-stream"):
        shown = tap.head[:80].decode("utf-8", "replace")
        capture.error = CaptureError("malformed", f"the server answered Content-Type "
                                     f"{kind or 'none'!r}, not text/event-stream, and no "
                                     f"chunk; the body starts {shown!r}")
    elif tap.unfinished:
        shown = tap.unfinished[:60].decode("utf-8", "replace")
        capture.error = CaptureError("cut", f"the stream ended inside an event after "
                                     f"{len(capture.chunks)} chunks: {shown!r}")
    elif not tap.done and capture.finish_reason is None:
        capture.error = CaptureError("cut", f"the stream ended after {len(capture.chunks)} "
                                     "chunks without a finish_reason or data: [DONE]")


def _redact_capture(capture: Capture, secrets: tuple[str, ...]) -> None:
    """Keep the key and secret header values out of the capture even if a server echoed
    them back."""
    secret = tuple(s for s in secrets if len(s) >= 4)
    if not secret:
        return
    if capture.error is not None:
        capture.error = CaptureError(capture.error.kind, redact(capture.error.message, secret),
                                     capture.error.status)
    capture.request = _redact_value(capture.request, secret)
    capture.response = _redact_value(capture.response, secret)
    capture.chunks = [Chunk.from_dict(_redact_value(c.to_dict(), secret))
                      if any(s in json.dumps(c.to_dict(), ensure_ascii=False) for s in secret)
                      else c for c in capture.chunks]


def _redact_value(value: Any, secret: tuple[str, ...]) -> Any:
    if isinstance(value, str):
        return redact(value, secret)
    if isinstance(value, dict):
        return {k: _redact_value(v, secret) for k, v in value.items()}
    if isinstance(value, list):
        return [_redact_value(v, secret) for v in value]
    return value
