"""`scrubcheck site`: the static compliance site, built from real (small) matrix runs and
from the committed matrix; its triage file and its history. The browser's view of the
same pages is test_site_browser.py."""

from __future__ import annotations

import base64
import hashlib
import html
import json
import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from site_fixture import CASE_ROW, PASS_ROW, build, small_matrix

from scrubcheck.cli import main
from scrubcheck.corpus import load_corpus
from scrubcheck.peers import shipped_manifests
from scrubcheck.site.history import (
    entries_of,
    judged_alike,
    merged,
    read_history,
    steps,
    trends,
)
from scrubcheck.site.model import load_site_data
from scrubcheck.site.triage import lint_triage, shipped_triage_file

ROOT = Path(__file__).resolve().parents[1]
COMMITTED = ROOT / "reports" / "matrix.json"


@pytest.fixture(scope="module")
def matrix(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return small_matrix(tmp_path_factory.mktemp("matrix"))


@pytest.fixture(scope="module")
def site(matrix: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site") / "site"
    assert build(matrix, out) == 0
    return out


class _Page(HTMLParser):
    """The links, ids, scripts and CSP of one page."""

    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []
        self.ids: set[str] = set()
        self.scripts: list[tuple[dict, str]] = []
        self.csp = ""
        self.aria: list[str] = []
        self._script: dict | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {k: v or "" for k, v in attrs}
        if "id" in values:
            self.ids.add(values["id"])
        if tag == "a" and "href" in values:
            self.links.append(values["href"])
        if tag == "meta" and values.get("http-equiv") == "Content-Security-Policy":
            self.csp = values["content"]
        if tag == "td" and "aria-label" in values:
            self.aria.append(values["aria-label"])
        if tag == "script":
            self._script = values
            self.scripts.append((values, ""))

    def handle_data(self, data: str) -> None:
        if self._script is not None:
            attrs, body = self.scripts[-1]
            self.scripts[-1] = (attrs, body + data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._script = None


def _parse(path: Path) -> _Page:
    page = _Page()
    page.feed(path.read_text(encoding="utf-8"))
    return page


def _broken_links(root: Path) -> list[str]:
    """Every relative link of every page that names no file, or no id on its page."""
    pages = {p: _parse(p) for p in root.rglob("*.html")}
    broken = []
    for path, page in pages.items():
        for link in page.links:
            parts = urlsplit(link)
            if parts.scheme or parts.netloc:
                continue  # external: the upstream issues
            target = (path.parent / unquote(parts.path)).resolve() if parts.path else path
            if not target.is_file():
                broken.append(f"{path.relative_to(root)}: {link}")
            elif parts.fragment and target.suffix == ".html" and \
                    parts.fragment not in pages[target].ids:
                broken.append(f"{path.relative_to(root)}: {link} (no such anchor)")
    return broken


def test_the_matrix_keeps_each_class_examples_output_and_leak(matrix: Path) -> None:
    data = json.loads(matrix.read_text(encoding="utf-8"))
    row = next(r for r in data["rows"] if r["name"] == CASE_ROW)
    scenarios = load_corpus().by_id()
    assert row["examples"], "the case-sensitive row leaks, so its classes have examples"
    assert set(row["examples"]) <= {c["example"] for c in row["failure_classes"]}
    leaks = [(sid, e) for sid, e in row["examples"].items() if e["leak"]]
    assert leaks
    for sid, example in leaks:
        start, end = example["leak"]
        leaked = example["got"][start:end]
        # the marked text is reasoning of that scenario, not answer text
        assert any(leaked in part or part in leaked for part in scenarios[sid].reasoning), sid


def test_re_rendering_a_matrix_keeps_the_examples(matrix: Path, tmp_path: Path) -> None:
    assert main(["matrix", "--render-from", str(matrix), "--out", str(tmp_path)]) == 0
    before = json.loads(matrix.read_text(encoding="utf-8"))
    after = json.loads((tmp_path / "matrix.json").read_text(encoding="utf-8"))
    assert [r.get("examples") for r in after["rows"]] == [r.get("examples")
                                                         for r in before["rows"]]


def test_every_page_is_there_and_every_internal_link_resolves(site: Path, matrix: Path) -> None:
    data = json.loads(matrix.read_text(encoding="utf-8"))
    ids = set(data["rows"][0]["verdicts"])
    assert {p.stem for p in (site / "scenarios").glob("*.html")} == ids
    assert {p.stem for p in (site / "impl").glob("*.html")} == {r["name"] for r in data["rows"]}
    assert (site / "triage.html").is_file() and (site / "history.html").is_file()
    assert _broken_links(site) == []


def test_a_broken_link_is_found(site: Path, tmp_path: Path) -> None:
    """The link check itself can fail: a page pointing at a missing file and anchor."""
    (tmp_path / "a.html").write_text('<a href="missing.html">x</a><a href="a.html#nope">y</a>',
                                     encoding="utf-8")
    assert len(_broken_links(tmp_path)) == 2


def test_every_page_has_a_strict_csp_and_only_the_index_runs_its_own_script(site: Path) -> None:
    for path in site.rglob("*.html"):
        page = _parse(path)
        assert "default-src 'none'" in page.csp and "base-uri 'none'" in page.csp, path
        code = [(a, body) for a, body in page.scripts if a.get("type") != "application/json"]
        if path.name == "index.html" and path.parent == site:
            assert len(code) == 1
            digest = base64.b64encode(hashlib.sha256(code[0][1].encode()).digest()).decode()
            assert f"script-src 'sha256-{digest}'" in page.csp
        else:
            assert code == [] and "script-src 'none'" in page.csp, path


def test_the_grid_counts_are_the_matrix_rule_group_counts(site: Path, matrix: Path) -> None:
    """The index recounts per scenario from the corpus; it must agree with the counts the
    matrix itself made per rule group."""
    data = json.loads(matrix.read_text(encoding="utf-8"))
    cells = {}
    for label in _parse(site / "index.html").aria:
        if ", class " in label:  # the class grid: test_the_class_grid_counts_within_each_class
            continue
        match = re.fullmatch(r"(.+), (\w+): (\d+) pass, (\d+) leak, (\d+) fail", label)
        assert match, label
        cells[(match[1], match[2])] = tuple(map(int, match.groups()[2:]))
    for row in data["rows"]:
        for group, counts in row["rule_groups"].items():
            want = (counts.get("PASS", 0), counts.get("LEAK", 0),
                    counts.get("FAIL", 0) + counts.get("SHOULD", 0) + counts.get("ERROR", 0))
            assert cells[(row["name"], group)] == want, (row["name"], group)


def test_the_class_grid_counts_within_each_class_and_marks_the_claim(tmp_path: Path) -> None:
    """The committed matrix's rows claim classes: each class cell counts what the matrix's
    own within-claim reading counts for that class, and the claimed cell is marked."""
    from scrubcheck.matrix.within_claim import row_claim, within_claim

    out = tmp_path / "site"
    assert build(COMMITTED, out) == 0
    html = (out / "index.html").read_text(encoding="utf-8")
    cells = {}
    for label in _parse(out / "index.html").aria:
        match = re.fullmatch(r"(.+), class ([\w-]+): (\d+) pass, (\d+) leak, (\d+) fail", label)
        if match:
            cells[(match[1], match[2])] = tuple(map(int, match.groups()[2:]))
    data = json.loads(COMMITTED.read_text(encoding="utf-8"))
    checked = 0
    for row in data["rows"]:
        if row.get("status") != "ran":
            continue
        claim = row_claim(row["name"])
        within = within_claim(claim, row["verdicts"]).values()
        want = (sum(v == "PASS" for v in within), sum(v == "LEAK" for v in within),
                sum(v in ("FAIL", "SHOULD", "ERROR") for v in within))
        assert cells[(row["name"], claim)] == want, row["name"]
        # the badge counts the same claim (the matrix headline's numbers), naming the class
        badge = json.loads((out / "badges" / f"{row['name']}.json").read_text(encoding="utf-8"))
        judged = sum(v not in ("BEYOND CLAIM", "NOT JUDGED") for v in within)
        prefix = "" if claim == "generic" else f"{claim}: "
        assert badge["message"] == f"{prefix}{want[0]}/{judged} pass, {want[1]} leak", row["name"]
        checked += 1
    assert checked > 10
    assert html.count('data-claimed="yes"') == checked
    assert 'id="f-class"' in html


def test_the_implementation_page_marks_the_leak_and_shows_badge_and_command(site: Path) -> None:
    html = (site / "impl" / f"{CASE_ROW}.html").read_text(encoding="utf-8")
    assert '<mark class="leaked">' in html and '<mark class="delim">' in html
    assert "scrubcheck show " in html and "untriaged" in html
    assert "img.shields.io/endpoint?url=" in html and "<svg" in html
    badge = json.loads((site / "badges" / f"{CASE_ROW}.json").read_text(encoding="utf-8"))
    assert badge["schemaVersion"] == 1 and badge["color"] == "red"
    assert re.fullmatch(r"\d+/\d+ pass, [1-9]\d* leak", badge["message"])
    assert (site / "badges" / f"{CASE_ROW}.svg").read_text(encoding="utf-8").startswith("<svg")
    reference = json.loads((site / "badges" / "reference.json").read_text(encoding="utf-8"))
    assert reference["color"] == "brightgreen"


def test_hostile_text_is_escaped(matrix: Path, tmp_path: Path) -> None:
    data = json.loads(matrix.read_text(encoding="utf-8"))
    row = next(r for r in data["rows"] if r["name"] == PASS_ROW)
    example = next(iter(row["examples"].values()))
    example["got"] = '<script>alert(1)</script><img src=x onerror=alert(2)>'
    example["leak"] = [0, 8]
    example["deltas"] = ["</script><b>", "x"]
    row["title"] = "<i>title</i>"
    (tmp_path / "matrix.json").write_text(json.dumps(data), encoding="utf-8")
    assert build(tmp_path / "matrix.json", tmp_path / "site") == 0
    html = (tmp_path / "site" / "impl" / f"{PASS_ROW}.html").read_text(encoding="utf-8")
    assert "<script>alert" not in html and "<img src=x" not in html and "<i>title" not in html
    assert '<mark class="leaked">&lt;script' in html
    index = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    data_block = index.split('id="site-data">', 1)[1].split("</script>", 1)[0]
    assert "<" not in data_block  # a scenario id or name cannot end the data block


def test_the_committed_matrix_gives_an_index_well_under_a_megabyte(tmp_path: Path) -> None:
    out = tmp_path / "site"
    assert build(COMMITTED, out) == 0
    assert (out / "index.html").stat().st_size < 512 * 1024
    biggest = max(p.stat().st_size for p in (out / "scenarios").glob("*.html"))
    assert biggest < 256 * 1024  # long streams are cut, and say so
    triage = (out / "triage.html").read_text(encoding="utf-8")
    assert "https://github.com/pydantic/pydantic-ai/issues/3374" in triage
    assert "Untriaged failure classes" in triage


def test_the_shipped_triage_lints_clean_and_every_entry_matches_a_committed_class_or_bug(
) -> None:
    names = [m.name for m in shipped_manifests()] + ["reference"]
    entries, errors = lint_triage(shipped_triage_file(), names)
    assert errors == [] and entries
    site = load_site_data([COMMITTED], load_corpus().scenarios)
    for entry in entries:
        if entry.bug is not None:
            assert any(entry.matches_bug(i.name, c) for i in site.impls
                       for c in (i.claim_bugs or {}).get("root_causes", [])), \
                f"{entry.where}: {entry.upstream} matches no bug of reports/matrix.json"
            continue
        assert any(entry.matches(i.name, c) for i in site.impls for c in i.classes or []), \
            f"{entry.where}: {entry.upstream} matches no failure class of reports/matrix.json"


def test_triage_errors_name_file_and_line(tmp_path: Path) -> None:
    bad = tmp_path / "triage.toml"
    bad.write_text('[[triage]]\nimplementation = "hermes-stream"\nupstream = "not a url"\n'
                   'status = "maybe"\n\n[[triage]]\nimplementation = "nobody-*"\n'
                   'upstream = "https://example.org/1"\nstatus = "open"\nrules = ["R-NOPE-9"]\n'
                   'colour = "red"\n', encoding="utf-8")
    _, errors = lint_triage(bad, ["hermes-stream"])
    assert f"{bad}:3: upstream 'not a url' is not an http(s) URL" in errors
    assert any(e.startswith(f"{bad}:4: status 'maybe'") for e in errors)
    assert any(e.startswith(f"{bad}:7: 'nobody-*' matches no implementation") for e in errors)
    assert any(e.startswith(f"{bad}:10: 'R-NOPE-9' is not a SPEC rule") for e in errors)
    assert any(e.startswith(f"{bad}:11: unknown key 'colour'") for e in errors)
    bad.write_text('[[triage]]\nimplementation = "x\n', encoding="utf-8")
    _, errors = lint_triage(bad, ["x"])
    assert len(errors) == 1 and errors[0].startswith(f"{bad}:2: not TOML")
    assert main(["site", "--lint-triage", "--triage", str(bad)]) == 2
    assert main(["site", "--lint-triage"]) == 0


def test_bad_input_is_refused_naming_the_file(matrix: Path, tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["site", "--out", str(tmp_path / "s"), str(matrix), str(matrix)]) == 2
    assert "is also in" in capsys.readouterr().err
    (tmp_path / "busy").mkdir()
    (tmp_path / "busy" / "keep.txt").write_text("mine", encoding="utf-8")
    assert build(matrix, tmp_path / "busy") == 2
    assert "holds no scrubcheck site" in capsys.readouterr().err
    (tmp_path / "junk.json").write_text("[]", encoding="utf-8")
    assert build(tmp_path / "junk.json", tmp_path / "s2") == 2
    assert "junk.json" in capsys.readouterr().err


def _release(matrix: Path, out: Path, version: str, drop: str | None,
             digest: str | None = None) -> Path:
    """The small matrix as if run on release `version` of one peer: its rows renamed
    NAME@VERSION, optionally one failure class gone (fixed) and another corpus digest."""
    data = json.loads(matrix.read_text(encoding="utf-8"))
    data["started_at"] = f"2026-01-0{version[0]}T00:00:00+00:00"
    if digest:
        data["settings"]["corpus_digest"] = digest
    data["rows"] = [r for r in data["rows"] if r["name"] == CASE_ROW]
    row = data["rows"][0]
    row["name"], row["version"] = f"demo@{version}", version
    if drop:
        row["failure_classes"] = [c for c in row["failure_classes"] if c["example"] != drop]
    path = out / f"matrix-{version}.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_history_appends_and_the_trend_names_fixed_classes(matrix: Path, tmp_path: Path) -> None:
    data = json.loads(matrix.read_text(encoding="utf-8"))
    first = next(r for r in data["rows"] if r["name"] == CASE_ROW)["failure_classes"][0]
    old = _release(matrix, tmp_path, "1.0.0", None)
    new = _release(matrix, tmp_path, "2.0.0", first["example"])
    other = _release(matrix, tmp_path, "3.0.0", None, digest="0000000000000000")
    history = tmp_path / "history.json"
    assert main(["site", "--out", str(tmp_path / "s"), "--history", str(history),
                 str(old), str(new)]) == 0
    assert main(["site", "--out", str(tmp_path / "s"), "--history", str(history),
                 str(new), str(other)]) == 0  # `new` is already there: not added twice
    entries = json.loads(history.read_text(encoding="utf-8"))["entries"]
    assert [e["rows"].popitem()[1]["version"] for e in entries] == ["1.0.0", "2.0.0", "3.0.0"]
    entries = json.loads(history.read_text(encoding="utf-8"))["entries"]
    series = trends(entries)["demo"]
    assert [p.version for p in series] == ["1.0.0", "2.0.0", "3.0.0"]
    fixed, changed = steps(series)
    assert [c["example"] for c in fixed.fixed] == [first["example"]] and not fixed.new
    assert changed.not_compared.startswith("corpus ") and not changed.fixed
    page = (tmp_path / "s" / "history.html").read_text(encoding="utf-8")
    assert "Fixed (1)" in page and "compared only with runs judged alike" in page
    assert "corpus 0000000000000000" in page


def test_the_trend_counts_and_compares_within_the_claim(matrix: Path, tmp_path: Path) -> None:
    """Releases of a peer that claims a class (ai6-stream: think): leaks are counted
    within the claim, failure classes compared within it where both matrices kept them,
    in the generic class where one did not, and every step says which."""
    from scrubcheck.matrix.within_claim import counts

    releases = []
    for version, drop, keep_claim in (("1.0.0", None, True), ("2.0.0", "first", True),
                                      ("3.0.0", None, False)):
        path = _release(matrix, tmp_path, version, None)
        data = json.loads(path.read_text(encoding="utf-8"))
        row = data["rows"][0]
        row["name"] = f"ai6-stream@{version}"
        row["claim"] = "think"  # what a run of ai6-stream records (the site reads it)
        within = [dict(c) for c in row["failure_classes"]]
        if drop:
            within = within[1:]
        if keep_claim:
            row["claim_failure_classes"] = within
        else:
            row.pop("claim_failure_classes", None)
        path.write_text(json.dumps(data), encoding="utf-8")
        releases.append(path)
    history = tmp_path / "history.json"
    assert main(["site", "--out", str(tmp_path / "s"), "--history", str(history),
                 *map(str, releases)]) == 0
    entries = read_history(history)
    series = trends(entries)["ai6-stream"]
    verdicts = json.loads(releases[0].read_text(encoding="utf-8"))["rows"][0]["verdicts"]
    assert [p.leaks_in for p in series] == ["think"] * 3
    assert series[0].leaks == counts("think", verdicts)["LEAK"] != series[0].totals["LEAK"]
    first, second = steps(series)
    assert first.compared_in == "think" and len(first.fixed) == 1 and not first.new
    assert second.compared_in == "generic"  # 3.0.0's matrix kept no classes within the claim
    page = (tmp_path / "s" / "history.html").read_text(encoding="utf-8")
    assert "compared within its claim (think)" in page
    assert "in the generic class (the matrix kept no classes within the claim)" in page
    impl = (tmp_path / "s" / "impl" / "ai6-stream@1.0.0.html").read_text(encoding="utf-8")
    assert "Failure classes within its claim (think)" in impl and "In the generic class" in impl


def test_a_history_entry_is_completed_never_rewritten(matrix: Path) -> None:
    """An entry an older scrubcheck wrote without the within-claim counts is completed by
    the same run read again; a run whose findings differ is never put in its place."""
    site = load_site_data([matrix], load_corpus().scenarios)
    (entry,) = entries_of(site)
    older = json.loads(json.dumps(entry))
    for row in older["rows"].values():
        for key in ("claim", "claim_totals", "claim_classes"):
            row.pop(key)
    assert merged([older], [entry]) == ([entry], 0)
    changed = json.loads(json.dumps(entry))
    next(iter(changed["rows"].values()))["totals"]["PASS"] += 1
    assert merged([older], [changed]) == ([older], 0)


def test_history_entries_say_where_they_came_from(matrix: Path) -> None:
    site = load_site_data([matrix], load_corpus().scenarios)
    (entry,) = entries_of(site)
    assert entry["spec_version"] and entry["corpus_digest"] and entry["run"]
    assert entry["date"] == entry["run"][:10]
    assert merged([entry], [entry]) == ([entry], 0)


HISTORY = ROOT / "reports" / "history.json"
RELEASES = ROOT / "reports" / "releases" / "matrix.json"
APPEND = ("scrubcheck site --out build/site --history reports/history.json "
          "reports/matrix.json reports/releases/matrix.json")


def test_the_committed_history_holds_each_committed_matrix_run() -> None:
    """reports/history.json is appended to, never rewritten: each committed matrix's run
    must be in it as that matrix has it (row for row, class for class)."""
    history = read_history(HISTORY)
    scenarios = load_corpus().scenarios
    for path in (COMMITTED, RELEASES):
        (entry,) = entries_of(load_site_data([path], scenarios))
        kept = [e for e in history if e["run"] == entry["run"]
                and e["spec_version"] == entry["spec_version"]
                and e["corpus_digest"] == entry["corpus_digest"]]
        assert kept, f"{path.relative_to(ROOT)} is not in reports/history.json: {APPEND}"
        assert any(e["rows"] == entry["rows"] for e in kept), \
            f"reports/history.json has another version of {path.relative_to(ROOT)}: {APPEND}"


def test_an_output_with_a_lone_surrogate_is_kept_exactly(matrix: Path, tmp_path: Path) -> None:
    """Scrubbers print what they print, lone surrogates included: matrix.json keeps the
    example as report.json does (its JSON escape), and the page shows it escaped."""
    from scrubcheck.matrix import write_matrix
    from scrubcheck.matrix.stored import load_stored_matrix

    stored = load_stored_matrix(matrix)
    row = next(r for r in stored.rows if r.name == CASE_ROW)
    assert row.stored is not None
    example = next(iter(row.stored["examples"].values()))
    example["got"] = "answer \udc80 tail"
    write_matrix(stored, tmp_path)
    data = json.loads((tmp_path / "matrix.json").read_text(encoding="utf-8"))
    kept = next(r for r in data["rows"] if r["name"] == CASE_ROW)["examples"]
    assert "answer \udc80 tail" in [e["got"] for e in kept.values()]
    assert build(tmp_path / "matrix.json", tmp_path / "site") == 0


def test_the_committed_history_has_releases_to_compare() -> None:
    """The history the site shows holds at least four packages with three releases judged
    alike, and the trend names what changed between some pair of them."""
    series = trends(read_history(HISTORY))
    compared = {base: group for base, s in series.items() for group in judged_alike(s)
                if len({p.version for p in group}) >= 3}
    assert len(compared) >= 4, sorted(compared)
    changes = [step for group in compared.values() for step in steps(group)
               if step.fixed or step.new]
    assert changes, "no failure class changed between releases"


def test_a_bug_s_standing_shows_beside_it_and_the_unreported_lead_the_triage(
        matrix: Path, tmp_path: Path) -> None:
    """A triage entry with `bug` gives the root causes it names a standing: a known
    upstream bug, or a choice the implementation documents (by design, with its reason).
    The implementation page shows it beside the bug; a bug no entry names is "not yet
    reported", and the triage page lists those first."""
    from scrubcheck.site import build_site
    from scrubcheck.site.triage import load_triage

    site = load_site_data([matrix], load_corpus().scenarios)
    bugs = {i.name: (i.claim_bugs or {}).get("root_causes", []) for i in site.impls}
    assert bugs[CASE_ROW] and bugs[PASS_ROW], "the small matrix explained no bug"
    case_bug = bugs[CASE_ROW][0]["name"]
    assert "letter case" in case_bug, case_bug
    triage = tmp_path / "triage.toml"
    triage.write_text(
        f'[[triage]]\nimplementation = "{CASE_ROW}"\nbug = "*letter case*"\n'
        'upstream = "https://example.org/docs/case"\nstatus = "by-design"\n'
        'note = "matches tags exactly as written, to keep HTML in answers"\n\n'
        f'[[triage]]\nimplementation = "{PASS_ROW}"\nbug = "*"\nrules = ["R-NOPE-0"]\n'
        'upstream = "https://example.org/issues/1"\nstatus = "open"\n', encoding="utf-8")
    _, errors = lint_triage(triage, [CASE_ROW, PASS_ROW])
    assert errors == [f"{triage}:11: 'R-NOPE-0' is not a SPEC rule id"]
    triage.write_text(triage.read_text(encoding="utf-8").replace('"R-NOPE-0"', '"R-LEAK-1"'),
                      encoding="utf-8")
    entries = load_triage(triage, [CASE_ROW, PASS_ROW])
    out = tmp_path / "s"
    built = build_site(site, out, entries, entries_of(site), triage_file="triage.toml",
                       history_file="-", base_url="")
    case_page = (out / "impl" / f"{CASE_ROW}.html").read_text(encoding="utf-8")
    assert "by design</span>: matches tags exactly as written" in case_page
    pass_page = (out / "impl" / f"{PASS_ROW}.html").read_text(encoding="utf-8")
    # the entry asks for R-LEAK-1: the leaks carry it, a bug that breaks other rules not
    leak_rules = [c for c in bugs[PASS_ROW] if "R-LEAK-1" in c["rules"]]
    assert pass_page.count("known upstream bug") == len(leak_rules) > 0
    unreported = sum(len(v) for v in bugs.values()) - len(bugs[CASE_ROW]) + \
        sum(1 for c in bugs[CASE_ROW] if "letter case" not in c["name"]) - len(leak_rules)
    assert built.bugs["not yet reported"] == unreported
    assert built.bugs["by design"] == sum(1 for c in bugs[CASE_ROW]
                                          if "letter case" in c["name"])
    page = (out / "triage.html").read_text(encoding="utf-8")
    assert page.index("Bugs not yet reported") < page.index("Untriaged failure classes")
    assert f"Bugs not yet reported ({unreported} of " in page
    index = (out / "index.html").read_text(encoding="utf-8")
    assert f"{unreported} not yet reported</a>" in index
    assert _broken_links(out) == []


def test_a_bug_entry_is_linted_like_any_other(tmp_path: Path) -> None:
    bad = tmp_path / "triage.toml"
    bad.write_text('[[triage]]\nimplementation = "x"\nbug = "*"\narea = "blocks"\n'
                   'upstream = "https://example.org/1"\nstatus = "by-design"\n',
                   encoding="utf-8")
    _, errors = lint_triage(bad, ["x"])
    assert f"{bad}:6: a by-design entry needs a note: the reason the implementation gives" \
        in errors
    assert any(e.startswith(f"{bad}:3: 'bug' is a non-empty glob") for e in errors), errors


def test_the_trend_names_the_bugs_a_release_fixed_and_brought(matrix: Path,
                                                              tmp_path: Path) -> None:
    """Bugs are compared by name across releases judged alike: one gone is fixed, one
    that appears is new; a release that was not explained compares no bugs."""
    data = json.loads(matrix.read_text(encoding="utf-8"))
    causes = next(r for r in data["rows"] if r["name"] == CASE_ROW)["claim_bugs"]["root_causes"]
    assert causes, "the small matrix explained no bug"
    releases = []
    for version, keep in (("1.0.0", causes), ("2.0.0", causes[1:]), ("3.0.0", None)):
        path = _release(matrix, tmp_path, version, None)
        release = json.loads(path.read_text(encoding="utf-8"))
        row = release["rows"][0]
        if keep is None:
            row.pop("claim_bugs", None)
        else:
            row["claim_bugs"] = {**row["claim_bugs"], "bugs": len(keep), "root_causes": keep}
        path.write_text(json.dumps(release), encoding="utf-8")
        releases.append(path)
    history = tmp_path / "history.json"
    assert main(["site", "--out", str(tmp_path / "s"), "--history", str(history),
                 *map(str, releases)]) == 0
    first, second = steps(trends(read_history(history))["demo"])
    assert [b["name"] for b in first.fixed_bugs or ()] == [causes[0]["name"]]
    assert first.new_bugs == ()
    assert second.fixed_bugs is None and second.new_bugs is None
    page = (tmp_path / "s" / "history.html").read_text(encoding="utf-8")
    assert "Bugs fixed (1)" in page and html.escape(causes[0]["name"]) in page
