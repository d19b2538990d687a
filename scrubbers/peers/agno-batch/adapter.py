"""agno's extract_thinking_content: (reasoning, content) of a whole response."""

import os
import sys

sys.path.insert(0, os.environ["SCRUBCHECK_PEERLOOP_DIR"])
from peerloop import serve  # noqa: E402,I001

from agno.utils.reasoning import extract_thinking_content  # noqa: E402


def split(text: str) -> tuple[str, str]:
    reasoning, content = extract_thinking_content(text)
    return reasoning or "", content or ""


serve(lambda context: split, kind="batch-splitter", package="agno")
