"""litellm's parse_content_for_reasoning: (reasoning, content) of a whole message."""

import os
import sys

sys.path.insert(0, os.environ["SCRUBCHECK_PEERLOOP_DIR"])
from peerloop import serve  # noqa: E402,I001

from litellm.litellm_core_utils.prompt_templates.reasoning_utils import (  # noqa: E402
    parse_content_for_reasoning,
)


def split(text: str) -> tuple[str, str]:
    reasoning, content = parse_content_for_reasoning(text)
    return reasoning or "", content or ""


serve(lambda context: split, kind="batch-splitter", package="litellm")
