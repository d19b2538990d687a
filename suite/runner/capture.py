"""What an in-process scrubber wrote to stdout and stderr, kept per task and bounded.

A worker's file descriptors 1 and 2 are a pipe the parent reads (so C-level
writes and the output of a worker that crashes or is killed are caught too);
the parent keeps the first and the last few kilobytes of each task's output and
counts the rest. A scrubber that prints a million lines costs a counter, never
memory, disk or scrubcheck's own console.
"""

from __future__ import annotations

HEAD_BYTES = 2048
TAIL_BYTES = 2048


class OutputCapture:
    """The head and tail of one task's output, with how much was dropped between."""

    def __init__(self, head: int = HEAD_BYTES, tail: int = TAIL_BYTES) -> None:
        self.head_limit, self.tail_limit = head, tail
        self.head = bytearray()
        self.tail = bytearray()
        self.total = 0
        self.lines = 0

    def feed(self, data: bytes) -> None:
        self.total += len(data)
        self.lines += data.count(b"\n")
        room = self.head_limit - len(self.head)
        if room > 0:
            self.head += data[:room]
            data = data[room:]
        if data:
            self.tail += data[-self.tail_limit:]
            del self.tail[: max(0, len(self.tail) - self.tail_limit)]

    def __bool__(self) -> bool:
        return self.total > 0

    def text(self) -> str | None:
        """The kept output as text (None when there was none), the cut marked."""
        if not self.total:
            return None
        dropped = self.total - len(self.head) - len(self.tail)
        head = self.head.decode("utf-8", "replace")
        tail = self.tail.decode("utf-8", "replace")
        lines = f"{self.lines:,} line" + ("" if self.lines == 1 else "s")
        summary = f"[{self.total:,} bytes, {lines} of stdout/stderr"
        if dropped <= 0:
            return f"{summary}]\n{head}{tail}"
        return (f"{summary}; {dropped:,} bytes in the middle not kept]\n{head}"
                f"\n[… {dropped:,} bytes not kept …]\n{tail}")
