"""hermes-agent's strip_think_blocks: the regex pass over the final response text.

Its first argument (the agent) is unused by the function, so None stands in.
"""

import os
import sys

sys.path.insert(0, os.environ["SCRUBCHECK_PEERLOOP_DIR"])
from peerloop import serve  # noqa: E402,I001

from agent.agent_runtime_helpers import strip_think_blocks  # noqa: E402


def open_stream(context: dict):
    return lambda text: strip_think_blocks(None, text)


serve(open_stream, kind="batch", package="hermes-agent")
