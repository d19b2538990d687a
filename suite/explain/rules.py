"""The SPEC rules that decide a signature's decision.

The checks report failures under the rules they judge (R-LEAK-1 for any reasoning
shown, R-FID-1 for any wrong answer), which say *that* something went wrong. A root
cause names the rule that decides *what* went wrong: a pre-filled block's reasoning is
R-ORPHAN-2's, a delimiter in another letter case R-VOCAB-1's, a delimiter split across
deltas R-TAG-1's. This table follows SPEC's sections, one line per kind of decision.
"""

from __future__ import annotations

from scrubcheck.explain.difference import Did
from scrubcheck.explain.signature import UNCLOSED_OPEN, Signature

#: reasoning shown, by the block it stood in
_SITUATION = {
    "a pre-filled block": ("R-ORPHAN-2",),
    "an unclosed block": ("R-UNCLOSED-1",),
    "a closed block": ("R-BLOCK-1",),
    "a block, closed or not": ("R-BLOCK-1", "R-UNCLOSED-1"),
    "a harmony header or hidden message": ("R-HARMONY-1", "R-HARMONY-2"),
    "the section after a marker": ("R-BLOCK-1",),
    "a hidden section": ("R-BLOCK-1",),
}

_DID = {
    Did.DROPS_LITERAL: ("R-CODE-1", "R-CODE-2"),
    Did.DROPS_ANSWER: ("R-FID-1",),
    Did.ADDS_TEXT: ("R-FID-1",),
    Did.CHANGES_TEXT: ("R-FID-1",),
    Did.DROPS_SPACE: ("R-WS-1",),
    Did.HOLDS_BACK: ("R-STREAM-1", "R-STREAM-2"),
    Did.MISHANDLES_DELTA: ("R-CHUNK-1",),
    Did.CHANGES_ON_SECOND_PASS: ("R-IDEM-1",),
    Did.DIFFERS_AFTER_REUSE: ("R-REUSE-1",),
    Did.RETURNS_WRONG_TYPE: ("R-ROBUST-1",),
    Did.RAISES: ("R-ROBUST-1",),
    Did.HANGS: ("R-ROBUST-2",),
}


def _delimiter_rules(signature: Signature) -> list[str]:
    rules = []
    if signature.case:
        rules.append("R-VOCAB-1")
    if signature.family == "custom":
        rules.append("R-CUSTOM-1")
    elif signature.family and signature.family != "any format":
        rules.append("R-VOCAB-3")
    if signature.boundary.startswith(("when a delta boundary splits", "spliced")):
        rules.append("R-TAG-1")
    if signature.piece == UNCLOSED_OPEN:
        rules.append("R-UNCLOSED-1")
    if "tool-section" in signature.piece:
        rules.append("R-BLOCK-5")
    if "header" in signature.piece or signature.family == "harmony":
        rules.append("R-HARMONY-1")
    return rules or ["R-TAG-1", "R-BLOCK-1"]


def _context_rules(signature: Signature) -> list[str]:
    words = " ".join(signature.context)
    rules = []
    if "may_skip_reasoning" in words:
        rules.append("R-SKIP-1")
    if "inline_answer" in words:
        rules.append("R-UNCLOSED-2")
    if "finish_reason" in words:
        rules.append("R-UNCLOSED-3")
    if "configures delimiters" in words:
        rules.append("R-CUSTOM-1")
    if any("code" in need or "backtick" in need for need in signature.needs):
        rules.append("R-CODE-3")
    return rules


def decision_rules(signature: Signature) -> tuple[str, ...]:
    """The rules that decide what `signature`'s implementation got wrong, first first."""
    if signature.did in (Did.SHOWS_DELIMITER, Did.MISSES_DELIMITER):
        rules = _delimiter_rules(signature)
    elif signature.did is Did.DROPS_ANSWER and signature.case:
        rules = ["R-VOCAB-1", "R-FID-1"]
    elif signature.did is Did.SHOWS_REASONING:
        rules = list(_SITUATION.get(signature.piece, ("R-LEAK-1",)))
    else:
        rules = list(_DID.get(signature.did, ()))
    return tuple(dict.fromkeys(rules + _context_rules(signature)))
