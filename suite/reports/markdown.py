"""report.md: the report an implementer reads top to bottom, or on a PR page.

Order follows the questions a reader has: what ran and with what (header),
did it pass (summary), where are the problems (area, rule and violation
tables), and how do I reproduce each one (failing scenarios, worst first).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from tabulate import tabulate

from scrubcheck.checks.names import Check

from ..results import Outcome, RunResult, ScenarioResult
from . import analysis as an
from .bugs import markdown_lines
from .failure_text import (
    holdback_text,
    metrics_text,
    numbered_reproductions,
    replay_command,
    repro_heading,
    repro_lines,
    result_notes,
)
from .mdtext import cell, code_span, fenced, prose
from .text import WHITESPACE_LEGEND, plural, terminal_safe, xml_safe

OUTCOME_HEADERS = [o.value.lower() for o in an.OUTCOME_ORDER]


def _table(headers: list[str], rows: Sequence[Sequence[object]],
           numeric_from: int | None = None) -> str:
    """A GitHub table; columns from `numeric_from` on are counts, right-aligned."""
    colalign = None
    if numeric_from is not None:
        colalign = ["left"] * numeric_from + ["right"] * (len(headers) - numeric_from)
    return tabulate([[cell(c) for c in row] for row in rows], headers=headers,
                    tablefmt="github", disable_numparse=True, colalign=colalign)


def _counts(counts: dict[str, int]) -> list[str]:
    """Outcome counts, problems in bold so they stand out in a column of zeros."""
    return [f"**{n}**" if n and name in ("FAIL", "ERROR", "TIMEOUT") else str(n)
            for name, n in counts.items()]



def _list_or_none(items: list[str]) -> str:
    return ", ".join(items) if items else "none"


def header(run: RunResult) -> list[str]:
    totals = an.totals(run)
    settings = run.settings
    rows = [
        ["scrubber", code_span(run.scrubber)],
        ["kind", run.scrubber_kind],
        ["supported features", _list_or_none(run.supported_features)],
        ["accepted context", _list_or_none(run.accepted_context)],
        ["scrubcheck", f"{run.scrubcheck_version} (SPEC {run.spec_version})"],
        ["seed", str(settings.get("seed", "not recorded"))],
        ["level", an.run_level(run).upper()],
        ["started", run.started_at],
        ["duration", f"{run.duration_s:.2f} s"],
        ["ran", f"{plural(totals.scenarios, 'scenario')}, "
                f"{plural(totals.scrubber_checks, 'scrubber-wide check')}, "
                f"{plural(totals.chunkings, 'chunking')}, {plural(totals.checks, 'check')}"],
        ["capped", f"{totals.capped} chunking variants not run (long inputs, "
                   "declared restrictions)"
                   if totals.capped else "nothing: every chunking ran"],
    ]
    return [f"# scrubcheck report: {code_span(run.scrubber)}", "",
            _table(["", ""], rows)]


def summary_line(run: RunResult) -> str:
    """`**FAIL** at level MUST (exit 1): 40 PASS · 3 FAIL · ...`, every outcome shown."""
    counts = an.outcome_counts(run.results)
    parts = " · ".join(f"{n} {name}" for name, n in counts.items())
    level = an.run_level(run).upper()
    return (f"**{an.verdict(run)}** at level {level} "
            f"(exit code {run.exit_code(an.run_level(run))}): {parts}")


def summary(run: RunResult) -> list[str]:
    lines = ["## Summary", "", summary_line(run)]
    judged = run.settings.get("conformance_class")
    if judged is not None:
        lines += ["", f"Judged in conformance class **{judged}** (SPEC section 12)"
                  + ("." if judged == "generic" else ": the format's delimiters are the whole "
                     "vocabulary; scenarios beyond the class are BEYOND CLAIM, counted apart "
                     "and never a pass.")]
    if run.interrupted:
        not_run = sum(1 for r in run.results if r.outcome is Outcome.SKIPPED)
        lines += ["", f"**Interrupted** (Ctrl-C): {len(run.results) - not_run} of "
                  f"{len(run.results)} scenarios finished; the other {not_run} were not run "
                  "(SKIPPED below). This report is partial."]
    if run.scrubber_checks:
        counts = an.outcome_counts(run.scrubber_checks)
        lines += ["", "Scrubber-wide checks (run once per scrubber): "
                  + " · ".join(f"{n} {name}" for name, n in counts.items() if n)]
    beyond = [Outcome.BEYOND_CLAIM] if any(
        r.outcome is Outcome.BEYOND_CLAIM for r in run.results) else []
    for outcome in (Outcome.UNSUPPORTED, Outcome.SKIPPED, *beyond):
        groups = an.grouped_reasons(run, outcome)
        total = sum(len(ids) for _, ids in groups)
        lines += ["", f"**{outcome.value}** ({total})" + (":" if groups else ": none")]
        for reason, ids in groups:
            shown, more = an.id_list(ids)
            lines.append(f"- {prose(reason)} ({len(ids)}): "
                         + ", ".join(code_span(i) for i in shown)
                         + (f" and {more} more" if more else ""))
    return lines


def corpus_errors(run: RunResult) -> list[str]:
    if not run.corpus_errors:
        return []
    lines = ["## Corpus errors", "",
             f"{len(run.corpus_errors)} corpus error(s); the scenarios concerned did not run.", ""]
    lines += [f"- {code_span(error)}" for error in run.corpus_errors]
    return lines


def area_table(run: RunResult) -> list[str]:
    rows = [[row.key, row.total, *_counts(row.counts)] for row in an.area_rows(run)]
    return ["## By area", "", _table(["area", "scenarios", *OUTCOME_HEADERS], rows, 1)]


def rule_table(run: RunResult) -> list[str]:
    rows = [[row.rule, row.level, row.title, row.total, *_counts(row.counts)]
            for row in an.rule_rows(run)]
    return ["## By SPEC rule", "",
            "Counts of the scenarios (and scrubber-wide checks) that name each rule.", "",
            _table(["rule", "level", "title", "scenarios", *OUTCOME_HEADERS], rows, 3)]


def violation_table(run: RunResult) -> list[str]:
    rows = [[row.rule, row.level, row.check, "yes" if row.leak else "", row.scenarios,
             row.chunkings] for row in an.violation_rows(run)]
    if not rows:
        return ["## Failures by rule and check", "", "No check failed."]
    return ["## Failures by rule and check", "",
            _table(["violated rule", "level", "check", "leak", "scenarios",
                    "failing chunkings"], rows, 4)]


def scrubber_checks_table(run: RunResult) -> list[str]:
    if not run.scrubber_checks:
        return []
    rows = [[r.scenario_id, ", ".join(r.rules), r.outcome.value, metrics_text(r) or "",
             r.reason or ""] for r in run.scrubber_checks]
    return ["## Scrubber-wide checks", "",
            _table(["check", "rules", "outcome", "metrics", "reason"], rows)]


def notes_lines(notes: list[str]) -> list[str]:
    """Caveats as a list; a multi-line note (a traceback) as a code block."""
    lines = []
    for note in notes:
        if "\n" in note.strip():
            lines += ["", "**Note:**", "", fenced(note.strip())]
        else:
            lines += ["", f"**Note:** {prose(note)}"]
    return lines


def captured_lines(result: ScenarioResult) -> list[str]:
    """What an in-process scrubber printed during the scenario, if anything."""
    if not result.captured_output:
        return []
    return ["", "**Scrubber output** (its stdout and stderr during this scenario, captured; "
            "control characters escaped):", "", fenced(terminal_safe(result.captured_output))]


def check_table(result: ScenarioResult) -> list[str]:
    """One row per failing check of a scenario, worst first, numbered like the blocks."""
    rows = []
    for index, repro, _ in numbered_reproductions(result):
        failure = repro.failure
        smallest = f"{failure.chunking} ({plural(len(failure.deltas), 'delta')})"
        rows.append([f"[{index}]", failure.check, failure.rule, failure.level, smallest,
                     repro.failing])
    return [_table(["", "check", "rule", "level", "smallest failing chunking", "failing chunkings"],
                   rows, 5)]


def scenario_section(number: int, result: ScenarioResult) -> list[str]:
    """One failing scenario, every failing check with its smallest reproduction."""
    lines = [f"### {number}. {code_span(an.scenario_title(result))}: "
             f"{an.severity_label(result)}", "",
             f"{code_span(f'{result.file}:{result.line}')} · rules "
             f"{', '.join(result.rules)} · {plural(result.chunkings_run, 'chunking')}, "
             f"{plural(result.checks_run, 'check')}"]
    if result.description:
        lines += [""] + ["> " + line for line in prose(result.description).splitlines()]
    lines += notes_lines(result_notes(result))
    lines += captured_lines(result)
    if result.holdback is not None and any(f.check == Check.HOLDBACK for f in result.failures):
        lines += ["", f"Hold-back: {holdback_text(result)}."]
    metrics = metrics_text(result)
    if metrics:
        lines += ["", f"Metrics: {metrics}."]
    lines += [""] + check_table(result)
    for index, repro, same in numbered_reproductions(result):
        lines += ["", f"#### [{index}] {repro_heading(repro)}", "",
                  fenced("\n".join(repro_lines(repro, same))), "",
                  fenced(replay_command(repro), "sh")]
    return lines


def failing_section(run: RunResult) -> list[str]:
    failing = an.failing_scenarios(run)
    if not failing:
        return ["## Failing scenarios", "", "None."]
    lines = ["## Failing scenarios", "",
             "Leaks first, then other MUST failures, then SHOULD failures. Each failing "
             "check shows its failing chunking with the fewest deltas. " + WHITESPACE_LEGEND]
    for number, result in enumerate(failing, 1):
        lines += [""] + scenario_section(number, result)
    return lines


def broken_section(run: RunResult) -> list[str]:
    broken = an.broken_scenarios(run)
    if not broken:
        return []
    lines = ["## Errors and timeouts", "",
             "The harness could not judge these; an ERROR is a harness or scrubber-loading "
             "problem, a TIMEOUT a scrubber that did not finish in time."]
    for result in broken:
        lines += ["", f"### {result.outcome.value}: {code_span(an.scenario_title(result))}", "",
                  f"{code_span(f'{result.file}:{result.line}')}: "
                  f"{code_span(result.reason or 'no reason given')}"]
        lines += notes_lines(result_notes(result))
        lines += captured_lines(result)
    return lines


def render_markdown(run: RunResult) -> str:
    """The whole Markdown report as one string."""
    bugs = markdown_lines(run.explanation, run.scrubber) if run.explanation else []
    sections = [header(run), bugs, summary(run), corpus_errors(run), area_table(run),
                rule_table(run), violation_table(run), scrubber_checks_table(run),
                failing_section(run), broken_section(run)]
    return "\n\n".join("\n".join(s) for s in sections if s) + "\n"


def write_markdown(run: RunResult, path: Path) -> Path:
    path.write_text(xml_safe(render_markdown(run)), encoding="utf-8")
    return path
