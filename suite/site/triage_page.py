"""triage.html: the bugs not yet reported first, then every triage entry with the bugs
and failure classes it covers, and the failure classes no entry covers (untriaged), so
a maintainer sees what still needs an upstream report. Bugs and classes are those each
implementation page leads with: within its claim (SPEC section 12) where the matrix
kept them, so an upstream report is asked for a bug within what the package says it
covers."""

from __future__ import annotations

from scrubcheck.reports.htmlpage import text
from scrubcheck.site.model import SiteData
from scrubcheck.site.page import href, impl_path, page
from scrubcheck.site.triage import TriageEntry, standing_of, triage_of

#: a bug with its standing: (implementation, its number on the page, the root cause,
#: the entries that give it its standing)
Standing = tuple[str, int, dict, list[TriageEntry]]


def bug_standings(site: SiteData, entries: list[TriageEntry]) -> list[Standing]:
    """Every explained bug of the site's implementations, with its triage entries."""
    return [(impl.name, number, cause, standing_of(entries, impl.name, cause))
            for impl in site.impls
            for number, cause in enumerate((impl.claim_bugs or {}).get("root_causes", []), 1)]


def standing_counts(standings: list[Standing]) -> dict[str, int]:
    """How many bugs are known upstream, by design, and not yet reported."""
    counts = {"known upstream": 0, "by design": 0, "not yet reported": 0}
    for _, _, _, found in standings:
        key = ("not yet reported" if not found else
               "by design" if all(e.by_design for e in found) else "known upstream")
        counts[key] += 1
    return counts


def _bug_rows(standings: list[Standing]) -> str:
    return "".join(
        f'<tr><td><a href="{href(0, impl_path(name))}#bugs">{text(name)} #{n}</a></td>'
        f'<td>{text(cause["kind"])}</td><td>{text(cause["name"])}</td>'
        f'<td class="n">{len(cause["scenarios"])}</td></tr>'
        for name, n, cause, _ in standings)


def untriaged_classes(site: SiteData, entries: list[TriageEntry]) -> list[tuple[str, int, dict]]:
    """(implementation, class number, class) of each class no entry matches."""
    out = []
    for impl in site.impls:
        for number, c in enumerate(impl.judged_classes[1] or [], 1):
            if not triage_of(entries, impl.name, c):
                out.append((impl.name, number, c))
    return out


def render_triage(site: SiteData, entries: list[TriageEntry], triage_file: str) -> str:
    standings = bug_standings(site, entries)
    rows = []
    for entry in entries:
        covered = [(impl.name, f"class-{n}", f"#{n}") for impl in site.impls
                   for n, c in enumerate(impl.judged_classes[1] or [], 1)
                   if entry.matches(impl.name, c)]
        covered += [(name, "bugs", f"bug {n}") for name, n, _, found in standings
                    if entry in found]
        links = ", ".join(f'<a href="{href(0, impl_path(name))}#{anchor}">{text(name)} '
                          f"{text(what)}</a>" for name, anchor, what in covered) \
            or '<span class="muted">none in these runs</span>'
        what = f"bugs named {entry.bug}" if entry.bug is not None else ", ".join(x for x in (
            f"rules {' · '.join(entry.rules)}" if entry.rules else "",
            f"family {entry.family}" if entry.family is not None else "",
            f"area {entry.area}" if entry.area else "") if x) or "every class"
        rows.append(f'<tr><td><code>{text(entry.implementation)}</code></td><td>{text(what)}</td>'
                    f'<td><a href="{text(entry.upstream)}">{text(entry.upstream)}</a></td>'
                    f'<td><span class="status">{text(entry.status)}</span></td>'
                    f"<td>{text(entry.note)}</td><td>{links}</td></tr>")
    untriaged = untriaged_classes(site, entries)
    items = "".join(f'<tr><td><a href="{href(0, impl_path(name))}#class-{n}">{text(name)} #{n}'
                    f'</a></td><td>{text(c["verdict"])}</td><td>{text(c["rules"])}</td>'
                    f'<td>{text(c["area"])}</td><td>{text(c["family"] or "hand-written")}</td>'
                    f'<td class="n">{c["scenarios"]}</td></tr>' for name, n, c in untriaged)
    unreported = [s for s in standings if not s[3]]
    by_design = [s for s in standings if s[3] and all(e.by_design for e in s[3])]
    bug_head = ('<table><thead><tr><th scope="col">bug</th><th scope="col">kind</th>'
                '<th scope="col">name</th><th scope="col">scenarios</th></tr></thead><tbody>')
    body = (f"<h1>Triage</h1>"
            f'<h2 id="unreported">Bugs not yet reported ({len(unreported)} of '
            f"{len(standings)})</h2><p>Bugs within each implementation's claim that no entry "
            "links to an upstream report or to the implementation's own documentation of the "
            f"choice.</p>{bug_head}{_bug_rows(unreported)}</tbody></table>"
            f'<h2 id="by-design">Bugs by design ({len(by_design)})</h2>'
            f"{bug_head}{_bug_rows(by_design)}</tbody></table>"
            f"<h2>Entries</h2><p>From <code>{text(triage_file)}</code>: {len(entries)} entries "
            "linking bugs and failure classes to upstream issues, pull requests and "
            "documentation. Status <i>unverified</i>: the thread is cited, its state not "
            "checked; <i>by-design</i>: the implementation documents the behaviour as its "
            "choice.</p>"
            '<table><thead><tr><th scope="col">implementation</th><th scope="col">about</th>'
            '<th scope="col">upstream</th><th scope="col">status</th><th scope="col">note</th>'
            f'<th scope="col">covers</th></tr></thead><tbody>{"".join(rows)}</tbody></table>'
            f'<h2 id="untriaged">Untriaged failure classes ({len(untriaged)})</h2>'
            '<table><thead><tr><th scope="col">class</th><th scope="col">verdict</th>'
            '<th scope="col">rules</th><th scope="col">area</th><th scope="col">family</th>'
            f'<th scope="col">scenarios</th></tr></thead><tbody>{items}</tbody></table>')
    return page("scrubcheck: triage", body, 0)
