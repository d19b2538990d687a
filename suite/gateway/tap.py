"""Watch the raw bytes of a streamed response under the openai client.

The openai client stops iterating both at `data: [DONE]` and at a plain end of
the connection, and silently drops an event the connection cut in half. A
recorder must tell those apart, so this httpx transport passes every byte on
unchanged and remembers whether `[DONE]` arrived and what was left unfinished.
It reads response bytes only, never the request (which carries the API key).

It also holds each response to a wall-clock deadline: a read timeout bounds only
the gap between bytes, so a server that sends SSE comments (`: keep-alive`) or
trickles bytes that never finish an event would hold a request forever. When a
piece of the body arrives after the deadline, the read fails with
`OverBudget` (an httpx timeout, so every client treats it as one).
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator

import httpx

_EVENT_END = re.compile(rb"\r\n\r\n|\n\n|\r\r")
HEAD = 200


def _done_line(events: bytes) -> bool:
    """Whether whole events hold the end-of-stream line as the openai client reads it:
    `data:`, an optional space and data starting with [DONE], at the start of a line
    (the text `[DONE]` inside a delta is inside a JSON string, after other bytes)."""
    at = events.find(b"[DONE]")
    while at >= 0:
        for field in (b"data: ", b"data:"):
            start = at - len(field)
            if start >= 0 and events.startswith(field, start) and (
                    start == 0 or events[start - 1] in b"\r\n"):
                return True
        at = events.find(b"[DONE]", at + 1)
    return False


class Tap:
    """What one response body carried: bytes, [DONE], and an unfinished event at the end."""

    def __init__(self) -> None:
        self.bytes = 0
        self.done = False
        self.ended = False  # the body was read to its end
        self.head = b""  # the first HEAD bytes, to show a body that is not an event stream
        self._pending = b""

    def feed(self, data: bytes) -> None:
        """Take the next piece of the body. Only the new bytes are searched (an event end
        may straddle two pieces, so the last 3 bytes before them too), so a long body
        costs time in proportion to its length."""
        if len(self.head) < HEAD:
            self.head += data[:HEAD - len(self.head)]
        self.bytes += len(data)
        start = max(len(self._pending) - 3, 0)
        self._pending += data
        cut = 0
        for match in _EVENT_END.finditer(self._pending, start):
            cut = match.end()
        if cut:
            finished, self._pending = self._pending[:cut], self._pending[cut:]
            if not self.done and _done_line(finished):
                self.done = True

    @property
    def unfinished(self) -> bytes:
        """Bytes after the last complete event (an event the stream cut in half)."""
        return self._pending if self._pending.strip() else b""


class OverBudget(httpx.ReadTimeout):
    """The response was still arriving when its wall-clock budget ran out."""

    def __init__(self, budget: float) -> None:
        super().__init__(f"still arriving after the request's budget of {budget:g} s")
        self.budget = budget


class _TapStream(httpx.SyncByteStream):
    def __init__(self, inner: httpx.SyncByteStream, tap: Tap,
                 deadline: tuple[float, float] | None) -> None:
        self._inner = inner
        self._tap = tap
        self._deadline = deadline  # (monotonic time, budget) or None

    def __iter__(self) -> Iterator[bytes]:
        for part in self._inner:
            self._tap.feed(part)
            if self._deadline is not None and time.monotonic() > self._deadline[0]:
                raise OverBudget(self._deadline[1])
            yield part
        self._tap.ended = True

    def close(self) -> None:
        self._inner.close()


class TapTransport(httpx.BaseTransport):
    """An HTTP transport whose last response's body is watched by `self.tap`, each
    response due within `budget` seconds of its request (None: no deadline)."""

    def __init__(self, budget: float | None = None) -> None:
        self._inner = httpx.HTTPTransport()
        self.tap = Tap()
        self.budget = budget

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        began = time.monotonic()
        response = self._inner.handle_request(request)
        self.tap = Tap()
        assert isinstance(response.stream, httpx.SyncByteStream)
        deadline = None if self.budget is None else (began + self.budget, self.budget)
        return httpx.Response(response.status_code, headers=response.headers,
                              stream=_TapStream(response.stream, self.tap, deadline),
                              extensions=response.extensions, request=request)

    def close(self) -> None:
        self._inner.close()
