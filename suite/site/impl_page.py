"""impl/NAME.html: one implementation: what it is, its bugs, its failure classes, its badge.

The page leads with the bugs within its claim (matrix.bugs), each with its smallest
stream, expected and actual output and replay command: what its maintainer acts on.
Each failure class shows its shortest failing stream delta by delta, what the
implementation printed with the leaked reasoning marked, the command that
reproduces it and the upstream issue the triage file links it to (or says it is
untriaged). A matrix.json written before the examples' evidence was kept has
no output to show: the page says so and gives the command, never an empty box.
"""

from __future__ import annotations

from scrubcheck.matrix.verdicts import VERDICTS
from scrubcheck.matrix.within_claim import BEYOND, NOT_JUDGED
from scrubcheck.reports.bugs import html_section
from scrubcheck.reports.htmlpage import text
from scrubcheck.site.badges import badge_svg, embed_snippets
from scrubcheck.site.model import Impl, SiteData
from scrubcheck.site.page import href, page, scenario_path
from scrubcheck.site.stream import deltas_html, output_html
from scrubcheck.site.triage import TriageEntry, standing_of, triage_of


def triage_html(entries: list[TriageEntry]) -> str:
    if not entries:
        return '<span class="untriaged">untriaged</span>'
    return "; ".join(f'<a href="{text(e.upstream)}">{text(e.upstream)}</a> '
                     f'<span class="status">{text(e.status)}</span>' for e in entries)


def _class_section(site: SiteData, impl: Impl, number: int, failure_class: dict,
                   entries: list[TriageEntry]) -> str:
    example = str(failure_class["example"])
    evidence = impl.examples.get(example)
    scenario = site.scenarios.get(example)
    link = f'<a href="{href(1, scenario_path(example))}"><code>{text(example)}</code></a>'
    parts = [f'<section id="class-{number}"><h3>{number}. '
             f'<span class="verdict-{text(failure_class["verdict"])}">&nbsp;'
             f'{text(failure_class["verdict"])}&nbsp;</span> '
             f'{text(failure_class["rules"] or "no rule (the task was lost)")}'
             f" in {text(failure_class['area'])}"
             + (f", family {text(failure_class['family'])}" if failure_class["family"] else "")
             + "</h3>",
             f"<p>{failure_class['scenarios']} failing scenarios; shortest: {link}"
             + (f" ({failure_class['size']} characters)" if failure_class.get("size") else "")
             + f". Upstream: {triage_html(entries)}.</p>"]
    if evidence:
        parts.append(f"<p>The stream under chunking <code>{text(evidence['chunking'])}</code> "
                     f"(check {text(evidence['check'])}, {text(evidence['rule'])}):</p>")
        parts.append(deltas_html(evidence["deltas"], scenario, int(evidence.get("deltas_cut")
                                                                    or 0)))
        cut = (f" (from character {evidence['got_from']})" if evidence.get("got_from") else "")
        parts.append(f"<p>What it printed{cut}, the leaked reasoning marked:</p>"
                     + output_html(evidence.get("got"), evidence.get("leak")))
        if evidence.get("expected") is not None:
            parts.append("<p>Expected:</p>" + output_html(evidence["expected"], None))
    elif scenario is not None:
        parts.append("<p>The recorded stream (this matrix.json kept no output for the example: "
                     "rerun <code>scrubcheck matrix</code> to keep it, or run the command):</p>"
                     + deltas_html(scenario.deltas, scenario))
    else:
        parts.append('<p class="muted">Neither the output nor the stream is available: the '
                     "scenario is not in today's corpus.</p>")
    parts.append(f'<p>Reproduce:</p><pre>$ {text(failure_class["command"])}</pre></section>')
    return "".join(parts)


def _class_index(classes: list[dict], triaged: list[list[TriageEntry]],
                 anchor: str | None) -> str:
    """The table of failure classes; with `anchor`, each number links to its section."""
    def number(n: int) -> str:
        return f'<a href="#{anchor}{n}">{n}</a>' if anchor else str(n)

    body = "".join(
        f'<tr><td>{number(n)}</td><td class="verdict-{text(c["verdict"])}">'
        f'{text(c["verdict"])}</td><td>{text(c["rules"])}</td><td>{text(c["area"])}</td>'
        f'<td>{text(c["family"] or "hand-written")}</td><td class="n">{c["scenarios"]}</td>'
        f"<td>{triage_html(t)}</td></tr>"
        for n, (c, t) in enumerate(zip(classes, triaged, strict=True), 1))
    return ('<table><thead><tr><th scope="col">#</th><th scope="col">verdict</th>'
            '<th scope="col">rules</th><th scope="col">area</th><th scope="col">family</th>'
            '<th scope="col">scenarios</th><th scope="col">upstream</th></tr></thead>'
            f"<tbody>{body}</tbody></table>")


def standing_html(entries: list[TriageEntry]) -> str:
    """A bug's standing: by design (the reason, and where the implementation says so), a
    known upstream bug (its link and status), or not yet reported."""
    if not entries:
        return '<div class="standing untriaged">standing: not yet reported</div>'
    parts = []
    for entry in entries:
        link = f'<a href="{text(entry.upstream)}">{text(entry.upstream)}</a>'
        if entry.by_design:
            parts.append(f'<span class="status">by design</span>: {text(entry.note)} '
                         f"(documented at {link})")
        else:
            parts.append(f'known upstream bug {link} <span class="status">'
                         f"{text(entry.status)}</span>"
                         + (f": {text(entry.note)}" if entry.note else ""))
    return f'<div class="standing">standing: {"; ".join(parts)}</div>'


