"""index.html: the grid, implementation × SPEC rule group, and the filter over it.

The grid is drawn on the server from the same numbers the filter recomputes, so
it reads without script; the filter (filter.js, allowed by its hash) recounts it
for the chosen implementation, rule group, area, verdict and scenario id, and
keeps the choice in the URL's fragment so a view can be linked (it works from
file:// too, where a query string would be dropped by some hosts' routing).
The per-scenario verdicts travel as one letter per implementation, which keeps
the whole page to a few hundred kilobytes for the full corpus; each scenario's
stream and outputs live on its own page.

The class grid (implementation × conformance class, SPEC section 12) is drawn on
the server too: each row's claimed class is marked, and a cell counts the scenarios
the class judges as the generic class does. The class select narrows the rule-group
grid and the scenario list to the scenarios within the chosen class.
"""

from __future__ import annotations

import json
import re
from importlib import resources

from scrubcheck.reports.htmlpage import text
from scrubcheck.site.model import LETTERS, NOT_RUN, SiteData, bucket_counts
from scrubcheck.site.page import href, impl_path, page

SCRIPT = resources.files("scrubcheck.site").joinpath("filter.js").read_text(encoding="utf-8")
VERDICT_CHOICES = (("", "any"), ("pass", "pass"), ("leak", "leak"),
                   ("fail", "fail (MUST, SHOULD or error)"))


def index_data(site: SiteData) -> dict:
    groups = {g: i for i, g in enumerate(site.groups)}
    areas = {a: i for i, a in enumerate(site.areas)}
    scen = []
    for scenario_id in site.ids:
        letters = _runs("".join(LETTERS.get(i.verdicts.get(scenario_id, ""), NOT_RUN)
                                for i in site.impls))
        within = [k for k, c in enumerate(site.classes) if scenario_id in site.within[c]]
        scen.append([scenario_id, areas[site.area_of(scenario_id) or "(not in corpus)"],
                     [groups[g] for g in site.groups_of(scenario_id)], letters, within])
    return {"impls": [{"n": i.name, "h": href(0, impl_path(i.name))} for i in site.impls],
            "groups": site.groups, "areas": site.areas, "classes": site.classes,
            "scen": scen}


def _runs(letters: str) -> str:
    """A run of three or more equal letters as the letter and its length ("U12"): most
    rows share long runs of UNSUPPORTED, and this keeps the index small (filter.js
    expands them once on load)."""
    return re.sub(r"(\D)\1{2,}", lambda m: f"{m[1]}{len(m[0])}", letters)


def class_grid_html(site: SiteData) -> str:
    """Implementation × conformance class: pass / leak / fail within each class, the
    row's claimed class marked (the one its headline and badge count)."""
    head = "".join(f'<th scope="col">{text(c)}</th>' for c in site.classes)
    rows = []
    for impl in site.impls:
        claim = impl.claim
        cells = [_cell(impl.name, f"class {cls}", bucket_counts(site, impl, site.within[cls]),
                       claimed=cls == claim)
                 for cls in site.classes]
        rows.append(f'<tr><th scope="row"><a href="{href(0, impl_path(impl.name))}">'
                    f"{text(impl.name)}</a></th>{''.join(cells)}</tr>")
    return ('<p class="muted">Each row judged in each class: a cell counts the scenarios '
            "the class judges as the generic class does; scenarios beyond the class are "
            "not counted. The row's own claim is outlined and marked claimed: its "
            "headline and badge count that cell.</p>"
            '<div class="scroll"><table class="grid" id="class-grid"><caption class="muted">'
            "pass / leak / fail per implementation and conformance class</caption><thead><tr>"
            f'<th scope="col">implementation</th>{head}</tr></thead><tbody>'
            f"{''.join(rows)}</tbody></table></div>")


