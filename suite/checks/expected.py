"""R-FID-1 / R-WS-1: the output against the scenario's expected output.

`visible` is compared under the whitespace rule, using the places where the
reference scrubber removed something. Those places are only trusted when the
reference itself produces `visible`; otherwise the comparison is exact and the
runner notes why. `acceptable` outputs are compared exactly.

SPEC section 11: a mismatch is judged at the strictest level among the
scenario's behaviour rules (all but the section 8 invariants and R-ROBUST-*).
A scenario whose behaviour rules are all SHOULD (say R-VOCAB-4) fails at SHOULD
level, reported under that rule.
"""

from __future__ import annotations

from scrubcheck.checks.names import Check
from scrubcheck.checks.render import around, describe_difference, first_difference
from scrubcheck.checks.whitespace import WHITESPACE, ws_compare
from scrubcheck.evidence import Evidence
from scrubcheck.model import Scenario
from scrubcheck.spec import RULES


def behaviour_rules(scenario: Scenario) -> list[str]:
    """The scenario's rules other than the section 8 invariants and R-ROBUST-*."""
    # imported here: the registry imports this module, for its entry
    from scrubcheck.checks.registry import INVARIANT_RULES

    return [r for r in scenario.rules
            if r in RULES and r not in INVARIANT_RULES and not r.startswith("R-ROBUST-")]


def _judge(finding: Evidence, scenario: Scenario) -> Evidence:
    """Apply section 11: only-SHOULD behaviour rules make the mismatch a SHOULD failure."""
    rules = behaviour_rules(scenario)
    if rules and all(RULES[r].level == "SHOULD" for r in rules):
        return finding.amended(
            rule=rules[0], level="SHOULD",
            suffix=(f" (judged at SHOULD: the scenario's behaviour rules are "
                    f"{', '.join(rules)}; the output rule was {finding.rule})"))
    return finding


def _squeeze(text: str) -> str:
    return "".join(c for c in text if c not in WHITESPACE)


def check_expected(scenario: Scenario, output: str, cuts: list[int] | None) -> Evidence | None:
    """A finding when `output` is not what the scenario expects (None: it is, or no
    expectation). `cuts` are the reference's removal positions in `visible`, or None."""
    finding = None
    if scenario.visible is not None:
        finding = _check_visible(scenario.visible, output, cuts)
    elif scenario.acceptable:
        finding = _check_acceptable(scenario.acceptable, output)
    return _judge(finding, scenario) if finding else None


def _rule(expected: str, output: str) -> str:
    """R-WS-1 when only whitespace differs, R-FID-1 when answer text does."""
    return "R-WS-1" if _squeeze(expected) == _squeeze(output) else "R-FID-1"


def _check_visible(visible: str, output: str, cuts: list[int] | None) -> Evidence | None:
    if output == visible:
        return None
    if cuts is None:
        return Evidence(
            Check.EXPECTED, _rule(visible, output),
            detail="output differs from the expected output (compared exactly); "
            + describe_difference(visible, output),
            expected=visible, got=output,
        )
    mismatch = ws_compare(visible, output, cuts)
    if mismatch is None:
        return None
    return Evidence(
        Check.EXPECTED, _rule(visible, output),
        detail=f"{mismatch.reason}: expected {around(visible, mismatch.expected_index)} at index "
        f"{mismatch.expected_index}, got {around(output, mismatch.got_index)} at index "
        f"{mismatch.got_index} (whitespace may change only at the removal points "
        f"{sorted(set(cuts))})",
        expected=visible, got=output,
    )


def _check_acceptable(acceptable: tuple[str, ...], output: str) -> Evidence | None:
    if output in acceptable:
        return None
    closest = max(acceptable, key=lambda a: (first_difference(a, output) or 0, -len(a)))
    return Evidence(
        Check.EXPECTED, _rule(closest, output),
        detail=f"output is none of the {len(acceptable)} acceptable outputs; nearest: "
        + describe_difference(closest, output),
        expected=closest, got=output,
    )
