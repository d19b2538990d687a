"""The gateway compliance report of `gateway audit`: Markdown, HTML, JSON, JUnit XML.

What a gateway vendor must know comes first: the verdict and the headline
(what each kind of client shows), then what the gateway did (actions per
shape), what each client sees per shape and corpus area, the timing, the
context clients need for the streams passed through, and each failure with its
reproduction. The
HTML page is the Markdown rendered (raw HTML disabled, scenario text in code
spans and fences), so the two cannot disagree, inside a Content-Security-Policy
that allows no script. The JSON file is pinned by `audit.schema.json`; JUnit
has a suite per corpus area and a case per scenario and shape. Failing streams
are also written as a capture file, for `gateway check` and `gateway import`.
No API key is in any of them: commands name the key's variable.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from markdown_it import MarkdownIt

from scrubcheck.checks.render import quoted
from scrubcheck.gateway.audit import AuditResult, PassResult, ScenarioAudit
from scrubcheck.gateway.capture import write_captures
from scrubcheck.gateway.upstream import SHAPE_DESCRIPTIONS
from scrubcheck.gateway.verdicts import (
    ACTION_MEANINGS,
    ACTION_ORDER,
    CLIENTS,
    OUTCOME_MEANINGS,
    OUTCOME_ORDER,
    RAW,
    SCRUBBED,
    Action,
    ClientOutcome,
)
from scrubcheck.reports.htmlpage import PAGE_CSS  # one look for every scrubcheck page
from scrubcheck.reports.htmlpage import text as html_text
from scrubcheck.reports.json_report import json_document
from scrubcheck.reports.junit import MESSAGE_LIMIT, element, junit_document
from scrubcheck.reports.mdtext import cell, code_span, fenced
from scrubcheck.reports.text import plural, shorten, xml_safe
from scrubcheck.results import Verdict

SCHEMA_ID = "urn:scrubcheck:gateway-audit:2"
FORMAT_VERSION = 2
SCHEMA_FILE = "audit.schema.json"
#: Failures shown in full per verdict in Markdown and HTML; the rest are listed by id.
SHOWN = 40


def file_names(stem: str = "audit") -> dict[str, str]:
    return {"md": f"{stem}.md", "html": f"{stem}.html", "json": f"{stem}.json",
            "junit": f"{stem}.junit.xml", "captures": f"{stem}.failures.capture.json"}


#: every report form, by its key in `file_names`
REPORT_KINDS = ("md", "html", "json", "junit")


def write_audit_reports(result: AuditResult, report_dir: Path, stem: str = "audit", *,
                        kinds: tuple[str, ...] = REPORT_KINDS,
                        captures: bool = True) -> list[Path]:
    """The `kinds` of report into `report_dir` (created), and with `captures` the failing
    streams' captures when any (the committed audits keep md, html and json only: a
    capture is for the person reproducing a failure, and the JUnit form is for CI)."""
    report_dir = Path(report_dir)
    report_dir.mkdir(parents=True, exist_ok=True)
    names = file_names(stem)
    renders = {"md": render_markdown, "html": render_html, "json": render_json,
               "junit": render_junit}
    paths = []
    for key in kinds:
        path = report_dir / names[key]
        # A lone surrogate from a stream cannot be UTF-8 encoded; JSON keeps it as its
        # escape ("backslashreplace" writes exactly that), the other formats never hold one.
        path.write_text(renders[key](result), encoding="utf-8", errors="backslashreplace")
        paths.append(path)
    failing = [p.capture for r in result.failures() for p in r.passes if p.capture is not None]
    capture_path = report_dir / names["captures"]
    if failing and captures:
        paths.append(write_captures(failing, capture_path))
    else:  # a previous run's failures must not sit beside this report
        capture_path.unlink(missing_ok=True)
    return paths


# ------------------------------------------------------------------------ JSON
def report_dict(result: AuditResult) -> dict[str, Any]:
    return {"$schema": SCHEMA_ID, "format_version": FORMAT_VERSION, **result.to_dict()}


def render_json(result: AuditResult) -> str:
    return json_document(report_dict(result))


@cache
def audit_schema() -> dict[str, Any]:
    text = resources.files("scrubcheck.gateway").joinpath(SCHEMA_FILE).read_text("utf-8")
    return json.loads(text)


def validate_audit(data: dict[str, Any]) -> None:
    """Raise jsonschema.ValidationError when `data` is not an audit report."""
    import jsonschema

    jsonschema.validate(data, audit_schema(), cls=jsonschema.Draft202012Validator)


# -------------------------------------------------------------------- Markdown
def _status(result: AuditResult) -> str:
    return f"**{result.run_verdict()}** (exit {result.exit_code()})"


def _facts(result: AuditResult) -> list[str]:
    requests = ("" if result.upstream_requests is None
                else f" ({plural(result.upstream_requests, 'request')} received)")
    shapes = "; ".join(f"{s.value}: {SHAPE_DESCRIPTIONS[s]}" for s in result.shapes)
    passes = ("streaming, then not streaming" if result.settings.get("non_streaming")
              else "streaming only")
    rows = [("gateway", code_span(result.gateway)),
            ("upstream", (code_span(result.upstream) if result.upstream else "not named")
             + requests),
            ("route", code_span(result.route)), ("upstream shapes", cell(shapes)),
            ("requests per scenario and shape", passes),
            ("scrubcheck", f"{result.scrubcheck_version} (SPEC {result.spec_version})"),
            ("started", result.started_at), ("duration", f"{result.duration_s:.1f} s"),
            ("jobs, timeouts", f"{result.settings.get('jobs')}; "
                               f"{result.settings.get('timeout_s')} s without data, "
                               f"{result.settings.get('request_timeout_s')} s per request")]
    if result.settings.get("cache"):
        rows.append(("result cache", cell(cache_text(result.settings["cache"]))))
    return ["| | |", "|---|---|", *(f"| {k} | {v} |" for k, v in rows)]


def cache_text(cache: dict[str, Any]) -> str:
    """What a cached audit took from the stored answers, in words."""
    return (f"{plural(cache['reused'], 'scenario stream')} reused from the stored answers "
            f"and judged afresh (their timings are those measured when they were "
            f"requested), {cache['ran']} requested, of which {cache['kept']} kept for next "
            f"time (answers {cache['answers']}, wire {cache['wire']})")


def _action_table(result: AuditResult) -> list[str]:
    shapes = list(result.shapes)
    by_shape = {s: result.actions(s) for s in shapes}
    total = result.actions()
    lines = ["| what the gateway did | meaning | " + " | ".join(s.value for s in shapes)
             + " | all |", "|---|---|" + "--:|" * (len(shapes) + 1)]
    for a in ACTION_ORDER:
        if total[a.value]:
            counts = " | ".join(str(by_shape[s][a.value]) for s in shapes)
            lines.append(f"| {a.value} | {cell(ACTION_MEANINGS[a])} | {counts} | "
                         f"{total[a.value]} |")
    return lines


def _client_table(result: AuditResult) -> list[str]:
    shapes = list(result.shapes)
    by_shape = {s: result.counts(s) for s in shapes}
    head = " | ".join(f"{client} {s.value}" for client in (RAW, SCRUBBED) for s in shapes)
    lines = [f"| a client sees | meaning | {head} |",
             "|---|---|" + "--:|" * (2 * len(shapes))]
    for o in OUTCOME_ORDER:
        counts = " | ".join(str(by_shape[s][client][o.value])
                            for client in (RAW, SCRUBBED) for s in shapes)
        lines.append(f"| {o.value} | {cell(OUTCOME_MEANINGS[o])} | {counts} |")
    return ["Clients: " + "; ".join(f"**{k}**: {v}" for k, v in CLIENTS.items()) + ".", "",
            *lines]


def _timing(result: AuditResult) -> list[str]:
    t = result.timing()
    return [f"{plural(t['requests'], 'request')}: p50 {t['p50_s']:.3f} s, p99 "
            f"{t['p99_s']:.3f} s, longest {t['max_s']:.3f} s; "
            f"{plural(t['slow'], 'scenario stream')} with a request that finished but took "
            f"longer than {t['slow_s']:g} s (slow)."]


def _area_table(result: AuditResult) -> list[str]:
    words = [o.value for o in OUTCOME_ORDER]
    lines = ["| area | shape | client | " + " | ".join(words) + " |",
             "|---|---|---|" + "--:|" * len(words)]
    for area, shapes in result.area_counts().items():
        for shape, clients in shapes.items():
            for client, counts in clients.items():
                lines.append(f"| {cell(area)} | {shape} | {client} | "
                             + " | ".join(str(counts[w]) for w in words) + " |")
    return lines


def _ids(names: list[str], limit: int = 12) -> str:
    shown = ", ".join(code_span(n) for n in names[:limit])
    return shown + (f" and {len(names) - limit} more" if len(names) > limit else "")


def _needs(result: AuditResult) -> list[str]:
    table = result.needs_summary()
    actions = result.actions()
    passed = actions[Action.PASSED_THROUGH.value] + actions[Action.RECHUNKED.value]
    if not passed:
        return ["No stream was passed through unchanged."]
    lines = [f"{plural(passed, 'stream')} arrived with the text the upstream sent. A "
             "client's scrubber needs the default context for the rest, and for these the "
             "values below (SPEC R-CTX-1); without them it shows reasoning or loses the "
             "answer. The gateway must let clients know them (documentation, a header, a "
             "setting)."]
    if table:
        lines += ["", "| context | scenarios | which |", "|---|--:|---|"]
        for need, names in sorted(table.items(), key=lambda kv: -len(kv[1])):
            lines.append(f"| {code_span(need)} | {len(names)} | {_ids(names)} |")
    return lines


def _pair(r: ScenarioAudit | PassResult) -> str:
    return f"{r.action.value} · raw {r.raw.value} · scrubbed {r.scrubbed.value}"


def _failure(r: ScenarioAudit) -> list[str]:
    s = r.scenario
    lines = [f"### {_pair(r)} {code_span(s.id)} [{r.shape.value}]", "",
             f"{code_span(f'{s.file}:{s.line}')} · area {cell(s.area)} · rules "
             f"{cell(', '.join(s.rules))} · upstream name {code_span(r.name)}", ""]
    for p in r.passes:
        lines.append(f"- {p.mode}: the gateway **{p.action.value}**: "
                     f"{code_span(shorten(p.detail, 600))}")
        for note in p.notes:
            lines.append(f"  - note: {code_span(shorten(note, 300))}")
        if p.capture is not None and p.action is not Action.ERROR:
            lines.append(f"  - content received: {code_span(quoted(p.capture.content))}")
        for client, got, detail in ((RAW, p.raw, p.raw_detail),
                                     (SCRUBBED, p.scrubbed, p.scrubbed_detail)):
            shown = "right" if got is ClientOutcome.RIGHT else \
                f"{got.value}: {code_span(shorten(detail, 300))}"
            lines.append(f"  - {client} client: {shown}")
    if r.reproduce:
        lines += ["", "Reproduce:", "", fenced("\n".join(r.reproduce), "sh")]
    return lines + [""]


def _failures(result: AuditResult) -> list[str]:
    failing = result.failures()
    if not failing:
        return ["## Failures", "", "None: every client shows the right answer on every "
                "stream.", ""]
    lines = [f"## Failures ({len(failing)})", "",
             "Worst first (what the scrubbing client sees, then the raw client). Each names "
             "what the gateway did on each request (streaming and not), what each kind of "
             "client then shows, and commands that show it (`$VAR` stands for a variable "
             "of the environment). The streams received are in the failures capture file "
             "next to this report (`scrubcheck gateway check` judges them as the audit did).",
             ""]
    groups: dict[tuple[ClientOutcome, ClientOutcome], list[ScenarioAudit]] = {}
    for r in failing:
        groups.setdefault((r.scrubbed, r.raw), []).append(r)
    for (scrubbed, raw), group in groups.items():
        for r in group[:SHOWN]:
            lines += _failure(r)
        if len(group) > SHOWN:
            rest = [f"{r.scenario.id} [{r.shape.value}]" for r in group[SHOWN:]]
            lines += [f"{len(rest)} more with scrubbed {scrubbed.value}, raw {raw.value}: "
                      f"{_ids(rest, 200)} (the JSON report has them all)", ""]
    return lines


def render_markdown(result: AuditResult) -> str:
    lines = [f"# Gateway audit: {cell(result.label)}", "", _status(result), ""]
    if result.problem:
        lines += ["Nothing could run:", "", fenced(result.problem), ""]
    if result.results:
        lines += [f"> {result.headline_text()}.", ""]
    lines += _facts(result) + [""]
    if result.results:
        lines += ["## What the gateway did", "", *_action_table(result), "",
                  "## What clients see", "", *_client_table(result), "",
                  "## Timing", "", *_timing(result), "",
                  "## By area", "", *_area_table(result), "",
                  "## What clients need", "", *_needs(result), "", *_failures(result)]
    if result.not_run:
        names = [f"{i} [{s}]" for i, s in result.not_run]
        lines += [f"## Not run ({len(names)})", "",
                  "Interrupted before these ran: " + _ids(names, 200), ""]
    return "\n".join(lines).rstrip("\n") + "\n"


# ------------------------------------------------------------------------ HTML
_MARKDOWN = MarkdownIt("commonmark", {"html": False}).enable("table")


def render_html(result: AuditResult) -> str:
    body = _MARKDOWN.render(xml_safe(render_markdown(result)))
    csp = "default-src 'none'; style-src 'unsafe-inline'"
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f'<meta http-equiv="Content-Security-Policy" content="{csp}">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>scrubcheck gateway audit: {html_text(result.label)}</title>"
            f"<style>{PAGE_CSS}</style></head><body>{body}</body></html>\n")


# ----------------------------------------------------------------------- JUnit
def _case_text(r: ScenarioAudit) -> str:
    lines = []
    for p in r.passes:
        lines.append(f"{p.mode}: the gateway {p.action.value}: {p.detail}")
        lines += [f"  note: {n}" for n in p.notes]
        lines.append(f"  raw client: {p.raw.value}: {p.raw_detail}")
        lines.append(f"  scrubbed client: {p.scrubbed.value}: {p.scrubbed_detail}")
    if r.needs:
        lines.append("clients need: " + ", ".join(r.needs))
    if r.reproduce:
        lines += ["reproduce:", *r.reproduce]
    return "\n".join(lines)


def _seconds(passes: list[PassResult]) -> str:
    return f"{sum(p.received['duration_s'] for p in passes):.3f}"


def _errored(r: ScenarioAudit) -> bool:
    return r.scrubbed is ClientOutcome.ERROR


def build_junit(result: AuditResult) -> ET.Element:
    failures = sum(1 for r in result.results if r.failed and not _errored(r))
    errors = sum(1 for r in result.results if _errored(r))
    root = ET.Element("testsuites", {
        "name": xml_safe(f"scrubcheck gateway audit {result.label}"),
        "tests": str(len(result.results) + (1 if result.problem else 0)),
        "failures": str(failures), "errors": str(errors + (1 if result.problem else 0)),
        "time": f"{result.duration_s:.3f}"})
    by_area: dict[str, list[ScenarioAudit]] = {}
    for r in result.results:
        by_area.setdefault(r.scenario.area, []).append(r)
    for area, rows in by_area.items():
        suite = element(root, "testsuite", name=area, tests=len(rows),
                         failures=sum(1 for r in rows if r.failed and not _errored(r)),
                         errors=sum(1 for r in rows if _errored(r)),
                         skipped=0, timestamp=result.started_at,
                         time=_seconds([p for r in rows for p in r.passes]))
        for r in rows:
            case = element(suite, "testcase", classname=area,
                            name=f"{r.scenario.id} [{r.shape.value}]",
                            file=r.scenario.file, line=r.scenario.line,
                            time=_seconds(r.passes))
            worst = r.worst_pass
            message = shorten(f"{_pair(r)}: {worst.detail}", MESSAGE_LIMIT)
            kind = f"scrubbed {r.scrubbed.value}, raw {r.raw.value}"
            if _errored(r):
                element(case, "error", _case_text(r), message=message, type=kind)
            elif r.failed:
                element(case, "failure", _case_text(r), message=message, type=kind)
            else:
                element(case, "system-out", _case_text(r))
    if result.problem:
        suite = element(root, "testsuite", name="gateway", tests=1, failures=0, errors=1,
                         skipped=0, timestamp=result.started_at, time="0")
        case = element(suite, "testcase", classname="gateway", name="reach the gateway")
        element(case, "error", result.problem, message=shorten(result.problem, MESSAGE_LIMIT),
                 type=Verdict.NOTHING_RAN.value)
    return root


def render_junit(result: AuditResult) -> str:
    return junit_document(build_junit(result))


# --------------------------------------------------------------------- console
def summary_lines(result: AuditResult, shown: int = 20) -> list[str]:
    """What `gateway audit` prints: what the gateway did and what each client sees per
    shape, the headline, the timing, the worst failures with their first reproduction
    command, and the verdict."""
    lines = [f"gateway {result.label}: {plural(len(result.results), 'scenario stream')} "
             f"({', '.join(s.value for s in result.shapes)}) in {result.duration_s:.1f} s"
             + ("" if result.upstream_requests is None
                else f"; the upstream received {plural(result.upstream_requests, 'request')}")]
    if result.settings.get("cache"):
        lines.append(f"  result cache: {cache_text(result.settings['cache'])}")
    if result.results:
        for shape in result.shapes:
            actions = result.actions(shape)
            counts = result.counts(shape)
            lines.append(f"  {shape.value}: the gateway " + ", ".join(
                f"{a} {n}" for a, n in actions.items() if n))
            for client in (RAW, SCRUBBED):
                lines.append(f"    {client} client: " + "  ".join(
                    f"{o} {n}" for o, n in counts[client].items() if n))
        lines.append(result.headline_text())
        lines += _timing(result)
    failing = result.failures()
    if failing:
        lines.append(f"\nfailures ({len(failing)}, worst first):")
        for r in failing[:shown]:
            worst = r.worst_pass
            lines.append(f"  {_pair(r)} {r.scenario.id} [{r.shape.value}] "
                         f"({worst.mode}): {shorten(worst.detail, 240)}")
            if r.reproduce:
                lines.append(f"      replay: {r.reproduce[0]}")
        if len(failing) > shown:
            lines.append(f"  … {len(failing) - shown} more (see the reports: --out)")
    if result.problem:
        lines.append(f"\n{result.problem}")
    if result.not_run:
        lines.append(f"\ninterrupted (Ctrl-C): {len(result.results)} scenario streams "
                     f"finished, {len(result.not_run)} not run")
    lines.append(f"result: {result.run_verdict()} (exit {result.exit_code()})")
    return lines
