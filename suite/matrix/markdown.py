"""matrix.md: the compliance matrix for a reader of the repository."""

from __future__ import annotations

from pathlib import Path

from scrubcheck.matrix.bugs import bugs_sentence
from scrubcheck.matrix.engines import engine_summaries
from scrubcheck.matrix.rows import (
    Matrix,
    Row,
    cell_counts,
    columns,
    counts_text,
    hall_of_bugs,
    observed_checks,
    pruned,
)
from scrubcheck.matrix.verdicts import ERROR, FAIL, LEAK, PASS, SHOULD, SKIPPED, UNSUPPORTED
from scrubcheck.matrix.within_claim import BEYOND, NOT_JUDGED, claims_in, counts
from scrubcheck.reports.bugs import headline, markdown_lines
from scrubcheck.reports.mdtext import cell, code_span

PRUNED_SHOWN = 120
FULL_REPORTS = "reports/peers/"
#: by a verdict's word, as the runs and matrix.json spell it (Verdict members are those words)
LETTER: dict[str, str] = {PASS: "✓", LEAK: "⚠", FAIL: "✗", SHOULD: "s", ERROR: "E",
                          UNSUPPORTED: "·", SKIPPED: "·"}


def _table(headers: list[str], rows: list[list[str]]) -> list[str]:
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return lines + [""]


def _label(row: Row) -> str:
    return f"**{row.name}**" + (" *(model)*" if row.model_of else "")


def headline_rows(matrix: Matrix) -> list[list[str]]:
    out = []
    for row in matrix.rows:
        if not row.ran and row.engine:  # a listed engine name: in the engines' section
            continue
        if not row.ran:
            out.append([_label(row), cell(row.package), cell(row.kind),
                        cell(row.claim), *[""] * 9, cell(row.status)])
            continue
        claim = row.claim
        t = counts(claim, row.verdicts())
        judged = t[PASS] + t[LEAK] + t[FAIL] + t[SHOULD] + t[ERROR]
        unjudged = f"; {t[NOT_JUDGED]} not judged in the class" if t[NOT_JUDGED] else ""
        out.append([_label(row), cell(row.package), cell(row.kind), cell(claim), str(t[PASS]),
                    str(t[LEAK]), str(t[FAIL]), str(t[SHOULD]), str(t[ERROR]), bug_count(row),
                    class_count(row), str(t[UNSUPPORTED] + t[SKIPPED]), str(t[BEYOND]),
                    f"{judged} judged{unjudged}; linear time {row.linear() or 'not run'}; "
                    f"{row.time_note()}"])
    return out


def grid_cell(row: Row, claim: str) -> str:
    """One cell of the class grid: pass/leak/fail within `claim`, and how many distinct
    failure classes the failing ones make (fail counts MUST and SHOULD failures and errors)."""
    t = counts(claim, row.verdicts())
    failed = t[FAIL] + t[SHOULD] + t[ERROR]
    found = row.class_count_within(claim)
    distinct = "" if not (t[LEAK] + failed) else (
        f" ({found} class{'es' if found != 1 else ''})" if found is not None else " (n/a)")
    return f"{t[PASS]}/{t[LEAK]}/{failed}{distinct}"


GRID_NOTE = ("Each implementation's scenarios within each class some implementation claims "
             "(SPEC section 12), as pass/leak/fail with the distinct failure classes they make; "
             "its own claim marked. A generic verdict stands within a class wherever the class "
             "expects the same output; scenarios whose class expectation differs are not "
             "counted here (the headline's notes give how many).")


def claim_grid(matrix: Matrix) -> list[str]:
    """Implementation × class: each row within every class some row claims; · beyond it."""
    classes = claims_in(r.claim for r in matrix.ran)
    body = []
    for row in matrix.ran:
        cells = []
        for claim in classes:
            mark = "**" if claim == row.claim else ""
            cells.append(f"{mark}{grid_cell(row, claim)}{mark}")
        body.append([_label(row), *cells])
    return ["## Within each class", "", GRID_NOTE, "",
            *_table(["implementation", *classes], body)]


def class_count(row: Row) -> str:
    """The headline's distinct failure classes within the row's claim (n/a: a stored
    matrix that did not keep them)."""
    found = row.class_count_within(row.claim)
    return "n/a" if found is None else str(found)


def bug_count(row: Row) -> str:
    """The headline's bugs within the row's claim (n/a: not explained)."""
    found = row.bug_count()
    return "n/a" if found is None else str(found)


HEADLINE = ["implementation", "package", "kind", "claim", "pass", "leak", "fail (MUST)",
            "fail (SHOULD only)", "error", "bugs within claim", "distinct failure classes",
            "unsupported", "beyond claim", "notes"]
CLASSES_SHOWN = 12


