"""Hostile scrubbers: each misbehaves in a way that must cost only its own scenario.

They are test fixtures, loaded by path (`tests/data/hostile/hostile_scrubbers.py:Sleeps`),
never shipped. Each passes plain text through and removes nothing, so the only
thing that differs between them is *how* it misbehaves, and only on a delta
holding the trigger word `<think>` (so the linear-time check, the plain-text
controls and every scenario without a block stay quick where the test wants).
"""

from __future__ import annotations

import ctypes
import os
import socket
import sys
import time

TRIGGER = "<think>"


class _Base:
    """Plain pass-through; subclasses misbehave in `misbehave()` on the trigger."""

    def __init__(self) -> None:
        self.seen = ""

    def feed(self, delta: str) -> str:
        self.seen += delta
        if TRIGGER in self.seen:
            self.misbehave()
        return delta

    def flush(self) -> str:
        return ""

    def misbehave(self) -> None:  # pragma: no cover - overridden
        raise NotImplementedError


class Sleeps(_Base):
    """Blocks without computing (CPU time stays near zero): a wall-clock limit is needed."""

    def misbehave(self) -> None:
        time.sleep(3600)


class BlocksOnSocket(_Base):
    """Waits forever for a peer that never answers, as a scrubber calling a service would."""

    def misbehave(self) -> None:
        left, right = socket.socketpair()
        try:
            left.recv(1)  # nobody writes to `right`
        finally:
            left.close()
            right.close()


class Spins(_Base):
    """Burns CPU forever."""

    def misbehave(self) -> None:
        while True:
            pass


class Segfaults(_Base):
    """Dies of SIGSEGV, as a native extension with a bug would."""

    def misbehave(self) -> None:
        ctypes.string_at(0)


class Exits(_Base):
    """Ends the process without unwinding, as `os._exit` in library code does."""

    def misbehave(self) -> None:
        os._exit(3)


class Raises(_Base):
    """Raises an ordinary exception."""

    def misbehave(self) -> None:
        raise RuntimeError("hostile scrubber raised on purpose")


class Prints(_Base):
    """Writes to stdout and stderr on every delta, with a clear-screen escape."""

    def feed(self, delta: str) -> str:
        print("\x1b[2J\x1b[Hscrubber noise on stdout", delta)
        print("scrubber noise on stderr", file=sys.stderr)
        return delta


class Allocates(_Base):
    """Allocates memory until something stops it (2 GiB steps, touched so they count)."""

    def misbehave(self) -> None:
        hoard = []
        while True:
            block = bytearray(256 * 1024 * 1024)
            block[::4096] = b"x" * len(block[::4096])
            hoard.append(block)
            if len(hoard) > 64:  # 16 GiB: never reached under a memory limit
                time.sleep(3600)
