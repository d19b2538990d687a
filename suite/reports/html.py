"""report.html: one self-contained page for people comparing or fixing scrubbers.

Everything is inline (no external assets), every piece of scenario text is
escaped, and a Content-Security-Policy allows only this page's own script (by
hash), so a report about text full of `<script>` and `</think>` can be opened
safely from any CI artifact store.

The page is read to fix a scrubber, so what failed comes first: the failing
scenarios (leaks first, the leaked text marked), then errors, then the tables;
what did not run (often hundreds of UNSUPPORTED ids) comes last, collapsed.
"""

from __future__ import annotations

import base64
import hashlib
import re
from html import escape
from pathlib import Path

from markdown_it import MarkdownIt

from ..checks.names import Check
from ..checks.render import WHITESPACE_MARKS, quoted
from ..evidence import Severity
from ..results import Failure, Outcome, RunResult, ScenarioResult
from . import analysis as an
from .bugs import html_section
from .failure_text import (
    LABEL_WIDTH,
    holdback_text,
    metrics_text,
    numbered_reproductions,
    replay_command,
    repro_heading,
    repro_lines,
    result_notes,
)
from .first_difference import CONTEXT_AFTER, CONTEXT_BEFORE
from .htmlpage import PAGE_CSS, table, text
from .text import WHITESPACE_LEGEND, plural, terminal_safe, visible_whitespace, xml_safe

SEVERITY_KEYS = ("leak", "must", "should")

_SCRIPT = """
(function(){
var q=document.getElementById('filter');
if(!q){return;}
var boxes=document.querySelectorAll('.controls input[type=checkbox]');
function apply(){
var text=q.value.toLowerCase(),on={};
boxes.forEach(function(b){on[b.value]=b.checked;});
document.querySelectorAll('details.scenario').forEach(function(d){
d.hidden=!(on[d.dataset.severity]&&d.textContent.toLowerCase().indexOf(text)>=0);});
}
q.addEventListener('input',apply);boxes.forEach(function(b){b.addEventListener('change',apply);});
document.getElementById('expand').addEventListener('click',function(){
document.querySelectorAll('details.scenario').forEach(function(d){d.open=true;});});
document.getElementById('collapse').addEventListener('click',function(){
document.querySelectorAll('details.scenario').forEach(function(d){d.open=false;});});
})();
"""

_MARKDOWN = MarkdownIt("commonmark", {"html": False})
_WS_GLYPHS = re.compile(f"([{re.escape(''.join(WHITESPACE_MARKS.values()))}]+)"
                        r"|(\\x[0-9a-f]{2}|\\u[0-9a-f]{4,6}|\\U[0-9a-f]{8})")


def markdown(source: str) -> str:
    """Author-written Markdown (descriptions) rendered with raw HTML disabled."""
    return _MARKDOWN.render(xml_safe(source))


def _mark_whitespace(line: str) -> str:
    """Escape a visible-whitespace line, dimming whitespace glyphs and
    highlighting \\u escapes so they stand out from the text."""
    out, position = [], 0
    for match in _WS_GLYPHS.finditer(line):
        out.append(escape(line[position:match.start()]))
        css = "ws" if match.group(1) else "esc"
        out.append(f'<span class="{css}">{escape(match.group())}</span>')
        position = match.end()
    out.append(escape(line[position:]))
    return "".join(out)


def _count_cells(counts: dict[str, int]) -> list[str]:
    cells = []
    for outcome, n in counts.items():
        css = f"n hot-{outcome}" if n else "n zero"
        cells.append(f'<td class="{css}">{n}</td>')
    return cells


def _outcome_headers() -> list[str]:
    return [o.value.lower() for o in an.OUTCOME_ORDER]


