"""Reading a harmony message header (SPEC R-HARMONY-2).

A header runs from `<|start|>` or `<|channel|>` to `<|message|>` and is removed
whole; what it says decides whether the message after it is answer text. The
scanner hands over the header's text once `<|message|>` is found, so a channel
name split across deltas (`<|channel|>comm` + `entary`) is read whole.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

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
    if len(header) > MAX_HEADER:  # R-HARMONY-2: no header a model writes: hidden
        return False
    text = fold(header if opened_by_start else _CHANNEL + header)
    read = _role_and_channel(text, read_role=opened_by_start)
    if read is None:  # R-HARMONY-2: addressed to a recipient: a tool call, hidden
        return False
    role, channel = read
    # R-HARMONY-2: a header opened at <|channel|> continues the assistant's turn
    return (role == "assistant" or not opened_by_start) and channel in VISIBLE_CHANNELS


def _role_and_channel(text: str, *, read_role: bool) -> tuple[str, str | None] | None:
    """The header's role (its first word before any channel, when `read_role`) and
    channel (the word after the first `<|channel|>`), or None when a word names a
    recipient."""
    role, channel, expect_channel = "", None, False
    for word, separator in _words(text):
        if word.startswith("to="):
            return None
        if word and expect_channel:
            channel, expect_channel = word, False
        elif word and read_role and not role and channel is None:
            role = word
        if separator == _CHANNEL and channel is None:
            expect_channel = True
    return role, channel


def _words(text: str) -> Iterator[tuple[str, str]]:
    """Each word of a header with the separator after it ("" after the last)."""
    at = 0
    for match in _SEPARATORS.finditer(text):
        yield text[at:match.start()], match.group()
        at = match.end()
    yield text[at:], ""
