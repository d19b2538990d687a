"""What a check reports: a violated rule, in words, with the evidence.

Checks return `Finding`s; the runner adds the chunking, the deltas and the
replay command to make each one a `results.Failure`.
"""

from __future__ import annotations

from dataclasses import dataclass

from scrubcheck.spec import RULES


@dataclass
class Finding:
    check: str  # expected | leak | tag | invariance | idempotence | truncation | type | reuse |
    #             holdback | exception | linear
    rule: str
    detail: str
    expected: str | None = None
    got: str | None = None
    step: int | None = None  # delta index after whose feed() it showed; None: at flush
    judged_at: str | None = None  # a level other than the rule's own (SPEC section 11)

    @property
    def level(self) -> str:
        return self.judged_at or RULES[self.rule].level
