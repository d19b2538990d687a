"""The compliance site: static pages a publisher can host anywhere (and open from file://).

    site = load_site_data([Path("reports/matrix.json")], load_corpus().scenarios)
    build_site(site, Path("site"), triage_entries, history_entries, ...)

`model` reads the matrices and the corpus; `index_page`, `impl_page`,
`scenario_page`, `triage_page` and `history_page` write one kind of page each,
`badges` the SVG and shields endpoint files, `triage` and `history` own their
data files. Nothing here runs a scrubber: the site is rendered from results.
"""

from __future__ import annotations

import re
import shutil
from dataclasses import dataclass
from pathlib import Path

from scrubcheck.site.badges import write_badges
from scrubcheck.site.history import write_history
from scrubcheck.site.history_page import render_history
from scrubcheck.site.impl_page import render_impl
from scrubcheck.site.index_page import render_index
from scrubcheck.site.model import SiteData, SiteError, load_site_data
from scrubcheck.site.scenario_page import render_scenario
from scrubcheck.site.triage import TriageEntry, triage_of
from scrubcheck.site.triage_page import (
    bug_standings,
    render_triage,
    standing_counts,
    untriaged_classes,
)

#: names that become file names: no separators, no leading dot
_SAFE = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.@+-]*\Z")
MARKER = ".scrubcheck-site"  # marks a folder this command wrote, so it may replace it


@dataclass(frozen=True)
class Built:
    pages: int
    index_bytes: int
    untriaged: int
    triaged: int
    bugs: dict[str, int]  # bugs within claims: known upstream, by design, not yet reported


def _check_names(site: SiteData) -> None:
    for kind, names in (("implementation", [i.name for i in site.impls]),
                        ("scenario id", site.ids)):
        bad = [n for n in names if not _SAFE.match(n)]
        if bad:
            raise SiteError(f"{kind} {bad[0]!r} cannot be a file name on the site "
                            f"({len(bad)} such)")


def build_site(site: SiteData, out: Path, triage: list[TriageEntry], history: list[dict],
               *, triage_file: str, history_file: str, base_url: str) -> Built:
    """Write the whole site into `out` (replacing a site this command wrote there before;
    refusing a non-empty folder it did not write)."""
    _check_names(site)
    if out.exists() and any(out.iterdir()):
        if not (out / MARKER).exists():
            raise SiteError(f"{out} is not empty and holds no scrubcheck site; choose an "
                            "empty or new folder")
        shutil.rmtree(out)
    for folder in ("impl", "scenarios", "badges"):
        (out / folder).mkdir(parents=True, exist_ok=True)
    (out / MARKER).write_text("written by `scrubcheck site`; replaced on the next build\n",
                              encoding="utf-8")
    untriaged = len(untriaged_classes(site, triage))
    triaged = sum(1 for i in site.impls for c in (i.judged_classes[1] or [])
                  if triage_of(triage, i.name, c))
    bugs = standing_counts(bug_standings(site, triage))
    index = render_index(site, untriaged, triaged, bugs)
    (out / "index.html").write_text(index, encoding="utf-8")
    pages = 1
    for impl in site.impls:
        (out / "impl" / f"{impl.name}.html").write_text(
            render_impl(site, impl, triage, base_url), encoding="utf-8")
        write_badges(impl, out / "badges")
        pages += 1
    for scenario_id in site.ids:
        (out / "scenarios" / f"{scenario_id}.html").write_text(
            render_scenario(site, scenario_id), encoding="utf-8")
        pages += 1
    (out / "triage.html").write_text(render_triage(site, triage, triage_file), encoding="utf-8")
    known = set(site.ids)
    (out / "history.html").write_text(render_history(history, known, history_file),
                                      encoding="utf-8")
    # the site carries its history, so a publisher's next build can fetch and extend it
    write_history(out / "history.json", history)
    return Built(pages + 2, len(index.encode()), untriaged, triaged, bugs)


__all__ = ["Built", "SiteData", "SiteError", "build_site", "load_site_data"]
