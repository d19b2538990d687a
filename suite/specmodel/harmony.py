"""What a harmony header says about the message after it (SPEC R-HARMONY-2)."""

from __future__ import annotations

import re

from scrubcheck.vocabulary import fold

#: words of a header are separated by ASCII whitespace and these two tokens
_SPLIT = re.compile(r"([ \t\r\n]+|<\|channel\|>|<\|constrain\|>)")
_CHANNEL = "<|channel|>"
SHOWN_CHANNELS = ("final", "commentary")
#: a header longer than this (between its two tokens) hides its message (R-HARMONY-1)
LONGEST_HEADER = 4096


def shows_message(header: str, opened_by_start: bool) -> bool:
    """Whether the message after `header` (the text between the opening token and
    `<|message|>`) is answer text: role assistant, channel final or commentary,
    no word naming a recipient (`to=`)."""
    if len(header) > LONGEST_HEADER:
        return False
    role = None if opened_by_start else "assistant"
    channel = None
    after_channel = not opened_by_start
    for piece in _SPLIT.split(fold(header)):
        if piece == _CHANNEL:
            after_channel = channel is None
            continue
        if not piece or _SPLIT.fullmatch(piece):
            continue
        if piece.startswith("to="):
            return False
        if after_channel:
            channel, after_channel = piece, False
        elif role is None and channel is None:
            role = piece
    return role == "assistant" and channel in SHOWN_CHANNELS