def render_markdown(matrix: Matrix) -> str:
    lines = [
        "# scrubcheck compliance matrix", "",
        f"Real reasoning scrubbers, each installed from its own package into its own "
        f"environment and driven through the same corpus and checks as the reference. "
        f"Generated {matrix.started_at} by `scrubcheck matrix` in {matrix.mode} mode; "
        f"{matrix.production()}.", "",
        f"**Mode.** {matrix.mode_note}", "",
        f"**Full reports.** Each implementation's own report (Markdown, HTML, JSON, JUnit) is "
        f"written to `{FULL_REPORTS}<name>/` by the same command; they are 10–20 MB each, so "
        "the repository keeps only this matrix (and matrix.json, which `scrubcheck diff` "
        "reads).", "",
        "Verdicts per scenario: ✓ pass, ⚠ leaks reasoning, ✗ fails a MUST rule, s fails "
        "only SHOULD rules, E error or timeout, · unsupported (the scenario's context or "
        "features cannot be given to it; never counted as a pass).", "",
        "## Headline", "",
        *([f"**{sentence}.**", ""] if (sentence := bugs_sentence(matrix)) else []),
        "Scenario counts within each implementation's claim (SPEC section 12: the class "
        "its documentation or source says its configuration covers, cited in its manifest; "
        "scenarios holding other formats' delimiters are beyond the claim and counted apart); "
        "the bugs behind the failing ones, each failure shrunk to a smallest stream and "
        "grouped by the SPEC decision it gets wrong (docs/bugs.md; listed below with their "
        "smallest streams); and the distinct failure classes: failing scenarios grouped by "
        "verdict, failed rules, corpus area and generating family, an upper bound on the "
        "bugs that needs no rerun.", "",
    ]
    lines += _table(HEADLINE, headline_rows(matrix))
    lines += _engines(matrix)
    lines += claim_grid(matrix)
    for key, title in (("group", "By SPEC rule group"), ("area", "By corpus area")):
        cols = columns(matrix, key)
        lines += [f"## {title}", "",
                  "Cells are pass/fail/unsupported scenario counts; ⚠n: n of the failures leak; "
                  "En: errors.", ""]
        body = []
        for row in matrix.ran:
            cells = cell_counts(row, key)
            body.append([_label(row)] + [counts_text(cells[c]) if c in cells else "" for c in cols])
        lines += _table(["implementation", *cols], body)
    lines += (_bugs(matrix) + _observed(matrix) + _restrictions(matrix) + _pruned(matrix)
              + _classes(matrix) + _hall(matrix))
    return "\n".join(lines) + "\n"


def _observed(matrix: Matrix) -> list[str]:
    lines = ["## Behaviour observed in the field, reproduced here", "",
             "Each behaviour a peer's manifest records as observed (`[[observed]]` in "
             "`scrubbers/peers/<name>/peer.toml`; claims about every peer in "
             "`scrubbers/peers/observed.toml`), the scenario that shows it and this run's "
             "verdict for the peer (confirmed: the verdict is the one the observation "
             "predicts; a claim about every peer is judged on each peer's output for the "
             "stream as one delta, and confirmed means no peer that handles the claim's "
             "control scenario, the same stream without the twist, contradicts it).", ""]
    body = []
    for check in observed_checks(matrix):
        claim = check.claim
        behaviour = cell(claim.behaviour + (f" ({claim.note})" if claim.note else ""))
        if claim.source:
            behaviour += f" [source]({source_link(claim.source)})"
        body.append([behaviour, check.peer, code_span(check.scenario_id),
                     cell(f"{LETTER.get(check.verdict, '')} {check.verdict}".strip()),
                     "yes" if check.confirmed else "**no**",
                     code_span(check.command) if check.command else ""])
    return lines + _table(["behaviour", "peer", "scenario", "verdict", "confirmed",
                           "reproduce"], body)


def source_link(source: str) -> str:
    """A claim's source as a link from reports/: the repository's docs, or a public URL."""
    return source if "://" in source else f"../{source}"


def _engines(matrix: Matrix) -> list[str]:
    summaries = engine_summaries(matrix)
    if not summaries:
        return []
    lines = ["## Serving engines: every registered parser", "",
             "Each engine's reasoning parsers as its installed release registers them, read "
             "from it (`scrubcheck.peers.engines`): a row `ENGINE:NAME` per name, judged in "
             "the class its probe showed (the parser's own format where the registry has "
             "one); a name with a hand-made row counts with that row. Names not run are "
             "listed with why.", ""]
    body = [[f"**{s.engine}**", cell(s.package), str(s.registered), str(len(s.ran)),
             str(len(s.passed)),
             cell(", ".join(f"{n} {k}" for k, n in sorted(s.listed.items())) or "none")]
            for s in summaries]
    lines += _table(["engine", "package", "registered", "run", "pass their own class",
                     "listed, not run"], body)
    for summary in summaries:
        if summary.listed_rows:
            lines += [f"Listed names of {summary.engine}:", ""]
            lines += [f"- **{row.name}**: {cell(row.status)}" for row in summary.listed_rows]
            lines.append("")
    return lines


