"""protoAgent's strip_reasoning: regular expressions over the whole text.

Installed without its dependency tree: the module needs only re and logging.
"""

import os
import sys

sys.path.insert(0, os.environ["SCRUBCHECK_PEERLOOP_DIR"])
from peerloop import serve  # noqa: E402,I001

from graph.output_format import strip_reasoning  # noqa: E402

serve(lambda context: strip_reasoning, kind="batch", package="protolabs-agent")
