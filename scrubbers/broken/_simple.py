"""A small, honest streaming scrubber that the broken examples build on.

It handles split tags (holds a partial tag), case, several blocks, orphan
closes, a pre-filled open and strict discarding of an unclosed block. It has no
code guard (tags in code are removed like any other), so it is itself not
conforming; each broken example adds one field bug on top of it.
"""

from __future__ import annotations

import re

NAMES = ("think", "thinking", "reasoning", "thought", "scratch_pad", "reasoning_scratchpad")
TAGS = tuple(f"<{n}>" for n in NAMES) + tuple(f"</{n}>" for n in NAMES)
PREFIXES = frozenset(t[:i] for t in TAGS for i in range(1, len(t)))
LONGEST = max(len(t) for t in TAGS)
_NAME_ALT = "|".join(sorted(NAMES, key=len, reverse=True))
ANY_TAG = re.compile(rf"<(/?)({_NAME_ALT})>", re.IGNORECASE | re.ASCII)


def held_suffix(text: str) -> int:
    """Length of the longest end of `text` that could still grow into a tag."""
    for size in range(min(len(text), LONGEST - 1), 0, -1):
        if text[-size:].lower() in PREFIXES:
            return size
    return 0


class SimpleScrubber:
    def __init__(
        self,
        *,
        starts_in_reasoning: bool = False,
        inline_answer: bool = False,
        finish_reason: str | None = "stop",
        features: tuple[str, ...] = (),
    ) -> None:
        self.starts_in_reasoning = starts_in_reasoning
        self.reset()

    def reset(self) -> None:
        self.held = ""
        self.block: str | None = "*" if self.starts_in_reasoning else None  # "*": any close

    def feed(self, delta: str) -> str:
        self.held += delta
        out = []
        while True:
            match = self._next_tag()
            if match is None:
                keep = held_suffix(self.held)
                cut = len(self.held) - keep
                if self.block is None:
                    out.append(self.held[:cut])
                else:
                    self.block_text(self.held[:cut])
                self.held = self.held[cut:]
                return "".join(out)
            before, closing, name = self.held[: match.start()], match[1], match[2].lower()
            self.held = self.held[match.end() :]
            if self.block is None:
                out.append(before)
                if not closing:  # an orphan close is simply dropped
                    self.block = name
                    self.block_started()
            else:
                self.block_text(before + ("" if closing and self.block in ("*", name) else
                                          match[0]))
                if closing and self.block in ("*", name):
                    self.block = None

    def _next_tag(self) -> re.Match | None:
        return ANY_TAG.search(self.held)

    def flush(self) -> str:
        out = self.held if self.block is None else self.end_inside_block()
        self.reset()
        return out

    # Hooks for the broken variants.
    def block_started(self) -> None:
        pass

    def block_text(self, text: str) -> None:
        pass

    def end_inside_block(self) -> str:
        return ""  # strict: an unclosed block is discarded (R-UNCLOSED-1)
