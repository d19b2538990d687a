"""One word per (implementation, scenario): what the matrix, the diff and the hall of bugs compare.

A scenario result has many failures; comparing implementations needs one
ordered verdict. Worst first: LEAK (reasoning reached the user), FAIL (a MUST
rule), SHOULD (only SHOULD rules), ERROR (raised, crashed or timed out), then
PASS; UNSUPPORTED and SKIPPED are not judged and never count as passes.
"""

from __future__ import annotations

from scrubcheck.results import Outcome, ScenarioResult, Verdict

# the words are `results.Verdict`'s; these names are the matrix's own short spellings
LEAK, FAIL, SHOULD, ERROR, PASS, UNSUPPORTED, SKIPPED = (
    Verdict.LEAK, Verdict.FAIL, Verdict.SHOULD, Verdict.ERROR, Verdict.PASS,
    Verdict.UNSUPPORTED, Verdict.SKIPPED)
VERDICTS = (LEAK, FAIL, SHOULD, ERROR, PASS, UNSUPPORTED, SKIPPED)
JUDGED = (LEAK, FAIL, SHOULD, ERROR, PASS)
#: How bad a judged verdict is, for regressions: higher is worse.
BADNESS: dict[str, int] = {PASS: 0, SHOULD: 1, ERROR: 2, FAIL: 2, LEAK: 3}


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
