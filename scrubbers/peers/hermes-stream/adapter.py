"""hermes-agent's StreamingThinkScrubber, driven as it is (it already has feed/flush)."""

import os
import sys

sys.path.insert(0, os.environ["SCRUBCHECK_PEERLOOP_DIR"])
from peerloop import serve  # noqa: E402,I001

from agent.think_scrubber import StreamingThinkScrubber  # noqa: E402


def open_stream(context: dict) -> StreamingThinkScrubber:
    return StreamingThinkScrubber()  # it accepts no context


serve(open_stream, kind="stream", package="hermes-agent")