def header(run: RunResult) -> str:
    totals = an.totals(run)
    verdict = an.verdict(run)
    level = an.run_level(run)
    css = {"PASS": "PASS", "FAIL": "FAIL"}.get(verdict, "CORPUS")
    badges = "".join(
        f'<span class="badge {name}{"" if n else " zero"}">{n} {name}</span>'
        for name, n in an.outcome_counts(run.results).items())
    facts = [
        ("scrubber", f"<code>{text(run.scrubber)}</code>"),
        ("kind", text(run.scrubber_kind)),
        ("supported features", text(", ".join(run.supported_features) or "none")),
        ("accepted context", text(", ".join(run.accepted_context) or "none")),
        ("scrubcheck", text(f"{run.scrubcheck_version} (SPEC {run.spec_version})")),
        ("seed", text(run.settings.get("seed", "not recorded"))),
        ("level", text(level.upper())),
        ("started", text(run.started_at)),
        ("duration", text(f"{run.duration_s:.2f} s")),
        ("ran", text(f"{plural(totals.scenarios, 'scenario')}, "
                     f"{plural(totals.scrubber_checks, 'scrubber-wide check')}, "
                     f"{plural(totals.chunkings, 'chunking')}, {plural(totals.checks, 'check')}")),
        ("capped", text(f"{totals.capped} chunking variants not run (long inputs, "
                        "declared restrictions)"
                        if totals.capped else "nothing: every chunking ran")),
    ]
    rows = "".join(f"<tr><th>{escape(k)}</th><td>{v}</td></tr>" for k, v in facts)
    return (f"<h1>scrubcheck report: <code>{text(run.scrubber)}</code></h1>"
            f'<p><span class="verdict {css}">{escape(verdict)}</span> at level '
            f"{escape(level.upper())} (exit code {run.exit_code(level)})</p>"
            f'<div class="badges">{badges}</div><table class="facts">{rows}</table>')


def _ids(ids: list[str]) -> str:
    shown, more = an.id_list(ids)
    return ", ".join(f"<code>{text(i)}</code>" for i in shown) + (
        f" and {more} more" if more else "")


def reasons(run: RunResult) -> str:
    """What did not run, each outcome a collapsed block headed by its count: a scrubber
    with few features has hundreds of UNSUPPORTED ids, which must not bury the failures."""
    parts = []
    beyond = [Outcome.BEYOND_CLAIM] if any(
        r.outcome is Outcome.BEYOND_CLAIM for r in run.results) else []
    for outcome in (Outcome.UNSUPPORTED, Outcome.SKIPPED, *beyond):
        groups = an.grouped_reasons(run, outcome)
        total = sum(len(ids) for _, ids in groups)
        if not total:
            parts.append(f"<p><b>{outcome.value} (0)</b>: none</p>")
            continue
        items = "".join(f"<li>{text(reason)} ({len(ids)}): {_ids(ids)}</li>"
                        for reason, ids in groups)
        parts.append(f'<details class="not-run"><summary>{outcome.value} ({total}), '
                     f"{plural(len(groups), 'reason')}</summary><ul>{items}</ul></details>")
    return '<section id="not-run"><h2>Not run</h2>' + "".join(parts) + "</section>"


def corpus_errors(run: RunResult) -> str:
    if not run.corpus_errors:
        return ""
    items = "".join(f"<li><code>{text(e)}</code></li>" for e in run.corpus_errors)
    return (f'<section id="corpus-errors"><h2>Corpus errors ({len(run.corpus_errors)})</h2>'
            f"<p>The scenarios concerned did not run.</p><ul>{items}</ul></section>")


def area_table(run: RunResult) -> str:
    rows = [[text(r.key), str(r.total), *_count_cells(r.counts)] for r in an.area_rows(run)]
    return ('<section id="areas"><h2>By area</h2>'
            + table(["area", "scenarios", *_outcome_headers()], rows, 1) + "</section>")


def rule_table(run: RunResult) -> str:
    rows = [[f"<code>{text(r.rule)}</code>", text(r.level), text(r.title), str(r.total),
             *_count_cells(r.counts)] for r in an.rule_rows(run)]
    return ('<section id="rules"><h2>By SPEC rule</h2>'
            "<p>Counts of the scenarios (and scrubber-wide checks) that name each rule.</p>"
            + table(["rule", "level", "title", "scenarios", *_outcome_headers()], rows, 3)
            + "</section>")


def violation_table(run: RunResult) -> str:
    rows = [[f"<code>{text(r.rule)}</code>", text(r.level), text(r.check),
             '<span class="sev sev-leak">leak</span>' if r.leak else "",
             str(r.scenarios), str(r.chunkings)] for r in an.violation_rows(run)]
    body = (table(["violated rule", "level", "check", "leak", "scenarios",
                    "failing chunkings"], rows, 4) if rows else "<p>No check failed.</p>")
    return f'<section id="violations"><h2>Failures by rule and check</h2>{body}</section>'


def scrubber_checks(run: RunResult) -> str:
    if not run.scrubber_checks:
        return ""
    rows = [[text(r.scenario_id), text(", ".join(r.rules)),
             f'<span class="badge {r.outcome.value}">{r.outcome.value}</span>',
             text(metrics_text(r) or ""), text(r.reason or "")] for r in run.scrubber_checks]
    return ('<section id="scrubber-checks"><h2>Scrubber-wide checks</h2>'
            + table(["check", "rules", "outcome", "metrics", "reason"], rows, 99)
            + "</section>")


