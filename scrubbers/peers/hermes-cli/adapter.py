"""hermes-agent's CLI display filter: the tag suppression in HermesCLI._stream_delta.

The CLI object is built without its constructor (as hermes' own CLI tests do)
and its stream state set by its own _reset_stream_state(). The filter hands
visible text to _emit_stream_text, which renders boxes and lines on the
terminal; that one method is replaced by a recorder, so the output is exactly
what the filter lets through, before any terminal layout. flush() is the CLI's
own end-of-turn call, `_stream_delta(None)` (flush, then reset).
"""

import os
import sys

sys.path.insert(0, os.environ["SCRUBCHECK_PEERLOOP_DIR"])
from peerloop import serve  # noqa: E402,I001

import cli  # noqa: E402


class CliFilter:
    def __init__(self) -> None:
        self.shown: list[str] = []
        terminal = cli.HermesCLI.__new__(cli.HermesCLI)
        terminal.show_reasoning = False
        terminal._reset_stream_state()
        terminal._emit_stream_text = self.shown.append
        self.terminal = terminal

    def _take(self) -> str:
        text = "".join(self.shown)
        self.shown.clear()
        return text

    def feed(self, delta: str) -> str:
        self.terminal._stream_delta(delta)
        return self._take()

    def flush(self) -> str:
        self.terminal._stream_delta(None)  # hermes' own end of turn: flush, then reset
        return self._take()


serve(lambda context: CliFilter(), kind="stream", package="hermes-agent")
