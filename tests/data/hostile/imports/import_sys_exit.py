"""A scrubber module that gives up at import with `sys.exit`, as a library missing its GPU might."""

import sys

sys.exit("no GPU found, giving up")


class Scrubber:  # never reached
    def feed(self, delta: str) -> str:
        return delta

    def flush(self) -> str:
        return ""