def notes_html(notes: list[str]) -> str:
    """Caveats as a list; a multi-line note (a traceback) collapsed in a <pre>."""
    items = []
    for note in notes:
        if "\n" in note.strip():
            items.append(f"<li><details><summary><b>Note:</b> {text(note.strip().splitlines()[-1])}"
                         f"</summary><pre>{text(note.strip())}</pre></details></li>")
        else:
            items.append(f"<li><b>Note:</b> {text(note)}</li>")
    return f"<ul>{''.join(items)}</ul>" if items else ""


def captured_html(result: ScenarioResult) -> str:
    """What an in-process scrubber printed during the scenario, collapsed under its
    summary line (it may be kilobytes of noise, and the failure matters more), with
    control characters as escapes (a printed clear-screen is shown, never obeyed)."""
    if not result.captured_output:
        return ""
    output = terminal_safe(result.captured_output)
    counts = output.splitlines()[0] if output.strip() else ""
    return (f'<details class="captured"><summary><b>Scrubber output</b> (its stdout and '
            f"stderr during this scenario, captured) {text(counts)}</summary>"
            f"<pre>{text(output)}</pre></details>")


def _severity_key(result: ScenarioResult) -> str:
    leak, must, should = SEVERITY_KEYS
    return {Severity.LEAK: leak, Severity.MUST: must}.get(an.scenario_severity(result), should)


def check_table(result: ScenarioResult) -> str:
    """One row per failing check of a scenario, numbered like the blocks below it."""
    rows = []
    for index, repro, _ in numbered_reproductions(result):
        failure = repro.failure
        smallest = f"{failure.chunking} ({plural(len(failure.deltas), 'delta')})"
        rows.append([f"[{index}]", text(failure.check), f"<code>{text(failure.rule)}</code>",
                     text(failure.level), text(smallest), str(repro.failing)])
    return table(["", "check", "rule", "level", "smallest failing chunking",
                   "failing chunkings"], rows, 5)


OPEN_FIRST = 3  # the worst few start expanded; a page of fifty open leaks scans badly
_DETAIL = "detail:".ljust(LABEL_WIDTH)
_GOT = "got:".ljust(LABEL_WIDTH)


def reproduction(failure: Failure, lines: list[str]) -> str:
    """The `label: value` lines of one failure as HTML for a <pre>: whitespace marks
    dimmed, the leaked text marked in `got`, and the detail wrapped instead of
    scrolled (expected and got keep their columns, so the caret stays aligned)."""
    span = leaked_span(failure)
    out: list[str] = []
    for number, line in enumerate(lines):
        if line.startswith(_DETAIL):
            detail = "\n".join(rest[LABEL_WIDTH:] for rest in lines[number:])
            out.append(f'{escape(_DETAIL)}<span class="wrap">{escape(detail)}</span>')
            break
        if span is not None and line.startswith(_GOT):
            out.append(escape(_GOT) + leak_excerpt(failure.got or "", *span))
        elif line.startswith(("expected:", "got:")):
            out.append(_mark_whitespace(line))
        else:
            out.append(escape(line))
    return "\n".join(out)


# The leak check's detail: `reasoning "<leaked text>" visible <when>, at output index N: ...`
_LEAK_DETAIL = re.compile(r" visible (?:at flush\(\)|after feed\(\) of delta \d+), "
                          r"at output index (\d+): ")
LEAK_QUOTE_LIMIT = 80  # how much of the leaked text the leak check quotes


def leaked_span(failure: Failure) -> tuple[int, int] | None:
    """Where in `failure.got` the leaked reasoning starts and ends, read back from the
    leak check's detail and confirmed against `got` itself (None when not certain).

    Failure records keep no structured span, but the detail names the output index
    and quotes the leaked text; a span is accepted only if quoting `got` there gives
    exactly that quote, so a changed message costs the highlight, never a wrong one.
    """
    got, detail = failure.got, failure.detail
    if not got or not failure.leak or not detail.startswith("reasoning "):
        return None
    for match in _LEAK_DETAIL.finditer(detail):
        start, shown = int(match.group(1)), detail[len("reasoning "):match.start()]
        # A quote shows at most LEAK_QUOTE_LIMIT marks, each standing for one character
        # or more: no span longer than that can give the same quote.
        for end in range(start + 1, min(len(got), start + LEAK_QUOTE_LIMIT + 1) + 1):
            if quoted(got[start:end], LEAK_QUOTE_LIMIT) == shown:
                return start, end
    return None