def _restrictions(matrix: Matrix) -> list[str]:
    lines = ["## Restrictions and implementations not run", ""]
    for row in matrix.rows:
        if not row.ran and row.engine:  # listed in the engines' section
            continue
        notes = ([f"model: {row.model_of}"] if row.model_of else []) + row.restrictions
        if not row.ran:
            notes.insert(0, f"not run: {row.status}")
        for note in notes:
            lines.append(f"- **{row.name}**: {cell(note)}")
    return lines + [""]


def _pruned(matrix: Matrix) -> list[str]:
    ids = pruned(matrix)
    rows = matrix.ran
    lines = ["## Where implementations differ (pruned view)", "",
             f"{len(ids)} of {len(matrix.scenario_ids())} scenarios; the others are treated alike "
             "by every implementation that could run them."
             + (f" The first {PRUNED_SHOWN} are shown; matrix.html and matrix.json have all."
                if len(ids) > PRUNED_SHOWN else ""), ""]
    verdicts = [row.verdicts() for row in rows]
    body = [[code_span(i)] + [LETTER.get(v.get(i, ""), "") for v in verdicts]
            for i in ids[:PRUNED_SHOWN]]
    return lines + _table(["scenario", *[r.name for r in rows]], body)


def _bugs(matrix: Matrix) -> list[str]:
    """Each implementation's bugs within its claim, with its smallest stream each."""
    lines = ["## Bugs within each claim", "",
             "Each implementation's failing scenarios within its claim, explained as root "
             "causes: the smallest stream of each, what SPEC expects and what came out, and "
             "the command that replays it.", ""]
    for row in matrix.ran:
        data = row.claim_bugs()
        lines += [f"### {row.name}" + (" (model)" if row.model_of else ""), ""]
        if data is None:
            lines += ["Not explained in this run.", ""]
            continue
        if not data["failing_scenarios"]:
            lines += [f"No failing scenario within {row.claim}.", ""]
            continue
        lines += [headline(data) + ".", "", *markdown_lines(data, row.spec, level="###")[2:]]
    return lines


def _classes(matrix: Matrix) -> list[str]:
    lines = ["## Distinct failure classes", "",
             "For each implementation, its failing scenarios within its claim grouped by "
             "verdict, failed rules, area and generating family (family `—`: hand-written "
             "scenarios), largest first, with the shortest failing example of each and the "
             "command that reproduces it; the generic class's count (every scenario, other "
             f"formats' included) follows. The first {CLASSES_SHOWN} per implementation are "
             "shown; matrix.html and matrix.json have all.", ""]
    for row in matrix.ran:
        classes = row.classes_within(row.claim)
        lines += [f"### {row.name}" + (" (model)" if row.model_of else ""), ""]
        if classes is None:
            lines += ["Not kept in the stored matrix this page was rendered from.", ""]
            continue
        generic = row.failure_classes()
        also = ("" if row.claim == "generic" or generic is None else
                f" In the generic class: {len(generic)} classes.")
        if not classes:
            lines += [f"No failing scenario within {row.claim}.{also}", ""]
            continue
        scenarios = sum(c.scenarios for c in classes)
        lines.append(f"Within {row.claim}: {len(classes)} classes over {scenarios} failing "
                     f"scenarios.{also}")
        lines.append("")
        body = [[f"{LETTER[c.verdict]} {c.verdict}", cell(c.rules or "(no failure recorded)"),
                 cell(c.area), code_span(c.family) if c.family else "—", str(c.scenarios),
                 code_span(c.example) + (f" ({c.size} chars)" if c.size else ""),
                 code_span(c.command) if c.command else ""]
                for c in classes[:CLASSES_SHOWN]]
        lines += _table(["verdict", "rules", "area", "family", "scenarios",
                         "shortest example", "reproduce"], body)
    return lines


def _hall(matrix: Matrix) -> list[str]:
    lines = ["## Hall of bugs", "",
             "For each implementation, its shortest failing scenarios, leaks first, with the "
             "one command that reproduces each.", ""]
    for row in matrix.ran:
        hall = hall_of_bugs(row)
        lines += [f"### {row.name}" + (" (model)" if row.model_of else ""), ""]
        if not hall:
            lines += ["No failing scenario.", ""]
            continue
        for entry in hall:
            lines.append(f"- {LETTER[entry.verdict]} {code_span(entry.scenario_id)} — "
                         f"{cell(entry.checks)} (smallest: {entry.chunking})  ")
            lines.append(f"  {code_span(entry.command)}")
        lines.append("")
    return lines


def write_matrix_markdown(matrix: Matrix, path: Path) -> Path:
    path.write_text(render_markdown(matrix), encoding="utf-8")
    return path
