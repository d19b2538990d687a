"""vLLM's qwen3 reasoning parser, on the whole text (see vllm_peer.py)."""

import os
import sys

sys.path.insert(0, os.environ["SCRUBCHECK_PEERLOOP_DIR"])
from vllm_peer import serve_parser  # noqa: E402

serve_parser("qwen3", streaming=False, token_ids=False)