def leak_excerpt(got: str, start: int, end: int) -> str:
    """`got` around a leak, made visible, with the leaked text in <mark class="leaked">."""
    first, last = max(start - CONTEXT_BEFORE, 0), min(end + CONTEXT_AFTER, len(got))
    before = ("…" if first else "") + visible_whitespace(got[first:start])
    after = visible_whitespace(got[end:last]) + ("…" if last < len(got) else "")
    return (_mark_whitespace(before)
            + f'<mark class="leaked">{_mark_whitespace(visible_whitespace(got[start:end]))}'
            + f"</mark>{_mark_whitespace(after)}")


def scenario_block(result: ScenarioResult, expanded: bool = False) -> str:
    """One failing scenario as a collapsible block."""
    key = _severity_key(result)
    label = {"leak": "leak", "must": "MUST", "should": "SHOULD"}[key]
    parts = [
        f"<p><code>{text(f'{result.file}:{result.line}')}</code> · rules "
        f"{text(', '.join(result.rules))} · {result.chunkings_run} chunkings, "
        f"{result.checks_run} checks</p>"
    ]
    if result.description:
        parts.append(f"<blockquote>{markdown(result.description)}</blockquote>")
    parts.append(notes_html(result_notes(result)))
    parts.append(captured_html(result))
    if result.holdback is not None and any(f.check == Check.HOLDBACK for f in result.failures):
        parts.append(f"<p>Hold-back: {text(holdback_text(result))}.</p>")
    if result.metrics:
        parts.append(f"<p>Metrics: {text(metrics_text(result))}.</p>")
    parts.append(check_table(result))
    for index, repro, same in numbered_reproductions(result):
        parts.append(f"<h4>[{index}] {text(repro_heading(repro))}</h4>"
                     f"<pre>{reproduction(repro.failure, repro_lines(repro, same))}</pre>"
                     f"<pre>$ {text(replay_command(repro))}</pre>")
    open_attr = " open" if expanded else ""
    return (f'<details class="scenario" data-severity="{key}"{open_attr}><summary>'
            f'<span class="sev sev-{key}">{label}</span><code>'
            f"{text(an.scenario_title(result))}</code> {text(an.severity_label(result))}: "
            f"{text(an.failing_checks(result))}"
            f"</summary>{''.join(parts)}</details>")


def failures(run: RunResult) -> str:
    failing = an.failing_scenarios(run)
    if not failing:
        return '<section id="failures"><h2>Failing scenarios</h2><p>None.</p></section>'
    boxes = "".join(
        f'<label><input type="checkbox" value="{k}" checked> {k}</label> ' for k in SEVERITY_KEYS)
    controls = (
        '<div class="controls"><input type="search" id="filter" '
        'placeholder="filter by id, rule, check, text"> '
        f'{boxes}<button id="expand">expand all</button> '
        '<button id="collapse">collapse all</button></div>')
    legend = f"<p class=muted>Leaks first, then MUST, then SHOULD. {text(WHITESPACE_LEGEND)}</p>"
    blocks = "".join(scenario_block(r, index < OPEN_FIRST) for index, r in enumerate(failing))
    return (f'<section id="failures"><h2>Failing scenarios ({len(failing)})</h2>'
            f"{legend}{controls}{blocks}</section>")


def broken(run: RunResult) -> str:
    items = "".join(
        f'<li><span class="badge {r.outcome.value}">{r.outcome.value}</span>'
        f"<code>{text(an.scenario_title(r))}</code> (<code>{text(f'{r.file}:{r.line}')}</code>): "
        f"<code>{text(r.reason or 'no reason given')}</code>{notes_html(result_notes(r))}"
        f"{captured_html(r)}</li>"
        for r in an.broken_scenarios(run))
    return f'<section id="errors"><h2>Errors and timeouts</h2><ul>{items}</ul></section>' \
        if items else ""


def render_html(run: RunResult) -> str:
    """The whole page as one string."""
    digest = base64.b64encode(hashlib.sha256(_SCRIPT.encode()).digest()).decode()
    csp = (f"default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-{digest}'; "
           "img-src data:")
    bugs = html_section(run.explanation, run.scrubber) if run.explanation else ""
    body = "".join([header(run), bugs, corpus_errors(run), failures(run), broken(run),
                    scrubber_checks(run), violation_table(run), area_table(run),
                    rule_table(run), reasons(run)])
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{csp}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>scrubcheck report: {text(run.scrubber)}</title><style>{PAGE_CSS}</style></head>"
        f"<body>{body}<script>{_SCRIPT}</script></body></html>\n"
    )


def write_html(run: RunResult, path: Path) -> Path:
    path.write_text(render_html(run), encoding="utf-8")
    return path
