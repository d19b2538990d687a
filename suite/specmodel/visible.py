"""The visible text as it is built, with where each character came from in the input.

Code structure is judged on this text (SPEC R-CODE-6), so it also knows where
its current line starts; and a partial tag standing at its end may still be
taken back when a removed piece splices it into a tag (R-TAG-1).

Each piece also carries how much input a streaming scrubber may read before it
must have shown the piece (SPEC R-STREAM-1, `specmodel/decided.py`): 0 when the
piece is decided as soon as its own characters are read, a later input length
when the reading had to look further (the rest of a line, a partial tag spliced
after a removed piece), `never` when only the end of the stream decides it.
"""

from __future__ import annotations


class Visible:
    def __init__(self) -> None:
        self.chunks: list[str] = []
        self.origins: list[int] = []  # input offset of each chunk's first character
        self.held_to: list[int] = []  # input read before each chunk must be out (0: its own)
        self.size = 0
        self.line_start = 0  # where the current visible line starts

    def add(self, piece: str, origin: int, held_to: int = 0) -> None:
        if not piece:
            return
        if self.chunks and len(self.chunks[-1]) < 64 and self.held_to[-1] == held_to and \
                self.origins[-1] + len(self.chunks[-1]) == origin:
            self.chunks[-1] += piece  # few chunks, so that `tail` stays cheap
        else:
            self.chunks.append(piece)
            self.origins.append(origin)
            self.held_to.append(held_to)
        newline = piece.rfind("\n")
        if newline >= 0:
            self.line_start = self.size + newline + 1
        self.size += len(piece)

    def text(self) -> str:
        return "".join(self.chunks)

    def tail(self, n: int) -> str:
        """The last `n` characters (fewer when the text is shorter)."""
        parts, have = [], 0
        for chunk in reversed(self.chunks):
            if have >= n:
                break
            parts.append(chunk)
            have += len(chunk)
        return "".join(reversed(parts))[-n:] if n else ""

    def take_back(self, n: int) -> list[tuple[str, int]]:
        """Remove the last `n` characters; return them with their input offsets."""
        taken: list[tuple[str, int]] = []
        while n > 0:
            chunk, origin, held_to = self.chunks.pop(), self.origins.pop(), self.held_to.pop()
            keep = max(0, len(chunk) - n)
            taken[:0] = [(c, origin + keep + k) for k, c in enumerate(chunk[keep:])]
            n -= len(chunk) - keep
            self.size -= len(chunk) - keep
            if keep:
                self.chunks.append(chunk[:keep])
                self.origins.append(origin)
                self.held_to.append(held_to)
        return taken

    def pieces(self) -> tuple[tuple[int, int, int], ...]:
        """(origin, length, held_to) of each chunk, in order."""
        return tuple(zip(self.origins, map(len, self.chunks), self.held_to, strict=True))

    def ends_with_backtick(self) -> bool:
        return bool(self.chunks) and self.chunks[-1].endswith("`")
