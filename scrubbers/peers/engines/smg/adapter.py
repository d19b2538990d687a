"""Peer adapter for one of smg's reasoning parsers, driven through the gateway itself.

Environment:
- SCRUBCHECK_ENGINE_PARSER: the `--reasoning-parser` name (required);
- SCRUBCHECK_ENGINE_VARIANT: `legacy` (default) or `symphony` (adds `--parser symphony`);
- SCRUBCHECK_PEERLOOP_DIR: where peerloop.py is (set by the harness).

At start it launches one `smg launch` process in gRPC mode before a fake scheduler in
this process (see smgrig.py) and keeps both for every stream; an unknown name, or an smg
that does not serve, fails the start with the reason on stderr. Each stream is one chat
completion request with `stream: true`: every harness delta becomes one chunk of token
ids, and `feed` answers the `(reasoning_content, content)` smg sent for that chunk
(per-delta, not collected at flush). `flush` ends the generation (a `GenerateComplete`)
and answers what smg sent after it. `starts_in_reasoning` is sent the way smg decides
it: as the request's `chat_template_kwargs.enable_thinking`, which smg reads because the
rig's chat template has that toggle (off by default, pre-filling `<think>` when on); smg
then marks the parser's reasoning as started.

smg and the scheduler are stopped when this program ends: at the end of stdin, on an
exception, on SIGTERM, SIGHUP or SIGINT; if this process is killed outright, smg gets
SIGKILL from the kernel (PR_SET_PDEATHSIG). A server that dies mid-stream makes the
running feed or flush raise RigError naming smg's exit code and its last log lines.
"""

from __future__ import annotations

import atexit
import os
import signal
import sys
from pathlib import Path

sys.path.insert(0, os.environ["SCRUBCHECK_PEERLOOP_DIR"])
sys.path.insert(0, str(Path(__file__).resolve().parent))
from peerloop import serve  # noqa: E402  (first: it claims stdout for the protocol)
from smgrig import Rig, Session  # noqa: E402


def _exit_on(signum, _frame) -> None:
    raise SystemExit(128 + signum)


class Stream:
    """One scrubber object: a request per stream, a new one after each flush."""

    def __init__(self, rig: Rig, context: dict) -> None:
        self.rig = rig
        self.context = context
        self.session: Session | None = None

    def feed(self, delta: str) -> tuple[str, str]:
        if self.session is None:
            self.session = Session(self.rig, self.context)
        try:
            return self.session.feed(delta)
        except BaseException:
            self.session.abandon()
            self.session = None
            raise

    def flush(self) -> tuple[str, str]:
        session, self.session = self.session, None
        if session is None:
            return "", ""  # no delta: smg would be sent no token at all
        try:
            return session.flush()
        except BaseException:
            session.abandon()
            raise


def main() -> None:
    parser = os.environ.get("SCRUBCHECK_ENGINE_PARSER", "")
    variant = os.environ.get("SCRUBCHECK_ENGINE_VARIANT", "legacy") or "legacy"
    if not parser:
        raise SystemExit("SCRUBCHECK_ENGINE_PARSER is not set: name smg's reasoning parser")
    for signum in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
        signal.signal(signum, _exit_on)
    rig = Rig(parser, variant)
    atexit.register(rig.stop)
    try:
        rig.start()
        print(f"smg {parser} ({variant}) serving on 127.0.0.1:{rig.port}, pid {rig.pid}",
              file=sys.stderr, flush=True)
        serve(lambda context: Stream(rig, context), kind="stream-splitter", package="smg")
    finally:
        rig.stop()


if __name__ == "__main__":
    main()
