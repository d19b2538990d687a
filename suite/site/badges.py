"""A badge per implementation: an SVG written beside the site, and a shields.io endpoint
JSON next to it (https://shields.io/badges/endpoint-badge), for a README to embed.

The SVG is drawn here, not fetched: the site needs no network and a publisher's
badge must not depend on a third-party renderer being up. It follows the flat
shields look (label left in grey, message right in the verdict's colour); text
widths are estimated from the character count (Verdana 11px averages about
6.5px), which is all a badge needs. Label and message follow `reports.badge`:
the SPEC version, then the claimed conformance class (when not generic), passes over
the scenarios within it and the leaks; scenarios beyond the claim are not counted.
"""

from __future__ import annotations

import json
from pathlib import Path
from xml.sax.saxutils import escape

from scrubcheck.matrix.verdicts import ERROR, FAIL, LEAK, PASS
from scrubcheck.matrix.within_claim import BEYOND, NOT_JUDGED
from scrubcheck.site.model import Impl

#: shields' named colours, as hex for the local SVG
COLOURS = {"red": "#e05d44", "orange": "#fe7d37", "brightgreen": "#44cc11",
           "yellowgreen": "#a4a61d", "lightgrey": "#9f9f9f"}


def badge_text(impl: Impl) -> tuple[str, str, str]:
    """(label, message, colour name) of the implementation's badge."""
    totals = impl.claim_totals()
    total = sum(n for v, n in totals.items() if v not in (BEYOND, NOT_JUDGED))
    passed, leaked = totals.get(PASS, 0), totals.get(LEAK, 0)
    spec = impl.provenance.spec_version or "?"
    if leaked:
        colour = "red"
    elif totals.get(FAIL, 0) or totals.get(ERROR, 0):
        colour = "orange"
    elif passed == total:
        colour = "brightgreen"
    else:  # passing, with SHOULD failures or scenarios it cannot be given
        colour = "yellowgreen"
    claim = "" if impl.claim == "generic" else f"{impl.claim}: "
    return f"scrubcheck SPEC {spec}", f"{claim}{passed}/{total} pass, {leaked} leak", colour


def endpoint_json(impl: Impl) -> dict:
    label, message, colour = badge_text(impl)
    return {"schemaVersion": 1, "label": label, "message": message, "color": colour}


def _width(text: str) -> int:
    return int(len(text) * 6.5) + 12


def badge_svg(impl: Impl) -> str:
    label, message, colour = badge_text(impl)
    left, right = _width(label), _width(message)
    total = left + right
    fill = COLOURS[colour]
    title = escape(f"{label}: {message}")
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{total}" height="20" '
            f'role="img" aria-label="{title}"><title>{title}</title>'
            f'<rect width="{left}" height="20" fill="#555"/>'
            f'<rect x="{left}" width="{right}" height="20" fill="{fill}"/>'
            '<g fill="#fff" text-anchor="middle" font-family="Verdana,DejaVu Sans,sans-serif" '
            'font-size="11">'
            f'<text x="{left / 2}" y="14">{escape(label)}</text>'
            f'<text x="{left + right / 2}" y="14">{escape(message)}</text></g></svg>')


def write_badges(impl: Impl, folder: Path) -> tuple[Path, Path]:
    folder.mkdir(parents=True, exist_ok=True)
    svg = folder / f"{impl.name}.svg"
    svg.write_text(badge_svg(impl) + "\n", encoding="utf-8")
    endpoint = folder / f"{impl.name}.json"
    endpoint.write_text(json.dumps(endpoint_json(impl), indent=1) + "\n", encoding="utf-8")
    return svg, endpoint


def embed_snippets(impl: Impl, base_url: str) -> list[tuple[str, str]]:
    """(what, text) pairs a README can paste: the local SVG and the shields endpoint."""
    base = base_url.rstrip("/")
    svg = f"{base}/badges/{impl.name}.svg"
    page = f"{base}/impl/{impl.name}.html"
    endpoint = f"{base}/badges/{impl.name}.json"
    return [
        ("Markdown, the SVG this site serves", f"[![scrubcheck]({svg})]({page})"),
        ("Markdown, through shields.io's endpoint badge",
         f"[![scrubcheck](https://img.shields.io/endpoint?url={endpoint})]({page})"),
        ("HTML", f'<a href="{page}"><img alt="scrubcheck" src="{svg}"></a>'),
    ]
