"""Console output and files for hunt and fuzz findings (shared by both commands)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TextIO

from scrubcheck.checks.linear import LinearMeasurement, ratios_text
from scrubcheck.hunt.as_scenario import finding_yaml, findings_file
from scrubcheck.hunt.finding import Finding


def print_finding(finding: Finding, out: TextIO | None = None) -> None:
    out = out or sys.stdout
    v = finding.violation
    shrunk = (f", shrunk by {finding.confirmed:g} s" if finding.confirmed is not None
              and finding.confirmed > finding.elapsed else "")
    print(f"\n== {v.level} {v.rule} ({v.check}) seen after {finding.elapsed:g} s{shrunk} — "
          f"minimal scenario:", file=out)
    print(finding_yaml(finding), file=out, end="")


def print_summary(tool: str, spec: str, findings: list[Finding], seconds: float,
                  lines: list[str], errors: list[str], out: TextIO | None = None) -> None:
    out = out or sys.stdout
    print(f"\nscrubcheck {tool} --scrubber {spec}: {len(findings)} distinct "
          f"finding{'s' if len(findings) != 1 else ''} in {seconds:g} s", file=out)
    for line in lines:
        print(f"  {line}", file=out)
    for finding in findings:
        v = finding.violation
        print(f"  {v.level:6} {v.rule:12} {v.check:12} {finding.elapsed:>7g} s  "
              f"{finding.scenario_id}", file=out)
    for error in errors:
        print(f"  harness problem (not the scrubber's fault): {error}", file=out)


def linear_lines(linear: LinearMeasurement | None) -> list[str]:
    """The summary line of the linear-time measurement (none when it did not run)."""
    if linear is None:
        return []
    if linear.unmeasured:
        return [f"linear time (R-ROBUST-2): {linear.unmeasured}"]
    verdict = "FAIL" if linear.finding else "ok"
    return [f"linear time (R-ROBUST-2): {verdict} — time ratio n -> 8n: "
            f"{ratios_text(linear.metrics)}"]


def save_findings(findings: list[Finding], directory: Path) -> list[Path]:
    """One YAML file per finding, each a one-scenario corpus file `scrubcheck lint` accepts."""
    directory.mkdir(parents=True, exist_ok=True)
    paths = []
    for finding in findings:
        path = directory / f"{finding.scenario_id}.yaml"
        path.write_text(findings_file([finding]), encoding="utf-8")
        paths.append(path)
    return paths


def exit_code(findings: list[Finding], level: str) -> int:
    counted = [f for f in findings if level == "should" or f.violation.level == "MUST"]
    return 1 if counted else 0