def _json_for_script(data: dict) -> str:
    """JSON that cannot end its <script> element or open a comment."""
    return (json.dumps(data, ensure_ascii=False, separators=(",", ":"))
            .replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026"))


def _select(name: str, label: str, choices: list[tuple[str, str]]) -> str:
    options = "".join(f'<option value="{text(v)}">{text(t)}</option>' for v, t in choices)
    return f'<label for="f-{name}">{text(label)}<select id="f-{name}">{options}</select></label>'


def _cell(impl_name: str, group: str, counts: dict[str, int], *, claimed: bool = False) -> str:
    """A grid cell; `group` is a rule group, or "class NAME" in the class grid, where
    `claimed` marks the row's own class."""
    label = (f"{impl_name}, {group}: {counts['pass']} pass, {counts['leak']} leak, "
             f"{counts['fail']} fail")
    mark = ' data-claimed="yes"' if claimed else ""
    note = '<span class="claimed" title="claimed class">claimed</span>' if claimed else ""
    if not (counts["pass"] or counts["leak"] or counts["fail"]):
        return f'<td class="none"{mark} aria-label="{text(label)}">–{note}</td>'
    hot = ' class="hot"' if counts["leak"] else ""
    return (f'<td{hot}{mark} aria-label="{text(label)}">'
            + "".join(f'<span class="cnt k-{k}{"" if counts[k] else " zero"}">{counts[k]}</span>'
                      for k in ("pass", "leak", "fail")) + f"{note}</td>")


def grid_html(site: SiteData) -> str:
    by_group: dict[str, list[str]] = {g: [] for g in site.groups}
    for scenario_id in site.ids:
        for group in site.groups_of(scenario_id):
            by_group[group].append(scenario_id)
    head = "".join(f'<th scope="col">{text(g)}</th>' for g in site.groups)
    rows = []
    for impl in site.impls:
        cells = "".join(_cell(impl.name, g, bucket_counts(site, impl, by_group[g]))
                        for g in site.groups)
        rows.append(f'<tr><th scope="row"><a href="{href(0, impl_path(impl.name))}">'
                    f"{text(impl.name)}</a></th>{cells}</tr>")
    return ('<p class="muted">Each cell: scenarios that <span class="k-pass">pass</span> / '
            '<span class="k-leak">leak</span> reasoning / <span class="k-fail">fail</span> '
            'otherwise (a MUST or SHOULD rule, or an error); a scenario counts once under each '
            'rule group it tests. Unsupported scenarios are not counted; – : none judged.</p>'
            '<div class="scroll"><table class="grid" id="grid"><caption class="muted">pass / '
            'leak / fail per implementation and SPEC rule group</caption><thead><tr>'
            '<th scope="col">implementation</th>'
            f'{head}</tr></thead><tbody>{"".join(rows)}</tbody></table></div>')


def engines_html(site: SiteData) -> str:
    """Each serving engine's registered parsers: how many ran, how many pass their class."""
    if not site.engines:
        return ""
    known = {impl.name for impl in site.impls}
    rows = []
    for summary in site.engines:
        passing = ", ".join(
            (f'<a href="{href(0, impl_path(r.name))}">{text(r.name)}</a>' if r.name in known
             else text(r.name)) for r in summary.passed) or "none"
        listed = ", ".join(f"{n} {k}" for k, n in sorted(summary.listed.items())) or "none"
        rows.append(f'<tr><th scope="row">{text(summary.engine)}</th>'
                    f"<td>{text(summary.package)}</td><td class=\"n\">{summary.registered}</td>"
                    f'<td class="n">{len(summary.ran)}</td><td class="n">{len(summary.passed)}'
                    f"</td><td>{passing}</td><td>{text(listed)}</td></tr>")
    return ('<h2 id="engines-heading">Serving engines: every registered parser</h2>'
            '<p class="muted">Each engine\'s reasoning parsers as its installed release '
            "registers them: a row ENGINE:NAME per name, judged in the class its probe "
            "showed; names not run are listed on the matrix page with why.</p>"
            '<div class="scroll"><table><thead><tr><th scope="col">engine</th>'
            '<th scope="col">package</th><th scope="col">registered</th><th scope="col">run'
            '</th><th scope="col">pass their own class</th><th scope="col">passing</th>'
            f'<th scope="col">listed, not run</th></tr></thead><tbody>{"".join(rows)}'
            "</tbody></table></div>")


def provenance_html(site: SiteData) -> str:
    items = "".join(f"<li><code>{text(p.path)}</code>: run {text(p.started_at)}, "
                    f"{text(p.mode)} mode, {text(p.judged_by)}</li>" for p in site.inputs)
    parts = [f"<p>Built from:</p><ul>{items}</ul>"]
    if site.mixed:
        parts.append('<p class="banner" role="note">These matrices were judged by different '
                     "SPEC versions or corpora: compare rows of different inputs with care "
                     "(each implementation page names its own).</p>")
    missing = site.missing
    if missing:
        parts.append(f'<p class="banner" role="note">{len(missing)} scenario ids judged in '
                     "these matrices are not in today's corpus: they are counted in no rule "
                     "group and their pages show verdicts without the stream.</p>")
    if site.not_run:
        rows = "".join(f"<li><b>{text(n)}</b> ({text(p)}): {text(why)}</li>"
                       for n, p, why in site.not_run)
        parts.append(f"<details><summary>{len(site.not_run)} rows not in the grid (did not "
                     f"run, or shown once)</summary><ul>{rows}</ul></details>")
    return "".join(parts)


def _bugs_sentence(bugs: dict[str, int]) -> str:
    total = sum(bugs.values())
    if not total:
        return ""
    return (f"Bugs within their claims: {total} ({bugs['known upstream']} known upstream, "
            f"{bugs['by design']} by design, <a href=\"triage.html#unreported\">"
            f"{bugs['not yet reported']} not yet reported</a>). ")


def render_index(site: SiteData, untriaged: int, triaged: int,
                 bugs: dict[str, int] | None = None) -> str:
    filters = "".join([
        _select("impl", "implementation", [("", "all"), *[(i.name, i.name) for i in site.impls]]),
        _select("class", "conformance class", [("", "all"), *[(c, c) for c in site.classes]]),
        _select("rule", "SPEC rule group", [("", "all"), *[(g, g) for g in site.groups]]),
        _select("area", "corpus area", [("", "all"), *[(a, a) for a in site.areas]]),
        _select("verdict", "verdict", list(VERDICT_CHOICES)),
        '<label for="f-q">scenario id contains<input type="search" id="f-q" '
        'placeholder="e.g. split-open"></label>',
        '<button type="button" id="f-reset">reset</button>',
    ])
    body = (
        "<h1>scrubcheck compliance</h1>"
        f"<p>{len(site.impls)} implementations on {len(site.ids)} scenarios. "
        f"{_bugs_sentence(bugs or {})}Failure classes: "
        f'{triaged} linked to an upstream issue, <a href="triage.html#untriaged">{untriaged} '
        "untriaged</a>.</p>"
        f"{provenance_html(site)}"
        '<h2 id="class-heading">Implementation × conformance class</h2>'
        f"{class_grid_html(site)}"
        f"{engines_html(site)}"
        '<h2 id="grid-heading">Implementation × SPEC rule group</h2>'
        f'<form class="filters" id="filters" aria-label="filter">{filters}</form>'
        '<p id="grid-count" class="muted" aria-live="polite"></p>'
        f"{grid_html(site)}"
        '<h2>Matching scenarios</h2><p id="matches-count" class="muted">Choose a filter to '
        'list scenarios (needs script).</p>'
        '<table id="matches"><thead><tr><th scope="col">scenario</th><th scope="col">area'
        '</th><th scope="col">pass / leak / fail</th></tr></thead><tbody></tbody></table>'
        f'<script type="application/json" id="site-data">{_json_for_script(index_data(site))}'
        "</script>")
    return page("scrubcheck compliance", body, 0, SCRIPT, wide=True)
