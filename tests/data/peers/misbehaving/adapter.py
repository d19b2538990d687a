"""Test peer: echoes deltas (dropping `<think>`), and misbehaves when a delta says so.

CRASH exits the process, HANG sleeps forever, RAISE raises, BYTES returns bytes,
SHOUT prints to stdout (which the loop must keep off the protocol), PREFILL
returns the starts_in_reasoning flag it was given.
"""

import os
import sys
import time

sys.path.insert(0, os.environ["SCRUBCHECK_PEERLOOP_DIR"])
from peerloop import serve  # noqa: E402


class Echo:
    def __init__(self, context):
        self.context = context
        self.held = []

    def feed(self, delta):
        if delta == "CRASH":
            sys.stderr.write("about to crash on purpose\n")
            sys.stderr.flush()
            os._exit(3)
        if delta == "HANG":
            time.sleep(3600)
        if delta == "RAISE":
            raise ValueError("told to raise")
        if delta == "BYTES":
            return b"bytes!"
        if delta == "SHOUT":
            print("this must not reach the protocol")
            return "shouted"
        if delta == "PREFILL":
            return str(self.context["starts_in_reasoning"])
        if delta == "HOLD":
            self.held.append(delta)
            return ""
        return delta.replace("<think>", "")

    def flush(self):
        held, self.held = "".join(self.held), []
        return held


serve(Echo, kind="stream")
