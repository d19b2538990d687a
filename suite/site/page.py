"""The frame every site page shares: one style, a strict CSP, the navigation.

Pages hold text from the corpus and from scrubbers' output, so nothing is
trusted: all of it goes through `htmlpage.text`, and the Content-Security-Policy
allows no script but the index's own filter (by its hash, inline, so the site
works from `file://` where no origin exists to allow), no network and no frames.
Links are relative, so the folder can be served from any path of any host.
"""

from __future__ import annotations

import base64
import hashlib
from urllib.parse import quote

from scrubcheck.reports.htmlpage import PAGE_CSS, text

SITE_CSS = """
nav.site{display:flex;gap:1.2em;padding:.4em 0;border-bottom:1px solid #d0d7de;
  margin-bottom:.6em}
nav.site a{font-weight:600}
a{color:#0550ae}
body.wide{max-width:none}
.scroll{overflow-x:auto;max-width:100%}
table.grid{font-size:12.5px}
table.grid td{white-space:nowrap;font-variant-numeric:tabular-nums;text-align:right;
  padding:.2em .45em}
table.grid th[scope=row]{position:sticky;left:0;background:#f6f8fa;white-space:nowrap}
table.grid caption{text-align:left;caption-side:top;padding:.3em 0}
.cnt+.cnt::before{content:"/";color:#8c959f;font-weight:400;margin:0 .1em}
.k-pass{color:#116329}.k-leak{color:#82071e;font-weight:700}.k-fail{color:#a40e26}
.cnt.zero{color:#57606a;font-weight:400}
td.hot{background:#ffebe9}td.none{color:#57606a;text-align:center}
td[data-claimed]{outline:2px solid #0969da;outline-offset:-2px}
.claimed{display:block;font-size:.75em;color:#0550ae}
.verdict-LEAK{background:#82071e;color:#fff;font-weight:700}
.verdict-FAIL,.verdict-SHOULD,.verdict-ERROR{background:#ffebe9;color:#82071e}
.verdict-PASS{background:#dafbe1;color:#116329}
.verdict-UNSUPPORTED,.verdict-SKIPPED,.verdict-none{color:#57606a}
.filters{display:flex;flex-wrap:wrap;gap:.8em;align-items:end;padding:.6em 0;
  border-bottom:1px solid #d0d7de;position:sticky;top:0;background:#fff}
.filters label{display:flex;flex-direction:column;font-size:.9em;font-weight:600}
.filters select,.filters input{font:inherit;padding:.15em .3em}
.deltas{display:flex;flex-wrap:wrap;gap:.25em;font:12.5px/1.5 ui-monospace,monospace}
.delta{border:1px solid #8c959f;border-radius:3px;padding:0 .25em;white-space:pre-wrap;
  overflow-wrap:anywhere;background:#f6f8fa}
.delta sup{color:#57606a;font-size:.75em;margin-right:.2em;user-select:none}
mark.delim{background:#ddf4ff;color:#0550ae;outline:1px solid #54aeff;border-radius:2px}
.out{white-space:pre-wrap;overflow-wrap:anywhere;font:12.5px/1.5 ui-monospace,monospace;
  margin:0}
.ws{color:#57606a}
.banner{border:1px solid #d4a72c;background:#fff8c5;padding:.5em .8em;border-radius:6px}
.untriaged{color:#9a6700;font-weight:600}
.status{display:inline-block;padding:0 .5em;border-radius:1em;font-size:.85em;
  font-weight:600;border:1px solid #8c959f}
td.cmd code{overflow-wrap:anywhere}
h1 code{font-size:inherit}
pre.snippet{white-space:pre-wrap;overflow-wrap:anywhere}
"""

_WIDE = ' class="wide"'
_NAV = (("index.html", "Grid"), ("triage.html", "Triage"), ("history.html", "History"))


def href(depth: int, path: str) -> str:
    """A link to `path` (relative to the site's root) from a page `depth` folders deep,
    each part percent-encoded (ids and names may hold '@' or '+')."""
    return "../" * depth + "/".join(quote(part, safe="") for part in path.split("/"))


def page(title: str, body: str, depth: int = 0, script: str | None = None,
         wide: bool = False) -> str:
    """A whole page; `script` (the index's filter) is allowed by its hash and nothing else."""
    if script is None:
        script_src = "'none'"
        tail = ""
    else:
        digest = base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()
        script_src = f"'sha256-{digest}'"
        tail = f"<script>{script}</script>"
    csp = (f"default-src 'none'; style-src 'unsafe-inline'; script-src {script_src}; "
           "img-src data:; base-uri 'none'; form-action 'none'")
    nav = "".join(f'<a href="{href(depth, target)}">{text(label)}</a>'
                  for target, label in _NAV)
    return ("<!DOCTYPE html>\n"
            '<html lang="en"><head><meta charset="utf-8">'
            f'<meta http-equiv="Content-Security-Policy" content="{csp}">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{text(title)}</title><style>{PAGE_CSS}{SITE_CSS}</style></head>"
            f"<body{_WIDE if wide else ''}>"
            f'<nav class="site" aria-label="site">{nav}</nav><main>{body}</main>'
            f"{tail}</body></html>\n")


def impl_path(name: str) -> str:
    return f"impl/{name}.html"


def scenario_path(scenario_id: str) -> str:
    return f"scenarios/{scenario_id}.html"
