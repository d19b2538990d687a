"""A finding as a ready-to-review corpus scenario (corpora/README.md format).

The scenario names the rule broken first, then the rules the stream's shape
exercises; it records the partition that showed the failure, the structure's
expected output (`visible`; token soup has none, so `invariants_only`, unless a
differential run supplies the other scrubber's output) and the canary runs as
`reasoning`, which never share an 8-character window with the output. A
linear-time finding becomes a `long-stream` family entry: a scenario of a
megabyte does not belong in YAML. The corpus's own writer (corpus/yamlwriter.py)
writes both.
"""

from __future__ import annotations

from scrubcheck.checks.names import Check
from scrubcheck.checks.registry import INVARIANT_RULES
from scrubcheck.corpus.yamlwriter import corpus_context, entry_lines, scenario_entry
from scrubcheck.hunt.finding import Finding
from scrubcheck.hunt.violation import PROPERTIES
from scrubcheck.model import GENERIC, Scenario
from scrubcheck.spec import RULES

DETAIL_LIMIT = 400


def finding_rules(finding: Finding) -> tuple[str, ...]:
    """The rule broken, then the rules the stream exercises. A SHOULD finding keeps only
    SHOULD rules and invariants, so the corpus judges it at SHOULD too (SPEC section 11)."""
    shape = finding.case.rules
    if finding.violation.level == "SHOULD":
        shape = tuple(r for r in shape if r in INVARIANT_RULES or RULES[r].level == "SHOULD")
    return tuple(dict.fromkeys([finding.rule, *shape]))


def _expected(finding: Finding) -> str | None:
    if finding.case.expected is not None:
        return finding.case.expected
    if finding.violation.check == "differential":
        return finding.violation.other_output
    return None


def finding_description(finding: Finding) -> str:
    v = finding.violation
    detail = v.detail if len(v.detail) <= DETAIL_LIMIT else v.detail[: DETAIL_LIMIT - 1] + "…"
    against = f" (with --against {finding.against})" if finding.against else ""
    text = (f"Found by scrubcheck {finding.tool} against {finding.spec}{against}: "
            f"{PROPERTIES.get(v.check, v.check)} does not hold. {detail}")
    if finding.case.stream is None and v.check == "differential":
        text += (f" The expected output is {finding.against}'s: review it against SPEC "
                 "before committing.")
    return text


def finding_scenario(finding: Finding) -> Scenario | None:
    """The scenario of `finding` (None for a linear-time finding: see `finding_yaml`)."""
    if finding.violation.check == Check.LINEAR:
        return None
    expected = _expected(finding)
    return Scenario(
        id=finding.scenario_id,
        area=finding.tool,
        rules=finding_rules(finding),
        description=finding_description(finding),
        deltas=finding.violation.deltas or ("",),
        reasoning=finding.case.reasoning if expected is not None else (),
        context=corpus_context(finding.case.context),
        visible=expected,
        source=_source(finding),
        labels=(finding.tool, finding.violation.check),
    )


def _source(finding: Finding) -> str:
    seed = f" --seed {finding.seed}" if finding.seed is not None else ""
    against = f" --against {finding.against}" if finding.against else ""
    judged = finding.case.context.conformance_class
    claim = f" --claim {judged}" if judged != GENERIC else ""
    return f"scrubcheck {finding.tool} --scrubber {finding.spec}{against}{claim}{seed}"


def _comment(finding: Finding) -> str:
    v = finding.violation
    where = f" (seed {finding.seed})" if finding.seed is not None else ""
    first_line = v.detail.replace("\r", "\\r").replace("\n", "\\n")[:300]
    return (f"# {v.level} {v.rule} ({v.check}) found by {finding.tool}{where} after "
            f"{finding.elapsed:g} s\n# {first_line}\n")


def finding_yaml(finding: Finding) -> str:
    """One YAML list item (with a comment saying what broke), ready for a corpus file."""
    scenario = finding_scenario(finding)
    if scenario is None:
        return _linear_yaml(finding)
    return _comment(finding) + "\n".join(entry_lines(scenario_entry(scenario))) + "\n"


def _linear_yaml(finding: Finding) -> str:
    entry = {
        "family": "long-stream",
        "id": finding.scenario_id,
        "rules": ["R-ROBUST-2", "R-ROBUST-1"],
        "description": finding_description(finding),
        "params": {"seed": 1, "streams": [{"size": 1048576, "delta_sizes": [1, 16]}]},
        "source": _source(finding),
        "labels": [finding.tool, "linear"],
    }
    note = ("# R-ROBUST-2 is measured once per `scrubcheck run` (the linear-time check); this "
            "entry adds\n# a 1 MiB stream in 1- and 16-character deltas to the corpus.\n")
    return _comment(finding) + note + "\n".join(entry_lines(entry)) + "\n"


def findings_file(findings: list[Finding]) -> str:
    """A whole corpus file of findings."""
    head = ("# Findings of scrubcheck hunt/fuzz. Review each one against SPEC.md, give it a\n"
            "# descriptive id and description, and move it into the right corpora/ area.\n\n")
    return head + "\n".join(finding_yaml(f) for f in findings)
