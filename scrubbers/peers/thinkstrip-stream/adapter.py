"""thinkstrip's ThinkStrip, with capture on so that its reasoning can be read.

`ThinkStrip(open_tag, close_tag, capture=True)` returns the visible text from
`feed` and `flush` and gathers the reasoning in `think_content`; the reasoning of a
call is what `think_content` grew by during it (read from the pieces it joins). A
caller's pair (context `delimiters`) is its `open_tag` and `close_tag`, which replace
the default `<think>` pair, as they do for thinkstrip's users; the manifest lets only
one pair through. After `flush` the next stream goes to the same object without `reset()`
(SPEC R-REUSE-1 asks `flush` alone to end a stream, and hermes-stream is driven so
too); thinkstrip's README asks for a new instance, or `reset()`, per stream, and the
manifest says so.
"""

import os
import sys

sys.path.insert(0, os.environ["SCRUBCHECK_PEERLOOP_DIR"])
from caller_pairs import one_pair  # noqa: E402,I001
from peerloop import serve  # noqa: E402,I001

from thinkstrip import ThinkStrip  # noqa: E402


class Captured:
    """ThinkStrip with the reasoning of each call handed back beside its output."""

    def __init__(self, tags: tuple[str, str]) -> None:
        self.strip = ThinkStrip(open_tag=tags[0], close_tag=tags[1], capture=True)
        self.seen = 0

    def _reasoning(self) -> str:
        # think_content joins every captured piece on each read, which would make this
        # adapter, not thinkstrip, quadratic in a stream's length (R-ROBUST-2 times
        # both): the pieces added since the last call are read from the list it joins
        pieces = self.strip._captured
        grown, self.seen = pieces[self.seen:], len(pieces)
        return "".join(grown)

    def feed(self, delta: str) -> tuple[str, str]:
        visible = self.strip.feed(delta)
        return self._reasoning(), visible

    def flush(self) -> tuple[str, str]:
        visible = self.strip.flush()
        return self._reasoning(), visible


def open_stream(context: dict) -> Captured:
    return Captured(one_pair(context, ("<think>", "</think>")))


serve(open_stream, kind="stream-splitter", package="thinkstrip")
