"""The scrubcheck peer protocol (v1), served over stdin/stdout: the Python side.

A peer's adapter program runs inside the peer's own environment, which does not
have scrubcheck installed, so this file is standalone (standard library only)
and adapter programs load it by path:

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from peerloop import serve
    serve(open_stream, kind="stream", package="hermes-agent")

`open_stream(context)` builds one scrubber object for one stream: it gets the
context as a dict (`starts_in_reasoning`, `inline_answer`, `finish_reason`,
`features`, `may_skip_reasoning`, `delimiters`) and returns an object with
`feed(delta)` and `flush()`. For the
batch kinds it returns a function of the whole text instead, and the loop
buffers the deltas. Splitter kinds return `(reasoning, answer)` pairs; the
loop sends the answer as the output and keeps the reasoning channel apart.
Everything the scrubber returns or raises is reported, never trusted: see
docs/protocol.md for the messages.
"""

from __future__ import annotations

import json
import os
import sys
import time
import traceback
from importlib import metadata

PROTOCOL = 1
KINDS = ("stream", "batch", "stream-splitter", "batch-splitter")
_SELF = __file__


def _claim_stdout():
    """Keep file descriptor 1 for protocol lines only: whatever the peer's package
    prints (at import or later, from Python or C) goes to stderr instead."""
    sys.stdout.flush()
    protocol = os.fdopen(os.dup(1), "w", encoding="utf-8", newline="\n")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return protocol


# Done at import: adapter programs import this module before the peer's package.
_PROTOCOL_OUT = _claim_stdout() if __name__ != "__main__" and not os.environ.get(
    "SCRUBCHECK_PEERLOOP_IMPORT_ONLY") else sys.stdout


class _Buffered:
    """A batch function driven as a stream: feed() keeps, flush() calls it once."""

    def __init__(self, func):
        self._func = func
        self._parts = []

    def feed(self, delta):
        self._parts.append(delta)
        return ""

    def flush(self):
        text = "".join(self._parts)
        self._parts = []
        return self._func(text)


def encode(value):
    """A return value as JSON: str and None as they are, anything else described."""
    if value is None or isinstance(value, str):
        return value
    try:
        shown = repr(value)
    except Exception as exc:  # noqa: BLE001 - a repr that raises is still reported
        shown = f"<repr raised {type(exc).__name__}>"
    if isinstance(value, bytes | bytearray):
        text = bytes(value).decode("utf-8", "replace")
    else:
        try:
            text = str(value)
        except Exception:  # noqa: BLE001
            text = ""
    return {"nonstr": {"type": type(value).__name__, "repr": shown[:200], "text": text}}


