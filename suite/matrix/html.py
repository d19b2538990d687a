"""matrix.html: the compliance matrix as one self-contained, script-free page.

Built from the same views as matrix.md, with the report pages' stylesheet and
table helper; every piece of scenario text is escaped.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from scrubcheck.matrix.bugs import bugs_sentence
from scrubcheck.matrix.engines import engine_summaries
from scrubcheck.matrix.markdown import (
    GRID_NOTE,
    HEADLINE,
    LETTER,
    bug_count,
    class_count,
    grid_cell,
    source_link,
)
from scrubcheck.matrix.rows import (
    Matrix,
    cell_counts,
    columns,
    counts_text,
    hall_of_bugs,
    observed_checks,
    pruned,
)
from scrubcheck.matrix.verdicts import ERROR, FAIL, LEAK, PASS, SHOULD, SKIPPED, UNSUPPORTED
from scrubcheck.matrix.within_claim import BEYOND, NOT_JUDGED, claims_in, counts
from scrubcheck.reports.bugs import html_section
from scrubcheck.reports.htmlpage import PAGE_CSS, table, text

_EXTRA_CSS = """
td.v-PASS{background:#dafbe1}td.v-LEAK{background:#82071e;color:#fff;font-weight:700}
td.v-FAIL{background:#ffebe9;font-weight:700}td.v-SHOULD{background:#fff8c5}
td.v-ERROR{background:#fff1e5}td.v-UNSUPPORTED,td.v-SKIPPED{color:#8c959f}
td.c-ok{background:#dafbe1}td.c-some{background:#fff8c5}td.c-bad{background:#ffebe9}
td.c-leak{background:#ffcecb;font-weight:700}td.c-none{color:#8c959f}
.model{font-style:italic;color:#9a6700}
"""


def _cell_class(counts: Counter) -> str:
    judged = sum(counts[v] for v in (PASS, LEAK, FAIL, SHOULD, ERROR))
    if not judged:
        return "c-none"
    if counts[LEAK]:
        return "c-leak"
    bad = counts[FAIL] + counts[ERROR]
    if not bad and not counts[SHOULD]:
        return "c-ok"
    return "c-bad" if bad * 4 >= judged else "c-some"


def _name(row) -> str:
    return f"<b>{text(row.name)}</b>" + (' <span class="model">(model)</span>'
                                         if row.model_of else "")


def render_html(matrix: Matrix) -> str:
    parts = [f"<h1>scrubcheck compliance matrix</h1><p>Generated {text(matrix.started_at)}, "
             f"{text(matrix.mode)} mode; {text(matrix.production())}. "
             f"{text(matrix.mode_note)}</p>"
             "<p class=muted>Cells are pass/fail/unsupported scenario counts; ⚠n: n of the "
             "failures leak reasoning; En: errors. Unsupported scenarios are never passes.</p>"]
    rows = []
    for row in matrix.rows:
        claim = row.claim
        if not row.ran and row.engine:  # a listed engine name: in the engines' section
            continue
        if not row.ran:
            rows.append([_name(row), text(row.package), text(row.kind), text(claim),
                         *[""] * 9, text(row.status)])
            continue
        t = counts(claim, row.verdicts())
        rows.append([_name(row), text(row.package), text(row.kind), text(claim),
                     *[f'<td class="n v-{v if t[v] else "UNSUPPORTED"}">{t[v]}</td>'
                       for v in (PASS, LEAK, FAIL, SHOULD, ERROR)],
                     text(bug_count(row)), text(class_count(row)),
                     str(t[UNSUPPORTED] + t[SKIPPED]), str(t[BEYOND]),
                     text(f"linear time {row.linear() or 'not run'}"
                          + (f"; {t[NOT_JUDGED]} not judged in the class"
                             if t[NOT_JUDGED] else "") + f"; {row.time_note()}")])
    sentence = bugs_sentence(matrix)
    parts.append("<h2>Headline</h2>" + (f"<p><b>{text(sentence)}.</b></p>" if sentence else "")
                 + "<p class=muted>Counts within each implementation's claim (SPEC section "
                 "12); beyond-claim scenarios are counted apart; the bugs within the claim "
                 "are listed below, each with its smallest stream.</p>"
                 + table(HEADLINE, rows, 4))
    parts.append(_engines(matrix))
    grid = claims_in(r.claim for r in matrix.ran)
    parts.append(f"<h2>Within each class</h2><p class=muted>{text(GRID_NOTE)}</p>" + table(
        ["implementation", *grid],
        [[_name(row)] + [(f"<td><b>{text(grid_cell(row, c))}</b></td>" if c == row.claim
                          else text(grid_cell(row, c))) for c in grid]
         for row in matrix.ran], 1))
    for key, title in (("group", "By SPEC rule group"), ("area", "By corpus area")):
        cols = columns(matrix, key)
        body = []
        for row in matrix.ran:
            cells = cell_counts(row, key)
            body.append([_name(row)] + [
                f'<td class="n {_cell_class(cells.get(c, Counter()))}">'
                f"{text(counts_text(cells[c])) if c in cells else ''}</td>" for c in cols])
        parts.append(f"<h2>{text(title)}</h2>" + table(["implementation", *cols], body, 1))
    parts.append(_bugs(matrix))
    parts.append(_observed(matrix))
    parts.append(_restrictions(matrix))
    parts.append(_pruned(matrix))
    parts.append(_classes(matrix))
    parts.append(_hall(matrix))
    content = "".join(parts)
    csp = "default-src 'none'; style-src 'unsafe-inline'"
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f'<meta http-equiv="Content-Security-Policy" content="{csp}">'
            "<title>scrubcheck compliance matrix</title>"
            f"<style>{PAGE_CSS}{_EXTRA_CSS}</style></head><body>{content}</body></html>\n")


def _bugs(matrix: Matrix) -> str:
    parts = ["<h2>Bugs within each claim</h2><p>Each implementation's failing scenarios "
             "within its claim, explained as root causes, each with its smallest stream.</p>"]
    for row in matrix.ran:
        data = row.claim_bugs()
        if data is None:
            body = "<p>Not explained in this run.</p>"
        elif not data["failing_scenarios"]:
            body = f"<p>No failing scenario within {text(row.claim)}.</p>"
        else:
            body = html_section(data, row.spec, level=4)
        parts.append(f"<h3>{_name(row)}</h3>{body}")
    return "".join(parts)


def _observed(matrix: Matrix) -> str:
    rows = []
    for check in observed_checks(matrix):
        claim = check.claim
        note = f" <i>({text(claim.note)})</i>" if claim.note else ""
        source = (f' <a href="{text(source_link(claim.source))}">source</a>'
                  if claim.source else "")
        rows.append([text(claim.behaviour) + note + source, text(check.peer),
                     f"<code>{text(check.scenario_id)}</code>",
                     f'<td class="v-{check.verdict if check.verdict in LETTER else "SKIPPED"}">'
                     f"{text(check.verdict)}</td>",
                     "yes" if check.confirmed else "<b>no</b>",
                     f"<code>{text(check.command)}</code>"])
    return ("<h2>Behaviour observed in the field, reproduced here</h2>"
            + table(["behaviour", "peer", "scenario", "verdict", "confirmed", "reproduce"],
                     rows, 99))


def _engines(matrix: Matrix) -> str:
    summaries = engine_summaries(matrix)
    if not summaries:
        return ""
    body = [[f"<td><b>{text(s.engine)}</b></td>", text(s.package), str(s.registered),
             str(len(s.ran)), str(len(s.passed)),
             text(", ".join(f"{n} {k}" for k, n in sorted(s.listed.items())) or "none")]
            for s in summaries]
    listed = "".join(
        f"<details><summary>Listed names of {text(s.engine)} ({len(s.listed_rows)})</summary>"
        f"<ul>{''.join(f'<li>{_name(r)}: {text(r.status)}</li>' for r in s.listed_rows)}"
        "</ul></details>" for s in summaries if s.listed_rows)
    return ("<h2>Serving engines: every registered parser</h2><p class=muted>Each engine's "
            "reasoning parsers as its installed release registers them, read from it: a row "
            "ENGINE:NAME per name, judged in the class its probe showed; a name with a "
            "hand-made row counts with that row. Names not run are listed with why.</p>"
            + table(["engine", "package", "registered", "run", "pass their own class",
                     "listed, not run"], body, 1) + listed)


def _restrictions(matrix: Matrix) -> str:
    items = []
    for row in matrix.rows:
        if not row.ran and row.engine:
            continue
        notes = ([f"model: {row.model_of}"] if row.model_of else []) + row.restrictions
        if not row.ran:
            notes.insert(0, f"not run: {row.status}")
        items += [f"<li>{_name(row)}: {text(note)}</li>" for note in notes]
    return f"<h2>Restrictions and implementations not run</h2><ul>{''.join(items)}</ul>"


def _pruned(matrix: Matrix) -> str:
    ids = pruned(matrix)
    ran = matrix.ran
    verdicts = [row.verdicts() for row in ran]
    rows = [[f"<code>{text(i)}</code>"] + [
        f'<td class="v-{v.get(i, "SKIPPED")}" title="{text(v.get(i, ""))}">'
        f"{LETTER.get(v.get(i, ''), '')}</td>" for v in verdicts] for i in ids]
    return (f"<h2>Where implementations differ (pruned view: {len(ids)} of "
            f"{len(matrix.scenario_ids())} scenarios)</h2>"
            + table(["scenario", *[r.name for r in ran]], rows, 99))


def _classes(matrix: Matrix) -> str:
    parts = ["<h2>Distinct failure classes</h2><p>Failing scenarios within each "
             "implementation's claim grouped by verdict, failed rules, area and generating "
             "family (— for hand-written scenarios), with the shortest failing example of "
             "each.</p>"]
    for row in matrix.ran:
        classes = row.classes_within(row.claim)
        if classes is None:
            parts.append(f"<h3>{_name(row)}</h3><p>Not kept in the stored matrix.</p>")
            continue
        body = [[f'<td class="v-{c.verdict}">{text(c.verdict)}</td>', text(c.rules),
                 text(c.area), f"<code>{text(c.family)}</code>" if c.family else "—",
                 str(c.scenarios),
                 f"<code>{text(c.example)}</code>" + (f" ({c.size} chars)" if c.size else "")
                 + (f"<pre>$ {text(c.command)}</pre>" if c.command else "")]
                for c in classes]
        generic = row.failure_classes()
        also = ("" if row.claim == "generic" or generic is None
                else f" (in the generic class: {len(generic)})")
        parts.append(f"<h3>{_name(row)}: {len(classes)} classes within "
                     f"{text(row.claim)}{text(also)}</h3>"
                     + (table(["verdict", "rules", "area", "family", "scenarios",
                                "shortest example"], body, 4) if body
                        else "<p>No failing scenario.</p>"))
    return "".join(parts)


def _hall(matrix: Matrix) -> str:
    parts = ["<h2>Hall of bugs</h2><p>Shortest failing scenarios, leaks first, with the "
             "command that reproduces each.</p>"]
    for row in matrix.ran:
        items = "".join(
            f'<li><span class="sev sev-{"leak" if e.verdict == LEAK else "must"}">'
            f"{text(e.verdict)}</span><code>{text(e.scenario_id)}</code> — {text(e.checks)} "
            f"(smallest: {text(e.chunking)})<pre>$ {text(e.command)}</pre></li>"
            for e in hall_of_bugs(row))
        parts.append(f"<h3>{_name(row)}</h3>" + (f"<ul>{items}</ul>" if items
                                                 else "<p>No failing scenario.</p>"))
    return "".join(parts)


def write_matrix_html(matrix: Matrix, path: Path) -> Path:
    path.write_text(render_html(matrix), encoding="utf-8")
    return path
