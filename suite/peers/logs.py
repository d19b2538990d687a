"""Where a peer's stderr goes: one log file per peer per harness process, bounded.

A peer's stderr is the only explanation of its crashes and hangs, so it is
kept in a file whose tail is quoted in every failure. But a peer that is
restarted for every stream (the behaviour this module was written against: a
broken peer left 16,436 files after one afternoon) must not pile up files, so:

- one file per peer *per harness process* (`NAME--pidPID.stderr`): every
  restart appends to it after a start marker line, and the tail quoted in a
  failure is what the current start wrote (the text after the last marker);
- a file over MAX_BYTES is cut to its last KEEP_BYTES (checked at each start
  and before each request), so a chatty peer cannot fill the disk;
- when a process opens its file, the folder is pruned to the newest KEEP_FILES
  logs; the log of a process still alive is never removed (a concurrent run is
  still writing it).

So the folder holds at most about KEEP_FILES x MAX_BYTES (32 MiB), plus the
logs of live processes.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import BinaryIO

KEEP_FILES = 32  # newest logs kept in the folder (any peer)
MAX_BYTES = 1 << 20  # a log larger than this is cut ...
KEEP_BYTES = 64 << 10  # ... to its last 64 KiB
MARKER = b"=== scrubcheck: peer started"
_PID = re.compile(r"--pid(\d+)\.stderr$")


class StderrLog:
    """The stderr log of one peer, as seen from the current process.

    After a fork the child gets a file of its own (the name carries the pid),
    so two workers never interleave their peers' output.
    """

    def __init__(self, folder: Path, name: str) -> None:
        self.folder = folder
        self.name = name
        self._opened_by = 0  # the pid whose file is prepared (pruned folder, known path)
        self.starts = 0

    @property
    def path(self) -> Path:
        return self.folder / f"{self.name}--pid{os.getpid()}.stderr"

    def open_for_start(self) -> BinaryIO:
        """A handle for a new peer process's stderr (append mode, after a start marker)."""
        if self._opened_by != os.getpid():
            self.folder.mkdir(parents=True, exist_ok=True)
            prune(self.folder, keep=KEEP_FILES - 1, spare=self.path)
            self._opened_by = os.getpid()
            self.starts = 0
        self.bound()
        self.starts += 1
        handle = open(self.path, "ab")  # O_APPEND: cutting the file never leaves a hole
        handle.write(MARKER + f" ({self.name}, start {self.starts}) ===\n".encode())
        handle.flush()
        return handle

    def bound(self) -> None:
        """Cut the log to its last KEEP_BYTES when it has grown past MAX_BYTES."""
        try:
            if self.path.stat().st_size <= MAX_BYTES:
                return
            with open(self.path, "r+b") as handle:
                handle.seek(-KEEP_BYTES, os.SEEK_END)
                kept = handle.read()
                handle.seek(0)
                handle.truncate()
                handle.write(b"=== scrubcheck: log cut to its last %d bytes ===\n" % len(kept))
                handle.write(kept)
        except OSError:
            pass  # a log we cannot trim is no reason to stop a run

    def tail(self, chars: int) -> str:
        """The last `chars` characters the current start of the peer wrote."""
        try:
            with open(self.path, "rb") as handle:
                handle.seek(0, os.SEEK_END)
                size = handle.tell()
                handle.seek(max(0, size - chars * 4))
                data = handle.read()
        except OSError:
            return ""
        start = data.rfind(MARKER)
        if start >= 0:
            data = data[data.find(b"\n", start) + 1:]
        return data.decode("utf-8", "replace")[-chars:]


def prune(folder: Path, keep: int, spare: Path | None = None) -> int:
    """Remove all but the newest `keep` logs in `folder` (never `spare`, never the log
    of a live process); returns how many were removed."""
    logs = []
    for path in folder.glob("*.stderr"):
        try:
            logs.append((path.stat().st_mtime, path))
        except OSError:
            continue  # removed meanwhile by another process
    logs.sort(reverse=True)
    removed = 0
    for _, path in logs[keep:]:
        if path == spare or _writer_alive(path):
            continue
        try:
            path.unlink()
            removed += 1
        except OSError:
            pass
    return removed


def _writer_alive(path: Path) -> bool:
    match = _PID.search(path.name)
    if match is None:
        return False  # an older log naming scheme: no live writer to protect
    pid = int(match.group(1))
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
