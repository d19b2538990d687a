"""Watch the raw bytes of a streamed response under the openai client.

The openai client stops iterating both at `data: [DONE]` and at a plain end of
the connection, and silently drops an event the connection cut in half. A
recorder must tell those apart, so this httpx transport passes every byte on
unchanged and remembers whether `[DONE]` arrived and what was left unfinished.
It reads response bytes only, never the request (which carries the API key).
"""

from __future__ import annotations

from collections.abc import Iterator

import httpx

_EVENT_END = (b"\n\n", b"\r\n\r\n", b"\r\r")


class Tap:
    """What one response body carried: bytes, [DONE], and an unfinished event at the end."""

    def __init__(self) -> None:
        self.bytes = 0
        self.done = False
        self.ended = False  # the body was read to its end
        self._pending = b""

    def feed(self, data: bytes) -> None:
        self.bytes += len(data)
        self._pending += data
        cut = max(self._pending.rfind(end) + len(end) if self._pending.rfind(end) >= 0 else 0
                  for end in _EVENT_END)
        if cut:
            finished, self._pending = self._pending[:cut], self._pending[cut:]
            if b"[DONE]" in finished:
                self.done = True

    @property
    def unfinished(self) -> bytes:
        """Bytes after the last complete event (an event the stream cut in half)."""
        return self._pending if self._pending.strip() else b""


class _TapStream(httpx.SyncByteStream):
    def __init__(self, inner: httpx.SyncByteStream, tap: Tap) -> None:
        self._inner = inner
        self._tap = tap

    def __iter__(self) -> Iterator[bytes]:
        for part in self._inner:
            self._tap.feed(part)
            yield part
        self._tap.ended = True

    def close(self) -> None:
        self._inner.close()


class TapTransport(httpx.BaseTransport):
    """An HTTP transport whose last response's body is watched by `self.tap`."""

    def __init__(self) -> None:
        self._inner = httpx.HTTPTransport()
        self.tap = Tap()

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        response = self._inner.handle_request(request)
        self.tap = Tap()
        assert isinstance(response.stream, httpx.SyncByteStream)
        return httpx.Response(response.status_code, headers=response.headers,
                              stream=_TapStream(response.stream, self.tap),
                              extensions=response.extensions, request=request)

    def close(self) -> None:
        self._inner.close()
