"""The short form of a run: headline counts, and the Markdown a CI job page shows.

report.md is written to be read top to bottom and can run to megabytes; a CI
job page (GitHub's step summary, capped at 1 MiB) needs the verdict, the counts
and the worst scenarios, with the full reports one click away in the artifact.
The same counts feed the badge (`badge.py`) and the GitHub Action's outputs, so
the badge, the job page and the gate can never disagree.

    python -m scrubcheck.reports.summary REPORT.json [--diff DIFF.txt] [--github-output FILE]

prints the summary Markdown; `--diff` adds the text of `scrubcheck diff` against
a baseline; `--github-output` appends the counts as `key=value` lines (the
format of `$GITHUB_OUTPUT`). Exit 0, or 2 when the report cannot be read.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

from ..results import Outcome, RunResult
from . import analysis as an
from .json_report import read_report
from .markdown import area_table, summary_line
from .mdtext import code_span, fenced
from .text import plural, xml_safe

#: Failing scenarios named on the job page; report.md lists every one.
MAX_LISTED = 15
#: Lines of `scrubcheck diff` shown; its full text is in the job log.
MAX_DIFF_LINES = 60


@dataclass(frozen=True)
class Headline:
    """The numbers a reader wants first, computed once for summary, badge and CI outputs."""

    total: int  # scenarios within the claim, every outcome (UNSUPPORTED is never a pass)
    passed: int
    failed: int  # FAIL outcomes, at any level
    leaked: int  # scenarios where reasoning reached the user (a leak check failed)
    errors: int  # ERROR and TIMEOUT: the harness could not judge these
    unsupported: int
    skipped: int
    exit_code: int  # what `scrubcheck run` exits with at the run's level
    verdict: str  # PASS, FAIL, CORPUS ERROR or INTERRUPTED
    spec_version: str
    #: SPEC section 12: the class judged (None: a report from before classes existed)
    conformance_class: str | None = None
    beyond_claim: int = 0  # scenarios outside the class: counted apart, never in `total`

    def outputs(self) -> dict[str, str]:
        """The counts as GitHub Action outputs (`pass`, `fail`, `leak`, ...)."""
        return {"total": str(self.total), "pass": str(self.passed), "fail": str(self.failed),
                "leak": str(self.leaked), "error": str(self.errors),
                "unsupported": str(self.unsupported), "skipped": str(self.skipped),
                "beyond-claim": str(self.beyond_claim),
                "class": self.conformance_class or "generic",
                "exit-code": str(self.exit_code), "verdict": self.verdict}


def headline(run: RunResult) -> Headline:
    counts = run.counts()
    beyond = counts.get(Outcome.BEYOND_CLAIM.value, 0)
    return Headline(
        total=len(run.results) - beyond,
        passed=counts.get(Outcome.PASS.value, 0),
        failed=counts.get(Outcome.FAIL.value, 0),
        leaked=sum(1 for r in run.results if any(f.leak for f in r.failures)),
        errors=counts.get(Outcome.ERROR.value, 0) + counts.get(Outcome.TIMEOUT.value, 0),
        unsupported=counts.get(Outcome.UNSUPPORTED.value, 0),
        skipped=counts.get(Outcome.SKIPPED.value, 0),
        exit_code=run.exit_code(an.run_level(run)),
        verdict=an.verdict(run),
        spec_version=run.spec_version,
        conformance_class=run.settings.get("conformance_class"),
        beyond_claim=beyond,
    )


def render_summary(run: RunResult, diff_text: str | None = None) -> str:
    """The job-page Markdown: verdict and counts, areas, the worst scenarios, the diff."""
    head = headline(run)
    settings = run.settings
    lines = [f"## scrubcheck: {code_span(run.scrubber)}", "", summary_line(run), "",
             f"{head.passed}/{head.total} scenarios pass; "
             f"{plural(head.leaked, 'scenario')} {'leaks' if head.leaked == 1 else 'leak'} "
             "reasoning to the user.", "",
             f"SPEC {run.spec_version} · scrubcheck {run.scrubcheck_version} · level "
             f"{an.run_level(run).upper()} · seed {settings.get('seed', 'not recorded')} · "
             f"{run.duration_s:.1f} s"]
    if run.interrupted:
        lines += ["", "**Interrupted**: the counts cover the scenarios that finished."]
    if run.corpus_errors:
        lines += ["", f"**{plural(len(run.corpus_errors), 'corpus error')}**: the scenarios "
                  "concerned did not run (see report.md)."]
    lines += ["", "### By area", ""] + area_table(run)[2:]
    lines += _problem_lines(run)
    if diff_text is not None:
        lines += ["", "### Against the baseline", "", _bounded(diff_text)]
    lines += ["", "The full reports (report.md, report.html, report.json, junit.xml, "
              "badge.json) are in the run's artifact."]
    return xml_safe("\n".join(lines)) + "\n"


def _problem_lines(run: RunResult) -> list[str]:
    problems = an.failing_scenarios(run) + an.broken_scenarios(run)
    if not problems:
        return []
    lines = ["", f"### Failing scenarios ({len(problems)}; leaks first)", ""]
    for result in problems[:MAX_LISTED]:
        lines.append(f"- {code_span(an.scenario_title(result))} "
                     f"({code_span(f'{result.file}:{result.line}')}): "
                     f"{code_span(an.scenario_headline(result))}")
    if len(problems) > MAX_LISTED:
        lines.append(f"- … and {len(problems) - MAX_LISTED} more in report.md")
    return lines


def _bounded(diff_text: str) -> str:
    shown = diff_text.rstrip("\n").splitlines()
    more = len(shown) - MAX_DIFF_LINES
    if more > 0:
        shown = shown[:MAX_DIFF_LINES] + [f"… {more} more lines in the job log"]
    return fenced("\n".join(shown) or "(no output)")


def github_output_lines(head: Headline) -> str:
    """`key=value` lines for `$GITHUB_OUTPUT`; every value is one line by construction."""
    return "".join(f"{key}={value}\n" for key, value in head.outputs().items())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m scrubcheck.reports.summary",
        description="print the job-page summary of a report.json")
    parser.add_argument("report", type=Path, metavar="REPORT.json")
    parser.add_argument("--diff", type=Path, metavar="FILE",
                        help="text of `scrubcheck diff BASELINE REPORT.json` to include")
    parser.add_argument("--github-output", type=Path, metavar="FILE",
                        help="append the counts as key=value lines (e.g. $GITHUB_OUTPUT)")
    args = parser.parse_args(argv)
    path = args.report
    try:
        run = read_report(path)
        path = args.diff
        diff_text = args.diff.read_text(encoding="utf-8") if args.diff else None
    except (OSError, ValueError, TypeError, KeyError) as exc:
        # json.JSONDecodeError is a ValueError; a wrong shape fails in RunResult.from_dict
        what = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        print(f"scrubcheck summary: cannot read {path}: {what}", file=sys.stderr)
        return 2
    sys.stdout.write(render_summary(run, diff_text))
    if args.github_output:
        with args.github_output.open("a", encoding="utf-8") as out:
            out.write(github_output_lines(headline(run)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