def _bugs(impl: Impl, triage: list[TriageEntry]) -> str:
    """What a maintainer acts on, first: the bugs within its claim, each with its smallest
    stream (the reports' own renderer, as `scrubcheck run` shows them) and its standing
    in the triage file."""
    data = impl.claim_bugs
    where = f" within its claim ({impl.claim})" if impl.claim != "generic" else ""
    if data is None:
        return (f"<h2>Bugs{text(where)}</h2><p>Not explained in this matrix: its failure "
                "classes follow.</p>")
    if not data["failing_scenarios"]:
        return f"<h2>Bugs{text(where)}</h2><p>None: every judged scenario passes.</p>"
    return html_section(data, impl.spec,
                        beside=lambda cause: standing_html(standing_of(triage, impl.name,
                                                                       cause)))


def _counts(totals: dict[str, int]) -> str:
    return " · ".join(f"{totals[v]} {v.lower()}" for v in VERDICTS if totals.get(v))


def render_impl(site: SiteData, impl: Impl, triage: list[TriageEntry], base_url: str) -> str:
    counts = _counts(impl.totals())
    if impl.claim != "generic":  # SPEC section 12: what it claims first, the rest apart
        within = impl.claim_totals()
        apart = ", ".join(f"{within[w]} {w.lower()}" for w in (BEYOND, NOT_JUDGED)
                          if within.get(w))
        counts = (f"within its claim ({impl.claim}): {_counts(within)}"
                  + (f" ({apart}, shown apart)" if apart else "")
                  + f"; in the generic class: {counts}")
    facts = [("package", impl.package), ("version", impl.version or "not recorded"),
             ("kind", impl.kind),
             ("adapter", impl.spec), ("linear time (R-ROBUST-2)", impl.linear or "not run"),
             ("judged by", impl.provenance.judged_by),
             ("run", f"{impl.provenance.started_at}, {impl.provenance.mode} mode")]
    if impl.model_of:
        facts.append(("note", f"a model of {impl.model_of}, not released code"))
    rows = "".join(f"<tr><th scope=\"row\">{text(k)}</th><td>{text(v)}</td></tr>"
                   for k, v in facts)
    parts = [f"<h1>{text(impl.name)}</h1><p>{text(impl.title)}</p>",
             f"<table>{rows}</table><p><b>Scenarios:</b> {text(counts)}.</p>",
             _bugs(impl, triage)]
    if impl.restrictions:
        parts.append("<h2>Restrictions</h2><ul>"
                     + "".join(f"<li>{text(r)}</li>" for r in impl.restrictions) + "</ul>")
    snippets = "".join(f'<p>{text(what)}:</p><pre class="snippet">{text(code)}</pre>'
                       for what, code in embed_snippets(impl, base_url))
    parts.append(f'<h2>Badge</h2><p>{badge_svg(impl)}</p><p>Files: '
                 f'<a href="{href(1, f"badges/{impl.name}.svg")}">SVG</a>, '
                 f'<a href="{href(1, f"badges/{impl.name}.json")}">shields endpoint JSON</a>. '
                 "Replace the base address with where this site is served.</p>" + snippets)
    judged_in, classes = impl.judged_classes
    where = f" within its claim ({judged_in})" if judged_in != "generic" else ""
    if classes is None:
        parts.append("<h2>Failure classes</h2><p>This matrix.json was made before failure "
                     "classes were kept.</p>")
    elif not classes:
        parts.append(f"<h2>Failure classes{text(where)}</h2><p>None: every judged scenario "
                     "passes.</p>")
    else:
        kept = sum(1 for c in classes if c["example"] in impl.examples)
        triaged = [triage_of(triage, impl.name, c) for c in classes]
        open_count = sum(1 for t in triaged if not t)
        parts.append(
            f"<h2>Failure classes{text(where)} ({len(classes)})</h2><p>Failing scenarios "
            "grouped by verdict, rules, area and generating family: one bug repeated over a "
            f"generated family counts once. {open_count} untriaged. Outputs kept for {kept} "
            f"of {len(classes)} examples.</p>" + _class_index(classes, triaged, "class-"))
        parts.extend(_class_section(site, impl, n, c, t)
                     for n, (c, t) in enumerate(zip(classes, triaged, strict=True), 1))
    if judged_in != "generic" and impl.classes:
        generic = impl.classes
        parts.append(
            f"<h2>In the generic class ({len(generic)})</h2><p>The failure classes over every "
            "scenario it was given, the ones beyond its claim included (other formats' "
            "delimiters, which its configuration does not cover): for a reader deploying it "
            "where it may meet those formats.</p>"
            + _class_index(generic, [triage_of(triage, impl.name, c) for c in generic], None))
    parts.append(f'<p><a href="{href(1, "history.html")}#impl-{text(impl.base)}">'
                 "Trend across releases</a></p>")
    return page(f"scrubcheck: {impl.name}", "".join(parts), 1)
