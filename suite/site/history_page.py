"""history.html: each implementation's trend across releases and runs.

Per implementation: its leaks per version, and for each pair of consecutive
versions the bugs fixed and new within the claim, each with its smallest stream
(where the matrix explained both), and the failure classes fixed and new, each with
its shortest example (the stream that shows it); or, when SPEC or the corpus changed
between the two, why they are not compared. The runs the history holds are listed with their source.
"""

from __future__ import annotations

from scrubcheck.reports.bugs import show
from scrubcheck.reports.htmlpage import text
from scrubcheck.site.history import Point, Step, judged_alike, steps, trends
from scrubcheck.site.page import href, page, scenario_path


def _classes(title: str, classes: tuple[dict, ...], known: set[str]) -> str:
    if not classes:
        return f"<p>{text(title)}: none.</p>"
    items = []
    for c in classes:
        example = str(c["example"])
        shown = (f'<a href="{href(0, scenario_path(example))}"><code>{text(example)}</code></a>'
                 if example in known else f"<code>{text(example)}</code>")
        items.append(f"<li><b>{text(c['verdict'])}</b> {text(c['rules'])} in "
                     f"{text(c['area'])}{', ' + text(c['family']) if c['family'] else ''} "
                     f"({c['scenarios']} scenarios); shortest {shown}: "
                     f"<code>{text(c['command'])}</code></li>")
    return f"<p>{text(title)} ({len(classes)}):</p><ul>{''.join(items)}</ul>"


def _bugs(title: str, bugs: tuple[dict, ...]) -> str:
    if not bugs:
        return f"<p>{text(title)}: none.</p>"
    items = "".join(f"<li><b>{text(b['kind'].upper())}</b> {text(b['name'])} "
                    f"({b['scenarios']} scenarios); smallest stream "
                    f"<code>{text(' '.join(show(d) for d in b['deltas']))}</code>: expected "
                    f"<code>{text(show(b['expected']))}</code>, got "
                    f"<code>{text(show(b['got']))}</code></li>" for b in bugs)
    return f"<p>{text(title)} ({len(bugs)}):</p><ul>{items}</ul>"


def _judge(point: Point) -> str:
    return (f"SPEC {point.spec_version or '?'}, corpus {point.corpus_digest or '?'}, "
            f"{point.mode or '?'} mode")


def _step(step: Step, known: set[str], level: int) -> str:
    head = (f"<h{level}>{text(step.before.version or step.before.name)} → "
            f"{text(step.after.version or step.after.name)}</h{level}>"
            f'<p class="muted">{text(step.before.name)} (run {text(step.before.run)}) → '
            f"{text(step.after.name)} (run {text(step.after.run)})</p>")
    if step.not_compared:
        return head + (f'<p class="banner" role="note">Not compared: {text(step.not_compared)}'
                       ". A class missing from the later run may be a scenario that changed, "
                       "not a bug fixed.</p>")
    where = (f"within its claim ({step.compared_in})" if step.compared_in != "generic"
             else "in the generic class (the matrix kept no classes within the claim)")
    bugs = ("" if step.fixed_bugs is None or step.new_bugs is None else
            f'<p class="muted">Bugs compared within its claim ({text(step.after.claim)}).</p>'
            + _bugs("Bugs fixed", step.fixed_bugs) + _bugs("New bugs", step.new_bugs))
    if not step.fixed and not step.new:
        return head + bugs + f"<p>No failure class changed {text(where)}.</p>"
    return (head + bugs + f'<p class="muted">Failure classes compared {text(where)}.</p>'
            + _classes("Fixed", step.fixed, known) + _classes("New", step.new, known))


def _series(base: str, series: list[Point], known: set[str]) -> str:
    rows = "".join(f"<tr><td>{text(p.version)}</td><td>{text(p.name)}</td>"
                   f"<td>{text(p.run)}</td><td>{text(p.spec_version)}, {text(p.corpus_digest)}"
                   f'</td><td class="n">{p.leaks}</td><td>{text(p.leaks_in)}</td>'
                   f'<td class="n">{len(p.classes)}</td>'
                   f'<td class="n">{"" if p.claim_classes is None else len(p.claim_classes)}'
                   f'</td><td class="n">{"" if p.bugs is None else len(p.bugs)}</td></tr>'
                   for p in series)
    parts = [f'<section id="impl-{text(base)}"><h2>{text(base)}</h2>'
             '<table><thead><tr><th scope="col">version</th><th scope="col">row</th>'
             '<th scope="col">run</th><th scope="col">SPEC, corpus</th>'
             '<th scope="col">leaking scenarios</th><th scope="col">counted in</th>'
             '<th scope="col">failure classes</th>'
             '<th scope="col">failure classes within claim</th>'
             '<th scope="col">bugs within claim</th></tr>'
             f"</thead><tbody>{rows}</tbody></table>"]
    groups = judged_alike(series)
    if len(groups) > 1:
        parts.append('<p class="banner" role="note">These runs were judged by '
                     f"{len(groups)} different SPEC versions, corpora or modes; versions are "
                     "compared only with runs judged alike, never across them: "
                     + "; ".join(_judge(g[0]) for g in groups) + ".</p>")
    for group in groups:
        versions = len({p.version for p in group})
        if len(groups) > 1:
            parts.append(f"<h3>Judged by {text(_judge(group[0]))}</h3>")
        if versions < 2:
            parts.append("<p>One version judged this way: nothing to compare.</p>")
            continue
        parts.extend(_step(s, known, 4 if len(groups) > 1 else 3) for s in steps(group))
    return "".join(parts) + "</section>"


def render_history(entries: list[dict], known: set[str], history_file: str) -> str:
    runs = "".join(f"<li>{text(e['run'])} ({text(e.get('date', ''))}): "
                   f"<code>{text(e.get('matrix', ''))}</code>, SPEC {text(e['spec_version'])}, "
                   f"corpus {text(e['corpus_digest'])}, {len(e['rows'])} rows</li>"
                   for e in entries)
    series = trends(entries)
    several = sum(1 for s in series.values() if len({p.version for p in s}) > 1)
    body = (f"<h1>History across releases</h1><p>From <code>{text(history_file)}</code> "
            '(published beside this page as <a href="history.json">history.json</a>, which a '
            f"later build appends to): {len(entries)} run{'s' if len(entries) != 1 else ''}; "
            f"{several} of {len(series)} implementations have more than "
            "one version. A failure class is its verdict, rules, area and family, so a class "
            "whose scenarios still fail but break fewer rules shows as one fixed and one new. "
            "Leaks count scenarios where reasoning reached the user within the class the "
            "implementation claims (SPEC section 12; \"counted in\" names it, generic where "
            "the history recorded no claim). Failure classes are compared within the claim "
            "where both runs kept them there, else in the generic class, and each step says "
            f"which.</p><ul>{runs}</ul>"
            + "".join(_series(base, s, known) for base, s in sorted(series.items())))
    return page("scrubcheck: history", body, 0)
