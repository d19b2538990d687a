"""The site as a person sees it: Debian's chromium, driven by Playwright, opens the pages
from file:// (as a publisher's reader would from any static host) with the pages' own
CSP in force.

It checks that the index renders, that a filter narrows the grid and that its URL
restores the view, that an implementation page and a scenario page open from the index
with the leaked text marked, that no page logs a console error (a CSP violation is one),
that every internal link resolves as the browser resolves it, and axe-core's WCAG 2 A/AA
rules (headings, labels, contrast, ...). Screenshots are kept in build/site-browser/
(or $SCRUBCHECK_SITE_SCREENSHOTS) for CI to upload.

In CI (CI=true) a missing browser, Playwright or axe-core fails the test; elsewhere it
skips, naming the install command.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from site_fixture import CASE_ROW, build, small_matrix

from scrubcheck.cachedir import cache_dir

ROOT = Path(__file__).resolve().parents[1]
IN_CI = os.environ.get("CI") == "true"
CHROMIUM = "/usr/bin/chromium"
INSTALL = "apt-get update && apt-get install -y chromium (and pip install -e '.[test]')"
AXE_VERSION = "4.10"  # the lower bound; npm picks the newest 4.x
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]
SHOTS = Path(os.environ.get("SCRUBCHECK_SITE_SCREENSHOTS") or ROOT / "build" / "site-browser")


def _missing(why: str) -> None:
    if IN_CI:
        pytest.fail(f"{why}: CI must run the browser test ({INSTALL})")
    pytest.skip(f"{why}: {INSTALL}")


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site") / "site"
    assert build(small_matrix(tmp_path_factory.mktemp("matrix")), out) == 0
    return out


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _missing("Playwright for Python is not installed")
    if not Path(CHROMIUM).is_file():
        _missing(f"{CHROMIUM} is not installed")
    with sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            str(tmp_path_factory.mktemp("profile")), executable_path=CHROMIUM, headless=True,
            args=FLAGS, viewport={"width": 1280, "height": 900})
        try:
            yield context
        finally:
            context.close()


@pytest.fixture(scope="module")
def axe_source() -> str:
    """axe-core from npm, installed once into scrubcheck's cache folder."""
    folder = cache_dir() / "axe-core"
    script = folder / "node_modules" / "axe-core" / "axe.min.js"
    if not script.is_file():
        npm = shutil.which("npm")
        if npm is None:
            _missing("npm is not installed (axe-core comes from npm)")
        folder.mkdir(parents=True, exist_ok=True)
        done = subprocess.run([npm, "install", "--no-audit", "--no-fund", "--prefix",
                               str(folder), f"axe-core@^{AXE_VERSION}"],
                              capture_output=True, text=True, timeout=300, check=False)
        if done.returncode or not script.is_file():
            _missing(f"npm install axe-core failed: {done.stderr[-500:]}")
    return script.read_text(encoding="utf-8")


class Watched:
    """A page whose console errors and uncaught exceptions are collected."""

    def __init__(self, context: object) -> None:
        self.page = context.new_page()  # type: ignore[attr-defined]
        self.errors: list[str] = []
        self.page.on("console", lambda m: self.errors.append(f"{self.page.url}: {m.text}")
                     if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.errors.append(f"{self.page.url}: {e}"))

    def open(self, url: str) -> None:
        self.page.goto(url)
        self.page.wait_for_load_state("load")


@pytest.fixture
def tab(browser: object) -> Iterator[Watched]:
    watched = Watched(browser)
    try:
        yield watched
    finally:
        watched.page.close()
    assert watched.errors == []


