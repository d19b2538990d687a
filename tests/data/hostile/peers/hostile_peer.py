"""A peer that breaks the protocol on purpose; its manifest's HOSTILE_MODE says how.

Test fixture for tests/test_hostile_peers.py, stdlib only, modelled on
docs/examples/minimal-peer/. Every mode answers `hello` properly (so the
harness accepts the peer and starts the run) except `dies-at-start`; then:

- `garbage`: answers every other request with a line that is not JSON;
- `wrong-id`: answers with a well-formed response carrying another request's id;
- `slow`: answers only after HOSTILE_SLOW_S seconds (default 60), far past its timeout_s;
- `dies-on-think`: exits (code 3) as soon as a stream it scrubs holds `<think>`;
- `dies-at-start`: writes an import error to stderr and exits 1 before reading anything.

Otherwise it is a pass-through batch scrubber: it removes nothing.
"""

import json
import os
import sys
import time

MODE = os.environ.get("HOSTILE_MODE", "")
TRIGGER = "<think>"


def say(text):
    sys.stderr.write(f"hostile peer ({MODE}, pid {os.getpid()}): {text}\n")
    sys.stderr.flush()


def scrub(text):
    if MODE == "dies-on-think" and TRIGGER in text:
        say("saw <think>, exiting on purpose")
        os._exit(3)
    return text


def run(deltas, flush):
    returns, seen = [], ""
    for delta in deltas:
        seen += delta
        scrub(seen)
        returns.append("")
    if flush:
        returns.append(scrub(seen))
    return {"returns": returns, "reasoning": [""] * len(returns), "raised": None}


def handle(request, streams):
    op = request["op"]
    if op == "hello":
        return {"protocol": 1, "kind": "batch", "package": None, "version": None,
                "language": "python"}
    if MODE == "slow":
        time.sleep(float(os.environ.get("HOSTILE_SLOW_S", "60")))
    if op == "start":
        streams[request["stream"]] = []
        return {"raised": None}
    if op == "feed":
        streams[request["stream"]].append(request["delta"])
        scrub("".join(streams[request["stream"]]))
        return {"output": "", "reasoning": "", "raised": None}
    if op == "flush":
        text = scrub("".join(streams.pop(request["stream"], [])))
        return {"output": text, "reasoning": "", "raised": None}
    if op == "close":
        streams.pop(request["stream"], None)
        return {}
    if op == "run":
        return {"runs": [run(one["deltas"], one.get("flush", True)) for one in request["runs"]]}
    if op == "time":
        start = time.process_time()
        scrub(request["text"])
        return {"seconds": time.process_time() - start, "abandoned": False, "raised": None}
    raise ValueError(f"unknown op {op!r}")


def main():
    if MODE == "dies-at-start":
        say("Traceback (most recent call last):\nModuleNotFoundError: No module named "
            "'my_scrubber'")
        sys.exit(1)
    say("started")
    streams = {}
    for line in sys.stdin:
        request = json.loads(line)
        if MODE == "garbage" and request["op"] != "hello":
            sys.stdout.write("<<garbage>> this is not a protocol line\n")
            sys.stdout.flush()
            continue
        try:
            response = handle(request, streams)
            response.update(id=request["id"], ok=True)
        except Exception as exc:
            response = {"id": request.get("id"), "ok": False,
                        "error": {"type": type(exc).__name__, "message": str(exc)}}
        if MODE == "wrong-id" and request["op"] != "hello":
            response["id"] = request["id"] + 1000
        sys.stdout.write(json.dumps(response) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
