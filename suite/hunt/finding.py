"""A finding: the evidence of a violation, the (shrunk) case that shows it, and where it
came from (frozen like the evidence: a later step makes a new one)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from scrubcheck.evidence import Evidence
from scrubcheck.hunt.case import Case


@dataclass(frozen=True)
class Finding:
    violation: Evidence  # its `check` names the property
    case: Case
    tool: str  # hunt | fuzz
    spec: str  # the scrubber it was found against
    elapsed: float  # seconds from the start of the run until the failure was first seen
    seed: int | None = None
    against: str | None = None
    confirmed: float | None = None  # ... until it was shrunk and reported

    @property
    def rule(self) -> str:
        return self.violation.rule

    @property
    def signature(self) -> tuple[str, str]:
        return self.violation.signature

    @property
    def scenario_id(self) -> str:
        """Stable for the same failure on the same input: `hunt-leak-1-3fa9c2d1`."""
        digest = hashlib.sha1(repr((self.violation.deltas, self.case.context,
                                    self.violation.check)).encode("utf-8", "surrogatepass"))
        rule = self.rule.lower().removeprefix("r-")
        return f"{self.tool}-{rule}-{digest.hexdigest()[:8]}"

    @property
    def is_leak(self) -> bool:
        """Whether it showed reasoning to the user: its evidence says (`Evidence.leak`)."""
        return self.violation.leak