def _shot(tab: Watched, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    tab.page.screenshot(path=str(SHOTS / name), full_page=True)


def _grid_rows(tab: Watched) -> int:
    return tab.page.locator("#grid tbody tr").count()


def test_a_filter_narrows_the_grid_and_the_url_restores_it(site: Path, tab: Watched) -> None:
    tab.open((site / "index.html").as_uri())
    tab.page.wait_for_selector("body[data-filter-ready]")
    assert tab.page.locator("h1").inner_text() == "scrubcheck compliance"
    assert _grid_rows(tab) == 3
    _shot(tab, "index.png")
    tab.page.select_option("#f-impl", CASE_ROW)
    tab.page.select_option("#f-verdict", "leak")
    assert _grid_rows(tab) == 1
    assert "impl=" in tab.page.url and "verdict=leak" in tab.page.url
    narrowed = tab.page.locator("#grid tbody").inner_text()
    linked = tab.page.url
    tab.open((site / "triage.html").as_uri())  # away, then back by the link alone
    tab.open(linked)
    tab.page.wait_for_selector("body[data-filter-ready]")
    assert tab.page.locator("#f-impl").input_value() == CASE_ROW
    assert tab.page.locator("#f-verdict").input_value() == "leak"
    assert tab.page.locator("#grid tbody").inner_text() == narrowed
    _shot(tab, "index-filtered.png")
    tab.page.click("#f-reset")
    assert _grid_rows(tab) == 3 and "#" not in tab.page.url
    # the class filter: every row here claims generic, which judges every scenario
    total = tab.page.locator("#grid-count").inner_text()
    tab.page.select_option("#f-class", "generic")
    assert "class=generic" in tab.page.url
    assert tab.page.locator("#grid-count").inner_text() == total
    assert tab.page.locator("#class-grid td[data-claimed]").count() == 3


def test_implementation_and_scenario_pages_open_from_the_index(site: Path, tab: Watched) -> None:
    tab.open((site / "index.html").as_uri())
    tab.page.click(f"#grid tbody >> text={CASE_ROW}")
    tab.page.wait_for_load_state("load")
    assert tab.page.url.endswith(f"/impl/{CASE_ROW}.html")
    assert tab.page.locator("h1").inner_text() == CASE_ROW
    leaked = tab.page.locator("mark.leaked").first
    assert leaked.inner_text().strip()
    colour = leaked.evaluate("m => getComputedStyle(m).backgroundColor")
    assert colour not in ("rgba(0, 0, 0, 0)", "transparent")  # the mark is visible
    _shot(tab, "implementation.png")
    tab.page.locator("section h3 + p a").first.click()
    tab.page.wait_for_load_state("load")
    assert "/scenarios/" in tab.page.url
    assert tab.page.locator("mark.leaked").count() >= 1
    assert tab.page.locator("mark.delim").count() >= 1
    _shot(tab, "scenario.png")
    # and by the search box: the scenario list links to the same kind of page
    tab.open((site / "index.html").as_uri())
    tab.page.fill("#f-q", "split-alternating-case")
    tab.page.locator("#matches tbody a").first.click()
    tab.page.wait_for_load_state("load")
    assert tab.page.url.endswith("/scenarios/split-alternating-case-tags.html")


def test_no_page_logs_an_error_and_every_internal_link_resolves(site: Path,
                                                                tab: Watched) -> None:
    pages = sorted(site.rglob("*.html"))
    broken = []
    for path in pages:
        tab.open(path.as_uri())
        links = tab.page.eval_on_selector_all("a[href]", "as => as.map(a => a.href)")
        for link in links:
            parts = urlsplit(link)
            if parts.scheme != "file":
                continue
            target = Path(unquote(parts.path))
            if not target.is_file():
                broken.append(f"{path.name}: {link}")
            elif parts.fragment and f'id="{parts.fragment}"' not in target.read_text(
                    encoding="utf-8"):
                broken.append(f"{path.name}: {link} (no such anchor)")
    assert len(pages) > 50 and broken == []


@pytest.mark.parametrize("page", ["index.html", f"impl/{CASE_ROW}.html",
                                  "scenarios/split-alternating-case-tags.html", "triage.html",
                                  "history.html"])
def test_axe_finds_no_accessibility_violation(site: Path, tab: Watched, axe_source: str,
                                             page: str) -> None:
    tab.open((site / page).as_uri())
    tab.page.evaluate(axe_source)  # through the debugger, so the page's CSP still holds
    result = tab.page.evaluate(
        "axe.run(document, {runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa']}})"
        ".then(r => ({violations: r.violations.map(v => [v.id, v.help,"
        " v.nodes.slice(0, 3).map(n => n.target.join(' '))]),"
        " checked: r.passes.concat(r.incomplete).map(v => v.id)}))")
    assert result["violations"] == []
    assert {"color-contrast", "document-title", "html-has-lang"} <= set(result["checked"])
