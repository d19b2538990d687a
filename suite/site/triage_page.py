"""triage.html: every triage entry with the failure classes it covers, and the failure
classes no entry covers (untriaged), so a maintainer sees what still needs an
upstream report. The classes are those each implementation page leads with: within
its claim (SPEC section 12) where the matrix kept them, so an upstream report is asked
for a bug within what the package says it covers."""

from __future__ import annotations

from scrubcheck.reports.htmlpage import text
from scrubcheck.site.model import SiteData
from scrubcheck.site.page import href, impl_path, page
from scrubcheck.site.triage import TriageEntry, triage_of


def untriaged_classes(site: SiteData, entries: list[TriageEntry]) -> list[tuple[str, int, dict]]:
    """(implementation, class number, class) of each class no entry matches."""
    out = []
    for impl in site.impls:
        for number, c in enumerate(impl.judged_classes[1] or [], 1):
            if not triage_of(entries, impl.name, c):
                out.append((impl.name, number, c))
    return out


def render_triage(site: SiteData, entries: list[TriageEntry], triage_file: str) -> str:
    rows = []
    for entry in entries:
        covered = [(impl.name, n) for impl in site.impls
                   for n, c in enumerate(impl.judged_classes[1] or [], 1)
                   if entry.matches(impl.name, c)]
        links = ", ".join(f'<a href="{href(0, impl_path(name))}#class-{n}">{text(name)} #{n}</a>'
                          for name, n in covered) or '<span class="muted">none in these runs</span>'
        what = ", ".join(x for x in (
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
    body = (f"<h1>Triage</h1><p>From <code>{text(triage_file)}</code>: {len(entries)} entries "
            "linking failure classes to upstream issues and pull requests. Status "
            "<i>unverified</i>: the thread is cited, its state not checked.</p>"
            '<table><thead><tr><th scope="col">implementation</th><th scope="col">classes</th>'
            '<th scope="col">upstream</th><th scope="col">status</th><th scope="col">note</th>'
            f'<th scope="col">covers</th></tr></thead><tbody>{"".join(rows)}</tbody></table>'
            f'<h2 id="untriaged">Untriaged failure classes ({len(untriaged)})</h2>'
            '<table><thead><tr><th scope="col">class</th><th scope="col">verdict</th>'
            '<th scope="col">rules</th><th scope="col">area</th><th scope="col">family</th>'
            f'<th scope="col">scenarios</th></tr></thead><tbody>{items}</tbody></table>')
    return page("scrubcheck: triage", body, 0)
