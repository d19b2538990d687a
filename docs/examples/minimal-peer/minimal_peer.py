"""A complete scrubcheck peer in one file, with no library: copy it to any language.

It wraps a deliberately naive batch scrubber (a regular expression over the
whole text) in the peer protocol v1: read one JSON request per line from
stdin, write one JSON response per line to stdout. Run it with

    scrubcheck run --scrubber peer:docs/examples/minimal-peer/peer.toml

and scrubcheck will tell you where the regular expression leaks.
"""

import json
import re
import sys
import time

BLOCK = re.compile(r"<think>.*?</think>", re.DOTALL)


class Scrubber:
    """The scrubber under test: buffers the stream, scrubs it whole at flush()."""

    def __init__(self, context):
        self.context = context
        self.parts = []

    def feed(self, delta):
        self.parts.append(delta)
        return ""

    def flush(self):
        text, self.parts = "".join(self.parts), []
        return BLOCK.sub("", text)


def failure(call, step, exc):
    return {"call": call, "step": step, "type": type(exc).__name__, "message": str(exc)}


def run(obj, deltas, flush):
    """One stream: every feed() return, then the flush() return."""
    returns = []
    for step, delta in enumerate(deltas):
        try:
            returns.append(obj.feed(delta))
        except Exception as exc:
            return {"returns": returns, "reasoning": [], "raised": failure("feed", step, exc)}
    if flush:
        try:
            returns.append(obj.flush())
        except Exception as exc:
            return {"returns": returns, "reasoning": [], "raised": failure("flush", None, exc)}
    return {"returns": returns, "reasoning": [""] * len(returns), "raised": None}


def handle(request, streams):
    for stream in request.get("close", []):
        streams.pop(stream, None)
    op = request["op"]
    if op == "hello":
        return {"protocol": 1, "kind": "batch", "package": None, "version": None,
                "language": "python"}
    if op == "start":
        streams[request["stream"]] = Scrubber(request["context"])
        return {"raised": None}
    if op in ("feed", "flush"):
        obj = streams[request["stream"]]
        try:
            output = obj.feed(request["delta"]) if op == "feed" else obj.flush()
        except Exception as exc:
            return {"raised": failure(op, request.get("step"), exc)}
        return {"output": output, "reasoning": "", "raised": None}
    if op == "close":
        streams.pop(request["stream"], None)
        return {}
    if op == "run":  # the fast path: whole streams in one request
        obj = streams.get(request.get("stream")) or Scrubber(request["context"])
        if "stream" in request:
            streams[request["stream"]] = obj
        results = []
        for one in request["runs"]:
            results.append(run(obj, one["deltas"], one.get("flush", True)))
            if results[-1]["raised"]:
                break
        return {"runs": results}
    if op == "time":  # CPU time of the scrubber itself, for the linear-time check
        obj, text, size = Scrubber(request["context"]), request["text"], request["size"]
        start = time.process_time()
        for i in range(0, len(text), size):
            obj.feed(text[i:i + size])
        obj.flush()
        return {"seconds": time.process_time() - start, "abandoned": False, "raised": None}
    raise ValueError(f"unknown op {op!r}")


def main():
    streams = {}
    for line in sys.stdin:
        request = json.loads(line)
        try:
            response = handle(request, streams)
            response.update(id=request["id"], ok=True)
        except Exception as exc:
            response = {"id": request.get("id"), "ok": False,
                        "error": {"type": type(exc).__name__, "message": str(exc)}}
        sys.stdout.write(json.dumps(response) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
