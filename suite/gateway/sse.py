"""Server-sent events as OpenAI frames them: writing them, and importing saved ones.

OpenAI sends each chunk as `data: {json}` followed by a blank line and ends
with `data: [DONE]`. Other tools (curl logs, proxies, browser dev tools) save
that text; `capture_from_sse` turns it into a capture, keeping every chunk
parsed before a problem and saying where the problem is. Lines are split on
CR, LF and CRLF only, as the SSE standard says (not on U+2028, which JSON
strings may carry raw).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from scrubcheck.gateway.capture import Capture, CaptureError
from scrubcheck.gateway.wire import chunk_from_object

DONE = b"data: [DONE]\n\n"
_LINES = re.compile(r"\r\n|\r|\n")


def encode_event(data: dict[str, Any]) -> bytes:
    """One `data:` event. Text stays UTF-8 as OpenAI sends it; a chunk holding a lone
    surrogate (not encodable) is sent with JSON escapes instead, which decode the same."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    try:
        body = text.encode("utf-8")
    except UnicodeEncodeError:
        body = json.dumps(data, ensure_ascii=True, separators=(",", ":")).encode("ascii")
    return b"data: " + body + b"\n\n"


@dataclass(frozen=True)
class Event:
    data: str
    event: str | None
    line: int  # line of the event's first data field, 1-based
    terminated: bool  # a blank line ended it (False: the text ended first)


def iter_events(text: str) -> Iterator[Event]:
    """The events of SSE text, per the standard: data fields joined by LF, comments
    skipped, an event dispatched at a blank line (or at the end of the text)."""
    data: list[str] = []
    event: str | None = None
    first_line = 0
    lines = _LINES.split(text)
    if lines and lines[-1] == "":
        lines.pop()
    for number, line in enumerate(lines, start=1):
        if line == "":
            if data:
                yield Event("\n".join(data), event, first_line, True)
            data, event = [], None
            continue
        if line.startswith(":"):
            continue
        name, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if name == "data":
            if not data:
                first_line = number
            data.append(value)
        elif name == "event":
            event = value
    if data:
        yield Event("\n".join(data), event, first_line, False)


def _decode(event: Event) -> list[Any]:
    """The JSON values of an event. A tool that saved `data:` lines without blank lines
    between them makes one event of many lines; each line is then a value of its own."""
    try:
        return [json.loads(event.data)]
    except json.JSONDecodeError:
        parts = event.data.split("\n")
        if len(parts) == 1:
            raise
        values = []
        for part in parts:
            if part.strip() == "[DONE]":
                values.append("[DONE]")
            else:
                values.append(json.loads(part))
        return values


def capture_from_sse(text: str, name: str, label: str = "<text>") -> Capture:
    """A capture of saved SSE text; a problem stops the import and is recorded as the
    capture's error, with everything before it kept. Timing is unknown (t = 0)."""
    capture = Capture(name=name, source="sse-import")
    events = list(iter_events(text))
    if not events:
        capture.error = CaptureError("malformed", f"{label}: no `data:` lines found")
        return capture
    for event in events:
        if event.data.strip() == "[DONE]":
            capture.done = True
            break
        try:
            values = _decode(event)
        except json.JSONDecodeError as exc:
            kind = "malformed" if event.terminated else "cut"
            what = "malformed JSON" if event.terminated else "the text ends inside an event"
            capture.error = CaptureError(kind, f"{label}:{event.line}: {what} in a data: "
                                         f"line ({exc.msg}, column {exc.colno}); "
                                         f"{len(capture.chunks)} chunks kept")
            return capture
        if _take(capture, values, event, label):
            return capture
    return capture


def _take(capture: Capture, values: list[Any], event: Event, label: str) -> bool:
    """Add the chunks of one event; True when the stream ended (done or an error)."""
    for value in values:
        if value == "[DONE]":
            capture.done = True
            return True
        if isinstance(value, dict) and value.get("error"):
            error = value["error"]
            message = error.get("message") if isinstance(error, dict) else str(error)
            capture.error = CaptureError("stream", f"{label}:{event.line}: the server sent "
                                         f"an error event: {message}")
            return True
        try:
            chunk = chunk_from_object(value)
        except ValueError as exc:
            capture.error = CaptureError("malformed", f"{label}:{event.line}: {exc}")
            return True
        _note_response(capture, value)
        if chunk is not None:
            capture.chunks.append(chunk)
    return False


def _note_response(capture: Capture, value: dict[str, Any]) -> None:
    for key in ("id", "model", "system_fingerprint"):
        if key not in capture.response and isinstance(value.get(key), str):
            capture.response[key] = value[key]
