"""SGLang's gpt-oss reasoning parser, batch (see sglang_peer.py)."""

import os
import sys

sys.path.insert(0, os.environ["SCRUBCHECK_PEERLOOP_DIR"])
from sglang_peer import serve_parser  # noqa: E402

serve_parser("gpt-oss", streaming=False)
