"""What every scrubcheck HTML page shares: one look (the style sheet), escaped text and
tables whose cells are already HTML.

report.html (`reports.html`), the matrix page (`matrix.html`) and the gateway audit page
(`gateway.audit_report`) are built from these, so they look alike and escape alike; the
matrix and the gateway once reached into `reports.html` for its private style and table.
"""

from __future__ import annotations

from html import escape

from .text import xml_safe

#: The style sheet of every page (inline: a report must open with no external assets).
PAGE_CSS = """
body{font:14px/1.45 system-ui,sans-serif;margin:0 auto;max-width:1200px;padding:1em 2em;
  color:#1f2328;background:#fff}
h1{font-size:1.6em;margin:.2em 0}
h2{border-bottom:1px solid #d0d7de;padding-bottom:.2em;margin-top:1.6em}
code,pre{font:12.5px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
pre{background:#f6f8fa;border:1px solid #d0d7de;border-radius:6px;padding:.6em .8em;
  overflow-x:auto}
table{border-collapse:collapse;margin:.5em 0}
th,td{border:1px solid #d0d7de;padding:.25em .6em;text-align:left;vertical-align:top}
th{background:#f6f8fa}
td.n{text-align:right}
.verdict{display:inline-block;font-weight:700;font-size:1.2em;padding:.2em .7em;
  border-radius:6px;color:#fff}
.badges{margin:.6em 0}
.badge{display:inline-block;padding:.15em .6em;margin:0 .3em .3em 0;border-radius:1em;
  font-weight:600;color:#fff}
.PASS{background:#1a7f37}
.FAIL{background:#cf222e}
.ERROR{background:#bc4c00}
.TIMEOUT{background:#8250df}
.UNSUPPORTED{background:#6e7781}
.SKIPPED{background:#8c959f}
.CORPUS{background:#953800}
.zero{opacity:.45}
td.hot-FAIL{background:#ffebe9;font-weight:700}
td.hot-ERROR,td.hot-TIMEOUT{background:#fff1e5;font-weight:700}
td.hot-PASS{color:#1a7f37}
.sev{display:inline-block;font-size:.8em;font-weight:700;padding:0 .5em;border-radius:4px;
  color:#fff;margin-right:.4em}
.sev-leak{background:#82071e}
.sev-must{background:#cf222e}
.sev-should{background:#9a6700}
details.scenario{border:1px solid #d0d7de;border-radius:6px;margin:.5em 0;padding:.3em .8em}
details.scenario>summary{cursor:pointer;font-weight:600}
.ws{color:#8c959f}
mark.leaked{background:#ffcecb;color:#82071e;outline:1px solid #cf222e;border-radius:2px}
mark.leaked .ws{color:#cf222e}
.wrap{display:inline-block;vertical-align:top;max-width:calc(100% - 10ch);
  white-space:pre-wrap;overflow-wrap:anywhere}
details.not-run>summary{cursor:pointer;font-weight:600;font-size:1.1em}
details.captured>summary{cursor:pointer}
.esc{color:#8250df;font-weight:600}
.controls{position:sticky;top:0;background:#fff;padding:.5em 0;border-bottom:1px solid #d0d7de}
.controls input[type=search]{width:24em;padding:.2em .4em}
.muted{color:#656d76}
blockquote{margin:.4em 0;padding:0 .8em;border-left:3px solid #d0d7de;color:#424a53}
"""


def text(value: object) -> str:
    """Any value as escaped HTML text."""
    return escape(xml_safe(str(value)), quote=True)


def table(headers: list[str], rows: list[list[str]], numeric_from: int) -> str:
    """A table whose cells are already HTML; columns from `numeric_from` are right-aligned."""
    head = "".join(f"<th>{escape(h)}</th>" for h in headers)
    body = []
    for row in rows:
        cells = []
        for index, value in enumerate(row):
            css = ' class="n"' if index >= numeric_from else ""
            if value.startswith("<td"):
                cells.append(value)
            else:
                cells.append(f"<td{css}>{value}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"
