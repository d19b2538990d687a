"""A working scrubber (the reference) whose module prints a great deal while it is imported,
on stdout and stderr and from C, with a clear-screen escape: none of it may reach the console."""

import ctypes
import sys

from scrubcheck.scrubbers.reference import ReferenceScrubber

for line in range(20_000):
    print(f"\x1b[2J\x1b[Hchatty import, line {line}")
    print(f"chatty import on stderr, line {line}", file=sys.stderr)
ctypes.CDLL(None).printf(b"chatty import from C\n")


class Scrubber(ReferenceScrubber):
    """The reference, unchanged."""
