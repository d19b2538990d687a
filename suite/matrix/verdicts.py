"""One word per (implementation, scenario): what the matrix, the diff and the hall of bugs compare.

A scenario result has many failures; comparing implementations needs one
ordered verdict. Worst first: LEAK (reasoning reached the user), FAIL (a MUST
rule), SHOULD (only SHOULD rules), ERROR (raised, crashed or timed out), then
PASS; UNSUPPORTED and SKIPPED are not judged and never count as passes.
"""

from __future__ import annotations

from scrubcheck.evidence import Severity
from scrubcheck.results import Outcome, ScenarioResult, Verdict

# the words are `results.Verdict`'s; these names are the matrix's own short spellings
LEAK, FAIL, SHOULD, ERROR, PASS, UNSUPPORTED, SKIPPED = (
    Verdict.LEAK, Verdict.FAIL, Verdict.SHOULD, Verdict.ERROR, Verdict.PASS,
    Verdict.UNSUPPORTED, Verdict.SKIPPED)
VERDICTS = (LEAK, FAIL, SHOULD, ERROR, PASS, UNSUPPORTED, SKIPPED)
JUDGED = (LEAK, FAIL, SHOULD, ERROR, PASS)
#: Each judged verdict's place in the one severity order (`evidence.Severity`, worst
#: first): a leak, a broken MUST rule, an error, a broken SHOULD rule, nothing wrong.
SEVERITY: dict[str, Severity] = {LEAK: Severity.LEAK, FAIL: Severity.MUST,
                                 ERROR: Severity.ERROR, SHOULD: Severity.SHOULD,
                                 PASS: Severity.NONE}


def verdict(result: ScenarioResult) -> Verdict:
    """The one-word verdict of a scenario result."""
    if result.outcome is Outcome.PASS:
        return PASS
    if result.outcome is Outcome.UNSUPPORTED:
        return UNSUPPORTED
    if result.outcome is Outcome.SKIPPED:
        return SKIPPED
    if any(f.leak for f in result.failures):
        return LEAK  # a leak before an exception is still a leak
    if result.outcome in (Outcome.ERROR, Outcome.TIMEOUT):
        return ERROR
    return FAIL if any(f.level == "MUST" for f in result.failures) else SHOULD
