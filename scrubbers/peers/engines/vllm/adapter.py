"""A vLLM reasoning parser named on the command line, streamed (see driver.py)."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from engine_loop import serve_named  # noqa: E402

serve_named(__file__)
