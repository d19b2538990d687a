"""The rule table of SPEC.md in machine form; tests keep it in step with the document."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

SPEC_VERSION = "1.5.1"


class Level(StrEnum):
    """How binding a rule is, in SPEC.md's (RFC 2119) words."""

    MUST = "MUST"
    SHOULD = "SHOULD"


@dataclass(frozen=True)
class Rule:
    id: str
    level: Level
    title: str
    #: a failure under it means reasoning reached the user: the worst kind (a leak)
    leak: bool = False

    @property
    def group(self) -> str:
        """The rule family, e.g. 'CODE' for R-CODE-3: the matrix columns."""
        return self.id.split("-")[1]


RULES: dict[str, Rule] = {
    r.id: r
    for r in (
        Rule("R-VOCAB-1", Level.MUST, "default family tags, exact, ASCII case-insensitive"),
        Rule("R-VOCAB-2", Level.MUST, "lookalikes and unknown vocabularies are literal"),
        Rule("R-VOCAB-3", Level.MUST, "enabled features behave like family tags"),
        Rule("R-VOCAB-4", Level.SHOULD, "features not enabled are literal"),
        Rule("R-HARMONY-1", Level.MUST, "harmony headers are removed; a header never closed hides"),
        Rule("R-HARMONY-2", Level.MUST, "only assistant final/commentary without recipient shows"),
        Rule("R-HARMONY-3", Level.MUST, "stray harmony tokens outside code are removed"),
        Rule("R-BLOCK-1", Level.MUST, "an open tag starts a block that is removed whole"),
        Rule("R-BLOCK-2", Level.MUST, "a block ends at the first same-name close; no nesting"),
        Rule("R-BLOCK-3", Level.MUST, "several, empty and mid-line blocks"),
        Rule("R-BLOCK-4", Level.MUST, "other-name or unknown closes do not end a block"),
        Rule("R-BLOCK-5", Level.MUST, "a tool section that ends reasoning ends the block"),
        Rule("R-CODE-1", Level.MUST, "tags in inline code spans are literal"),
        Rule("R-CODE-2", Level.MUST, "tags in fenced code blocks are literal"),
        Rule("R-CODE-3", Level.MUST, "unmatched or unequal backticks guard nothing"),
        Rule("R-CODE-4", Level.MUST, "indented code and HTML are not guards"),
        Rule("R-CODE-5", Level.MUST, "a close inside inline code within a block does not end it"),
        Rule("R-CODE-6", Level.MUST, "code is judged on the visible line, across removed blocks"),
        Rule("R-CODE-7", Level.MUST, "a removed piece never joins two backtick runs"),
        Rule("R-UNCLOSED-1", Level.MUST, "an unclosed block is discarded (strict)"),
        Rule("R-UNCLOSED-2", Level.MUST, "inline-answer recovery only with the signal and stop"),
        Rule("R-UNCLOSED-3", Level.MUST, "no recovery for length or without the signal"),
        Rule("R-UNCLOSED-4", Level.MUST, "a partial tag at end of stream is answer text"),
        Rule("R-SKIP-1", Level.MUST, "may-skip pre-fill never closed, stop: the stream is answer"),
        Rule("R-SKIP-2", Level.MUST, "nothing of a may-skip pre-fill shows before it is decided"),
        Rule("R-SKIP-3", Level.MUST, "no skip recovery for length, no reason, or no signal"),
        Rule("R-ORPHAN-1", Level.MUST, "an orphan close is removed, text before stays"),
        Rule("R-ORPHAN-2", Level.MUST, "pre-filled open: text before the first close is reasoning"),
        Rule("R-TAG-1", Level.MUST, "no tag outside code in the output, spliced tags included"),
        Rule("R-CTX-1", Level.MUST, "context reaches the scrubber or the stream is unsupported"),
        Rule("R-CUSTOM-1", Level.MUST,
             "caller delimiters add to the vocabulary, matched literally"),
        Rule("R-CUSTOM-2", Level.MUST, "a delimiter shared by several pairs serves each of them"),
        Rule("R-LEAK-1", Level.MUST, "no reasoning in the output at any point", leak=True),
        Rule("R-IDEM-1", Level.MUST, "scrubbing the output again changes nothing"),
        Rule("R-CHUNK-1", Level.MUST, "output independent of delta boundaries"),
        Rule("R-TRUNC-1", Level.MUST, "a stream cut anywhere leaks nothing", leak=True),
        Rule("R-FID-1", Level.MUST, "answer text comes out exactly"),
        Rule("R-WS-1", Level.MUST, "whitespace may differ only around removed pieces"),
        Rule("R-REUSE-1", Level.MUST, "a flushed scrubber starts the next stream clean"),
        Rule("R-STREAM-1", Level.SHOULD, "hold back only what is needed to decide"),
        Rule("R-STREAM-2", Level.SHOULD, "decided text is emitted without delay"),
        Rule("R-ROBUST-1", Level.MUST, "any input returns str and never raises"),
        Rule("R-ROBUST-2", Level.MUST, "time linear in the stream length"),
    )
}


#: The rules whose failure is a leak, in SPEC order.
LEAK_RULES: tuple[str, ...] = tuple(rule.id for rule in RULES.values() if rule.leak)


def spec_path() -> Path | None:
    """SPEC.md in a source checkout (None when only the installed package exists)."""
    candidate = Path(__file__).resolve().parent.parent / "SPEC.md"
    return candidate if candidate.exists() else None
