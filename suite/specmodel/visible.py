"""The visible text as it is built, with where each character came from in the input.

Code structure is judged on this text (SPEC R-CODE-6), so it also knows where
its current line starts; and a partial tag standing at its end may still be
taken back when a removed piece splices it into a tag (R-TAG-1).
"""

from __future__ import annotations


class Visible:
    def __init__(self) -> None:
        self.chunks: list[str] = []
        self.origins: list[int] = []  # input offset of each chunk's first character
        self.size = 0
        self.line_start = 0  # where the current visible line starts

    def add(self, piece: str, origin: int) -> None:
        if not piece:
            return
        if self.chunks and len(self.chunks[-1]) < 64 and \
                self.origins[-1] + len(self.chunks[-1]) == origin:
            self.chunks[-1] += piece  # few chunks, so that `tail` stays cheap
        else:
            self.chunks.append(piece)
            self.origins.append(origin)
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
            chunk, origin = self.chunks.pop(), self.origins.pop()
            keep = max(0, len(chunk) - n)
            taken[:0] = [(c, origin + keep + k) for k, c in enumerate(chunk[keep:])]
            n -= len(chunk) - keep
            self.size -= len(chunk) - keep
            if keep:
                self.chunks.append(chunk[:keep])
                self.origins.append(origin)
        return taken

    def ends_with_backtick(self) -> bool:
        return bool(self.chunks) and self.chunks[-1].endswith("`")
