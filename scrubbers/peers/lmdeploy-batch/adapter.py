"""lmdeploy's default response parser, whole text (see lmdeploy_peer.py)."""

import os
import sys

sys.path.insert(0, os.environ["SCRUBCHECK_PEERLOOP_DIR"])
from lmdeploy_peer import serve_parser  # noqa: E402

serve_parser(streaming=False)