def raised(exc, call, step):
    """An exception as the protocol reports it, without this loop's own frames."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename != _SELF]
    where = f"{frames[-1].filename.rsplit('/', 1)[-1]}:{frames[-1].lineno} in {frames[-1].name}" \
        if frames else ""
    text = "".join(traceback.format_list(frames[-6:]))
    text += "".join(traceback.format_exception_only(type(exc), exc))
    return {"call": call, "step": step, "type": type(exc).__name__, "message": str(exc)[:300],
            "where": where, "traceback": text}


class Loop:
    """Request handling; `serve` wires it to stdin and stdout."""

    def __init__(self, open_stream, kind, package=None, version=None):
        if kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}, not {kind!r}")
        self.open_stream = open_stream
        self.kind = kind
        self.package = package
        self.version = version
        self.streams = {}  # stream id -> scrubber object (kept across flushes: reuse)

    # -- one scrubber object --------------------------------------------------
    def build(self, context):
        made = self.open_stream(context)
        return _Buffered(made) if self.kind.startswith("batch") else made

    def call(self, obj, method, arg):
        """(output, reasoning) of one feed or flush."""
        value = obj.feed(arg) if method == "feed" else obj.flush()
        if self.kind.endswith("splitter") and isinstance(value, tuple | list) \
                and len(value) == 2:
            reasoning, value = value
            reasoning = "" if reasoning is None else reasoning
            return encode(value), reasoning if isinstance(reasoning, str) else str(reasoning)
        return encode(value), ""

    def run_one(self, obj, deltas, flush):
        returns, reasoning = [], []
        for step, delta in enumerate(deltas):
            try:
                output, channel = self.call(obj, "feed", delta)
            except Exception as exc:  # noqa: BLE001 - the scrubber's failure is data
                return {"returns": returns, "reasoning": reasoning,
                        "raised": raised(exc, "feed", step)}
            returns.append(output)
            reasoning.append(channel)
        if flush:
            try:
                output, channel = self.call(obj, "flush", None)
            except Exception as exc:  # noqa: BLE001
                return {"returns": returns, "reasoning": reasoning,
                        "raised": raised(exc, "flush", None)}
            returns.append(output)
            reasoning.append(channel)
        return {"returns": returns, "reasoning": reasoning, "raised": None}

    # -- operations -------------------------------------------------------------
    def op_hello(self, request):
        version = self.version
        if version is None and self.package:
            try:
                version = metadata.version(self.package)
            except metadata.PackageNotFoundError:
                version = None
        return {"protocol": PROTOCOL, "kind": self.kind, "package": self.package,
                "version": version, "language": "python " + sys.version.split()[0],
                "ops": ["streams"]}

    def op_start(self, request):
        try:
            self.streams[request["stream"]] = self.build(request.get("context") or {})
        except Exception as exc:  # noqa: BLE001
            return {"raised": raised(exc, "open", None)}
        return {"raised": None}

    def _single(self, request, method):
        obj = self.streams.get(request["stream"])
        if obj is None:
            raise KeyError(f"no stream {request['stream']!r}: send start first")
        try:
            output, channel = self.call(obj, method, request.get("delta"))
        except Exception as exc:  # noqa: BLE001
            step = request.get("step") if method == "feed" else None
            return {"raised": raised(exc, method, step)}
        return {"output": output, "reasoning": channel, "raised": None}

    def op_feed(self, request):
        return self._single(request, "feed")

    def op_flush(self, request):
        return self._single(request, "flush")

    def op_close(self, request):
        self.streams.pop(request["stream"], None)
        return {}

    def op_run(self, request):
        stream = request.get("stream")
        obj = self.streams.get(stream) if stream is not None else None
        if obj is None:
            try:
                obj = self.build(request.get("context") or {})
            except Exception as exc:  # noqa: BLE001
                return {"runs": [{"returns": [], "reasoning": [],
                                  "raised": raised(exc, "open", None)}]}
            if stream is not None:
                self.streams[stream] = obj
        runs = []
        for run in request["runs"]:
            runs.append(self.run_one(obj, run["deltas"], run.get("flush", True)))
            if runs[-1]["raised"] is not None:
                break
        return {"runs": runs}

    def op_streams(self, request):
        """Several independent streams in one round trip, each on a fresh object built with
        the one `context`, flushed: the harness's batched fast path (announced in hello)."""
        results = []
        for deltas in request["streams"]:
            try:
                obj = self.build(request.get("context") or {})
            except Exception as exc:  # noqa: BLE001
                results.append({"returns": [], "reasoning": [],
                                "raised": raised(exc, "open", None)})
                continue
            results.append(self.run_one(obj, deltas, True))
        return {"runs": results}

    def op_time(self, request):
        """CPU seconds to scrub `text` in `size`-character deltas, measured in this process
        (R-ROBUST-2 must time the peer, not the pipe)."""
        try:
            obj = self.build(request.get("context") or {})
        except Exception as exc:  # noqa: BLE001
            return {"raised": raised(exc, "open", None)}
        text, size, budget = request["text"], request["size"], request.get("budget")
        start = time.process_time()
        try:
            for count, i in enumerate(range(0, len(text), size)):
                obj.feed(text[i:i + size])
                if budget is not None and count % 1024 == 0 \
                        and time.process_time() - start > budget:
                    return {"seconds": time.process_time() - start, "abandoned": True,
                            "raised": None}
            obj.flush()
        except Exception as exc:  # noqa: BLE001
            return {"raised": raised(exc, "feed", None)}
        return {"seconds": time.process_time() - start, "abandoned": False, "raised": None}

    def handle(self, request):
        """One request object -> one response object (never raises)."""
        rid = request.get("id") if isinstance(request, dict) else None
        try:
            for stream in request.get("close") or ():
                self.streams.pop(stream, None)
            method = getattr(self, "op_" + str(request.get("op")), None)
            if method is None:
                raise ValueError(f"unknown op {request.get('op')!r}")
            response = method(request)
        except Exception as exc:  # noqa: BLE001 - a bad request is answered, not fatal
            return {"id": rid, "ok": False,
                    "error": {"type": type(exc).__name__, "message": str(exc)}}
        response.update(id=rid, ok=True)
        return response


def serve(open_stream, kind, package=None, version=None, stdin=None, stdout=None):
    """Answer requests, one JSON object per line, until stdin closes."""
    stdin = stdin or sys.stdin
    stdout = stdout or _PROTOCOL_OUT
    loop = Loop(open_stream, kind, package, version)
    for line in stdin:
        if not line.strip():
            continue
        try:
            request = json.loads(line)
        except ValueError as exc:
            response = {"id": None, "ok": False,
                        "error": {"type": "BadJSON", "message": str(exc)}}
        else:
            response = loop.handle(request)
        stdout.write(json.dumps(response, ensure_ascii=True) + "\n")
        stdout.flush()

