"""A scrubber module whose import crashes the process (a native extension with a bug).

The spec names `Scrubber`, which it never gets as far as defining.
"""

import ctypes
import sys

print("loading the native tokenizer", file=sys.stderr, flush=True)
ctypes.string_at(0)
