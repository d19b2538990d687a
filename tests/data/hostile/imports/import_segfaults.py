"""A scrubber module whose import crashes the process (a native extension with a bug)."""

import ctypes
import sys

print("loading the native tokenizer", file=sys.stderr, flush=True)
ctypes.string_at(0)


class Scrubber:  # never reached
    def feed(self, delta: str) -> str:
        return delta

    def flush(self) -> str:
        return ""
