"""scenarios/ID.html: one scenario: its stream delta by delta and every implementation's
verdict and output side by side.

The stream is the corpus's recorded chunking with its delimiters marked. An
implementation's output is shown where the matrix kept it (the scenario is the
shortest example of one of its failure classes), under the chunking that failed,
the leaked reasoning marked; for the others the verdict and the command that
shows the output.
"""

from __future__ import annotations

from scrubcheck.reports.html import markdown
from scrubcheck.reports.htmlpage import text
from scrubcheck.site.model import SiteData
from scrubcheck.site.page import href, impl_path, page
from scrubcheck.site.stream import deltas_html, output_html


def _context(site: SiteData, scenario_id: str) -> str:
    scenario = site.scenarios[scenario_id]
    ctx = scenario.context
    facts = [("area", scenario.area), ("rules", ", ".join(scenario.rules)),
             ("where", f"{scenario.file}:{scenario.line}"),
             ("starts in reasoning", str(ctx.starts_in_reasoning)),
             ("finish_reason", str(ctx.finish_reason)),
             ("features", ", ".join(ctx.features) or "none")]
    if ctx.delimiters:
        facts.append(("caller's delimiters", ", ".join(str(d.as_dict()) for d in ctx.delimiters)))
    rows = "".join(f'<tr><th scope="row">{text(k)}</th><td>{text(v)}</td></tr>'
                   for k, v in facts)
    return f"<table>{rows}</table>"


def render_scenario(site: SiteData, scenario_id: str) -> str:
    scenario = site.scenarios.get(scenario_id)
    parts = [f"<h1><code>{text(scenario_id)}</code></h1>"]
    if scenario is None:
        parts.append('<p class="banner" role="note">Not in today\'s corpus: the matrix judged '
                     "it, but its stream is not available here.</p>")
    else:
        if scenario.description:
            parts.append(markdown(scenario.description))
        parts.append(_context(site, scenario_id))
        parts.append(f"<h2>The stream ({len(scenario.deltas)} deltas, as recorded)</h2>"
                     '<p class="muted">Each box is one delta, numbered; delimiters are '
                     '<mark class="delim">marked</mark>; ¶ is a line feed, → a tab.</p>'
                     + deltas_html(scenario.deltas, scenario))
        expected = scenario.expected_outputs
        if expected is not None:
            parts.append("<h2>What SPEC accepts</h2>"
                         + "".join(output_html(e, None) for e in expected))
    rows = []
    for impl in site.impls:
        word = impl.verdicts.get(scenario_id)
        if word is None:
            rows.append(f'<tr><th scope="row">{text(impl.name)}</th>'
                        '<td class="verdict-none">not run</td><td></td></tr>')
            continue
        evidence = impl.examples.get(scenario_id)
        if evidence is not None:
            shown = (f"<p class=\"muted\">chunking <code>{text(evidence['chunking'])}</code>, "
                     f"{len(evidence['deltas'])} deltas:</p>"
                     + output_html(evidence.get("got"), evidence.get("leak")))
        elif word == "PASS":
            shown = '<span class="muted">an output SPEC accepts, under every chunking</span>'
        elif word in ("UNSUPPORTED", "SKIPPED"):
            shown = '<span class="muted">not judged: see the implementation\'s restrictions</span>'
        else:
            shown = (f'<span class="muted">output not kept; <code>scrubcheck show '
                     f"{text(scenario_id)} --scrubber {text(impl.spec)}</code> shows it</span>")
        rows.append(f'<tr><th scope="row"><a href="{href(1, impl_path(impl.name))}">'
                    f"{text(impl.name)}</a></th><td class=\"verdict-{text(word)}\">"
                    f"{text(word)}</td><td>{shown}</td></tr>")
    parts.append("<h2>Every implementation</h2><table><thead><tr><th scope=\"col\">"
                 'implementation</th><th scope="col">verdict</th><th scope="col">output '
                 "(leaked reasoning marked)</th></tr></thead><tbody>"
                 + "".join(rows) + "</tbody></table>")
    return page(f"scrubcheck: {scenario_id}", "".join(parts), 1)
