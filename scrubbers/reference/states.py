"""The reference's states: three modes, the state each keeps, and how they change.

One object per mode (plus the two conditions that cut across modes) holds all a
scan step needs; `ReferenceScrubber` (scrubber.py) owns one of each and its scanners
move between them. The transitions, with the SPEC rule that decides each (the
scanner that takes it in brackets):

=========  ===========================================  =========  =================================
from       on                                           to         rule
=========  ===========================================  =========  =================================
(start)    `starts_in_reasoning`                        BLOCK      R-ORPHAN-2 [_reset]
ANSWER     an open tag outside code                     BLOCK      R-BLOCK-1 [_real_tag]
ANSWER     a harmony header start                       BLOCK      R-HARMONY-1 [_real_tag]
ANSWER     a close or orphan tag outside code           ANSWER     R-ORPHAN-1 [_real_tag]
ANSWER     a tag after a backtick run open on its line  held line  R-CODE-6 [_tag]
ANSWER     a fence opener in its containers (blocks.py) FENCE      R-CODE-2 [_newline, _line_start]
held line  the rest of the line: no span encloses it    as tag     R-CODE-3 [_resolve]
held line  the rest of the line: a span encloses it     ANSWER     R-CODE-1 [_resolve]
FENCE      its closing line, or a line leaving its      ANSWER     R-CODE-2 [_scan_fence]
           containers (blocks.py)
BLOCK      a close of its names (outside a span)        ANSWER     R-BLOCK-2 [_close]
BLOCK      a close after an open run on its line        held line  R-CODE-5 [_close]
BLOCK      a hidden harmony header ends                 BLOCK      R-HARMONY-2 [_leave_block]
BLOCK      a tool section that ends reasoning opens     BLOCK      R-BLOCK-5 [_leave_block]
BLOCK      end of stream, unclosed                      (gone)     R-UNCLOSED-1 [_unclosed_block]
BLOCK      end of stream, recoverable last line         ANSWER     R-UNCLOSED-2 [_unclosed_block]
BLOCK      end of stream, pre-filled, may skip          ANSWER     R-SKIP-1 [_end_of_stream]
any        flush                                        (start)    R-REUSE-1 [flush]
=========  ===========================================  =========  =================================
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from scrubcheck.vocabulary import Tag

from .spans import RunState
from .tables import MatchTable


class Mode(Enum):
    """Where the scanner stands (see the theory of operation above)."""

    ANSWER = "out"
    FENCE = "fence"
    BLOCK = "block"


# The scanners compare modes at every step; a module global is several times
# cheaper to load than an Enum member through its class on CPython 3.11.
ANSWER, FENCE, BLOCK = Mode.ANSWER, Mode.FENCE, Mode.BLOCK
OUT = ANSWER  # the former name of ANSWER, kept for callers outside the package


@dataclass(slots=True)
class AnswerState:
    """Mode ANSWER: what the visible text so far means for the next character."""

    #: R-TAG-1: held partial tags, a chain in which each touches the next
    stack: list[str] = field(default_factory=list)
    last_backtick: bool = False  # R-CODE-7: the visible text ends with a backtick
    drop_run: bool = False  # R-CODE-7: a run right after a removed piece is dropped
    tilde: int = 0  # R-CODE-2: length of a tilde run in the line's head (blocks.py)
    tilde_start: int = 0  # where in the head that run started
    run: int = 0  # R-CODE-1: length of the backtick run being read (its end unknown)
    run_at_line_start: bool = False  # that run stands in the line's head: a fence? (R-CODE-2)
    run_start: int = 0  # where in the head that run started
    runs: RunState = field(default_factory=RunState)  # R-CODE-1: pairing on this line
    #: R-CODE-2: the line opened with a run of 3+ backticks (`runs.open_run`) and no
    #: other backtick followed yet: a line feed makes it a fence opener
    fence_candidate: bool = False


@dataclass(slots=True)
class FenceState:
    """Mode FENCE: which line of the fence is being read (R-CODE-2). Where the fence
    closes, and whether a line leaves its containers, the block tracker says (blocks.py)."""

    opener_line: bool  # the rest of the opening line: its info string


@dataclass(slots=True)
class BlockState:
    """Mode BLOCK: the closes that end it and what the current line holds.

    One object for the life of the scrubber (a scanner keeps a reference to it
    across a harmony header giving way to its hidden message)."""

    closes: MatchTable | None = None  # R-BLOCK-2, R-ORPHAN-2, R-HARMONY-1/2
    partial: str = ""  # a proper prefix of a close tag, just read
    run: int = 0  # R-CODE-5: length of the backtick run being read
    runs: RunState = field(default_factory=RunState)  # R-CODE-5: pairing on this line
    #: R-UNCLOSED-2: the text after the block's last line feed (None: not recoverable)
    line: list[str] | None = None
    has_newline: bool = False  # R-UNCLOSED-2: recovery needs a line feed in the block


@dataclass(slots=True)
class HeaderState:
    """A harmony header being read (R-HARMONY-1): its text decides what follows."""

    opened_by_start: bool  # `<|start|>` opened it (else `<|channel|>`: role assistant)
    parts: list[str] = field(default_factory=list)  # at most HEADER_KEPT + 1 characters


@dataclass(slots=True)
class HeldTag:
    """A tag after an open backtick run, waiting for the rest of its line (R-CODE-6)."""

    raw: str
    tag: Tag
    in_block: bool  # a close inside a block (R-CODE-5) rather than a tag in answer text
    parts: list[str] = field(default_factory=list)  # the line from the tag on
