"""Text as it arrives over JSON: the one difference a transport makes.

Python holds the two halves of a surrogate pair side by side as two code points; a
JSON reader (and any JavaScript or UTF-16 program) receives them as the one character
they encode. So a peer that runs over the JSON protocol, or a client reading a
gateway's JSON chunks, cannot tell `"\\ud83d\\ude00"` from `"😀"`: a stream whose
expected and actual output differ only that way shows the transport, not the
implementation. The gateway audit compares such text as a client decodes it; an
explanation does not call it a bug of a peer.
"""

from __future__ import annotations

import json
import re

_SURROGATE = re.compile("[\ud800-\udfff]")


def json_text(text: str) -> str:
    """`text` as a JSON reader receives it: the two halves of a surrogate pair side by side
    in one string arrive as the one character they encode (escapes are all a sender can
    write for a lone surrogate, and a reader joins adjacent ones)."""
    return json.loads(json.dumps(text)) if _SURROGATE.search(text) else text


def same_after_transport(expected: str, got: str) -> bool:
    """Whether two texts are the same once each has crossed JSON. An explanation that
    crossed it itself (a worker's result, the cache) may hold them equal already: a
    difference in answer text that is not there after JSON is the transport's."""
    return json_text(expected) == json_text(got)
