"""Reading a harmony message header (SPEC R-HARMONY-2).

A header runs from `<|start|>` or `<|channel|>` to `<|message|>` and is removed
whole; what it says decides whether the message after it is answer text. The
scanner hands over the header's text once `<|message|>` is found, so a channel
name split across deltas (`<|channel|>comm` + `entary`) is read whole.
"""

from __future__ import annotations

import re

from scrubcheck.vocabulary import fold

#: what separates the words of a header: ASCII whitespace and harmony's tokens
_SEPARATORS = re.compile(r"[ \t\r\n]+|<\|(?:channel|constrain)\|>", re.ASCII)
_CHANNEL, _MESSAGE = "<|channel|>", "<|message|>"
#: the channels whose messages are meant for the user (the harmony guide: `final`, and
#: `commentary` without a recipient, a tool-calling preamble)
VISIBLE_CHANNELS = frozenset({"final", "commentary"})
#: a header whose text (between its opening token and `<|message|>`, neither counted)
#: is longer than this is no header a model writes: its message is hidden
MAX_HEADER = 4096
#: how much of a header the scanner keeps: one character over the limit, and the
#: closing `<|message|>`, is enough to tell a header at the limit from one over it
HEADER_KEPT = MAX_HEADER + len(_MESSAGE)


def message_is_visible(opened_by_start: bool, header: str) -> bool:
    """Whether the message after this header is answer text.

    `header` is the text after the opening token (`<|start|>` when
    `opened_by_start`, else `<|channel|>`), up to `<|message|>` (a trailing
    `<|message|>` itself is not part of it, nor counted in its length). Visible only
    when the role is `assistant` (implied by a header that opens at
    `<|channel|>`), the channel is `final` or `commentary`, and no word names a
    recipient (`to=...`): tool calls, analysis, other roles, unknown or missing
    channels are hidden. Names compare ASCII case-insensitively.
    """
    if fold(header[-len(_MESSAGE):]) == _MESSAGE:
        header = header[: -len(_MESSAGE)]
    if len(header) > MAX_HEADER:
        return False
    text = fold(header if opened_by_start else _CHANNEL + header)
    role = ""
    channel: str | None = None
    expect_channel = False
    at = 0
    for match in [*_SEPARATORS.finditer(text), None]:
        end = match.start() if match is not None else len(text)
        word = text[at:end]
        if word:
            if word.startswith("to="):
                return False
            if expect_channel:
                channel, expect_channel = word, False
            elif opened_by_start and not role and channel is None:
                role = word
        if match is not None:
            if match.group() == _CHANNEL and channel is None:
                expect_channel = True
            at = match.end()
    if not opened_by_start:
        role = "assistant"
    return role == "assistant" and channel in VISIBLE_CHANNELS
