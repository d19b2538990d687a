"""`scrubcheck regenerate` tells stale reports from current ones, rebuilds them through the
result cache, and refuses (naming the install command) what it cannot rebuild here.

The targets are tried on a small corpus in a copy of the checkout's reports, so each
test takes seconds; the committed reports themselves are checked by
tests/test_committed_reports.py, which names this command in its messages.
"""

from __future__ import annotations

import json
import re
import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from scrubcheck.cli import main
from scrubcheck.corpus import Corpus, select
from scrubcheck.regenerate import Context, choose, quotes, regenerate
from scrubcheck.regenerate import targets as targets_module
from scrubcheck.regenerate.targets import CannotRegenerate, Coverage, Matrix, Quotes, Reference
from scrubcheck.results import RunResult
from scrubcheck.runner import cache as cache_module
from scrubcheck.runner import harness as harness_module
from scrubcheck.runner.cache import ResultCache

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    """A copy of the checkout's README, the quoting docs pages and the reports regenerate
    reads."""
    root = tmp_path / "checkout"
    (root / "reports" / "gateways").mkdir(parents=True)
    (root / "docs").mkdir()
    shutil.copy(ROOT / "README.md", root / "README.md")
    for page in (quotes.COMPLIANCE_PAGE, quotes.GATEWAYS_PAGE):
        shutil.copy(ROOT / page, root / page)
    shutil.copy(ROOT / "reports" / "coverage.md", root / "reports" / "coverage.md")
    return root


@pytest.fixture
def small(corpus: Corpus) -> Corpus:
    """Eight scenarios of two areas: a corpus that runs in seconds."""
    chosen = (select(corpus.scenarios, areas=["split-tags"])[:4]
              + select(corpus.scenarios, areas=["truncation"])[:4])
    return Corpus(scenarios=chosen, errors=[], files=corpus.files)


def _context(root: Path, corpus: Corpus, cache_root: Path) -> Context:
    lines: list[str] = []
    return Context(root, corpus, ResultCache(cache_root), ResultCache(cache_root), jobs=2,
                   say=lines.append)


def test_check_names_each_stale_target_and_exits_1(checkout: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["regenerate", "--root", str(checkout), "--check", "--only",
                 "coverage"]) == 0
    (checkout / "reports" / "coverage.md").write_text("# edited by hand\n")
    assert main(["regenerate", "--root", str(checkout), "--check", "--only",
                 "coverage"]) == 1
    assert "coverage   stale" in capsys.readouterr().out
    assert (checkout / "reports" / "coverage.md").read_text() == "# edited by hand\n"


def test_a_stale_coverage_page_is_rebuilt(checkout: Path) -> None:
    page = checkout / "reports" / "coverage.md"
    page.write_text("# edited by hand\n")
    assert main(["regenerate", "--root", str(checkout), "--only", "coverage"]) == 0
    assert page.read_text() == (ROOT / "reports" / "coverage.md").read_text()


def test_unknown_targets_and_a_folder_that_is_no_checkout_are_usage_errors(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["regenerate", "--only", "coverage,nonsense", "--check"]) == 2
    assert "nonsense" in capsys.readouterr().err
    assert main(["regenerate", "--root", str(tmp_path), "--check"]) == 2
    assert "no README.md" in capsys.readouterr().err
    with pytest.raises(ValueError, match="nonsense"):
        choose(["nonsense"])


def test_the_reference_report_is_built_current_and_then_from_the_cache(
        checkout: Path, small: Corpus, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    ctx = _context(checkout, small, tmp_path / "cache")
    target = Reference()
    assert target.stale(ctx) == "missing"
    [outcome] = regenerate(ctx, [target])
    assert outcome.state == "rebuilt" and target.stale(ctx) is None
    report = json.loads((checkout / "reports" / "reference" / "report.json").read_text())
    assert report["settings"]["cache"]["ran"] == len(small.scenarios)
    assert sum(report["counts"].values()) == len(small.scenarios)

    def no_run(*args: object, **kwargs: object) -> RunResult:
        raise AssertionError("every result is cached: nothing may run")

    monkeypatch.setattr(cache_module, "run_selection", no_run)
    [again] = regenerate(ctx, [target], force=True)
    assert again.state == "rebuilt"
    report = json.loads((checkout / "reports" / "reference" / "report.json").read_text())
    assert report["settings"]["cache"] == {**report["settings"]["cache"],
                                           "ran": 0, "reused": len(small.scenarios)}
    # a new scenario makes the report stale, and only that scenario runs
    grown = Corpus(scenarios=[*small.scenarios, *select(ctx_scenarios(), areas=["skip"])[:1]],
                   errors=[], files=small.files)
    monkeypatch.undo()
    ctx = _context(checkout, grown, tmp_path / "cache")
    assert "corpus digest" in (target.stale(ctx) or "")
    regenerate(ctx, [target])
    report = json.loads((checkout / "reports" / "reference" / "report.json").read_text())
    assert report["settings"]["cache"]["ran"] == 1
    # a format added to the registry makes it stale too, and reruns no scenario of
    # these (none enables it): only the implementation's description is taken again
    added = {**cache_module.format_digests(), "acme": "added"}
    registry = harness_module.formats_digest(added)
    monkeypatch.setattr(cache_module, "format_digests", lambda: added)
    for module in (cache_module, targets_module):
        monkeypatch.setattr(module, "formats_digest", lambda *given: registry)
    assert "format registry's digest" in (target.stale(ctx) or "")
    regenerate(ctx, [target])
    report = json.loads((checkout / "reports" / "reference" / "report.json").read_text())
    assert report["settings"]["cache"]["ran"] == 0
    assert target.stale(ctx) is None


def ctx_scenarios() -> list:
    from scrubcheck.corpus import load_corpus

    return load_corpus(None).scenarios


def _matrix_with_rows(root: Path, rows: list[dict]) -> None:
    (root / "reports" / "matrix.json").write_text(json.dumps({"matrix_format": 1,
                                                              "rows": rows}))


def test_the_matrix_reruns_its_committed_rows_and_is_then_current(
        checkout: Path, small: Corpus, tmp_path: Path) -> None:
    _matrix_with_rows(checkout, [{"name": "reference", "spec": "reference", "status": "ran"}])
    ctx = _context(checkout, small, tmp_path / "cache")
    target = Matrix()
    assert "SPEC" in (target.stale(ctx) or "")
    [outcome] = regenerate(ctx, [target])
    assert outcome.state == "rebuilt", outcome.detail
    assert target.stale(ctx) is None
    data = json.loads((checkout / "reports" / "matrix.json").read_text())
    assert [r["name"] for r in data["rows"]] == ["reference"]
    assert len(data["rows"][0]["verdicts"]) == len(small.scenarios)
    assert {p.name for p in outcome.written} == {"matrix.json", "matrix.md", "matrix.html"}


def test_a_writers_only_change_re_renders_the_matrix_without_running_a_row(
        checkout: Path, small: Corpus, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Results that still hold are not run again when only the pages' writers changed:
    the pages are re-rendered from matrix.json (and are then current); --force runs."""
    _matrix_with_rows(checkout, [{"name": "reference", "spec": "reference", "status": "ran"}])
    ctx = _context(checkout, small, tmp_path / "cache")
    [built] = regenerate(ctx, [Matrix()])
    assert built.state == "rebuilt", built.detail
    path = checkout / "reports" / "matrix.json"
    data = json.loads(path.read_text())
    data["settings"]["writers_digest"] = "0000000000000000"  # yesterday's writers
    path.write_text(json.dumps(data))
    assert "writers' digest" in (Matrix().stale(ctx) or "")

    def no_rows(*args, **kwargs):
        raise AssertionError("a row was run for a writers-only change")

    monkeypatch.setattr("scrubcheck.regenerate.targets.run_matrix", no_rows)
    said: list[str] = []
    [outcome] = regenerate(replace(ctx, say=said.append), [Matrix()])
    assert outcome.state == "rebuilt" and any("re-rendered from matrix.json" in s for s in said)
    assert Matrix().stale(ctx) is None
    again = json.loads(path.read_text())
    assert again["rows"][0]["verdicts"] == data["rows"][0]["verdicts"]
    assert "re-rendered from matrix.json" in (checkout / "reports" / "matrix.md").read_text()
    with pytest.raises(AssertionError, match="writers-only"):
        Matrix().build(replace(ctx, rerun=True))  # --force runs the rows

def test_a_matrix_row_whose_peer_is_gone_or_not_installed_is_refused(
        checkout: Path, small: Corpus, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ctx = _context(checkout, small, tmp_path / "cache")
    _matrix_with_rows(checkout, [{"name": "reference", "spec": "reference", "status": "ran"},
                                 {"name": "no-such-peer", "spec": "peer:no-such-peer",
                                  "status": "ran"}])
    with pytest.raises(CannotRegenerate, match="no longer shipped: no-such-peer"):
        Matrix().build(ctx)
    _matrix_with_rows(checkout, [{"name": "hermes-stream", "spec": "peer:hermes-stream",
                                  "status": "ran"}])
    monkeypatch.setattr("scrubcheck.regenerate.targets.read_marker", lambda package: None)
    [outcome] = regenerate(ctx, [Matrix()])
    assert outcome.state == "cannot"
    assert "scrubcheck peers install hermes-stream" in outcome.detail
    assert json.loads((checkout / "reports" / "matrix.json").read_text())["rows"][0][
        "name"] == "hermes-stream", "nothing of a target that cannot be rebuilt is written"


def test_the_docs_quotes_are_the_committed_reports(checkout: Path) -> None:
    """What regenerate writes into the docs pages from the committed reports is what they
    hold: the quotes are current."""
    compliance = ROOT / quotes.COMPLIANCE_PAGE
    gateways = ROOT / quotes.GATEWAYS_PAGE
    assert quotes.compliance_updated(compliance.read_text(encoding="utf-8"),
                                     ROOT / "reports" / "matrix.json") == \
        compliance.read_text(encoding="utf-8")
    assert quotes.gateways_updated(gateways.read_text(encoding="utf-8"),
                                   sorted((ROOT / "reports" / "gateways").glob("*.json"))) == \
        gateways.read_text(encoding="utf-8")


def test_the_quotes_target_rewrites_a_changed_number_and_refuses_a_row_without_audit(
        checkout: Path, small: Corpus, tmp_path: Path) -> None:
    for name in ("matrix.json",):
        shutil.copy(ROOT / "reports" / name, checkout / "reports" / name)
    for audit in (ROOT / "reports" / "gateways").glob("*.json"):
        shutil.copy(audit, checkout / "reports" / "gateways" / audit.name)
    ctx = _context(checkout, small, tmp_path / "cache")
    page = checkout / quotes.GATEWAYS_PAGE
    text = page.read_text()
    edited = re.sub(r"(× 2 shapes = )[\d,]+", r"\g<1>4,000", text, count=1)
    assert edited != text
    page.write_text(edited)
    assert Quotes().stale(ctx) is not None
    regenerate(ctx, [Quotes()])
    assert page.read_text() == text
    (checkout / "reports" / "gateways" / "portkey-openai.json").unlink()
    [outcome] = regenerate(ctx, [Quotes()], force=True)
    assert outcome.state == "cannot" and "portkey:openai" in outcome.detail


def test_coverage_target_reads_the_context_corpus(checkout: Path, small: Corpus,
                                                  tmp_path: Path) -> None:
    ctx = _context(checkout, small, tmp_path / "cache")
    assert Coverage().stale(ctx) == "differs from the corpus"


def test_the_history_target_appends_a_matrix_run_it_lacks(checkout: Path, small: Corpus,
                                                          tmp_path: Path) -> None:
    from scrubcheck.regenerate.targets import History

    shutil.copy(ROOT / "reports" / "matrix.json", checkout / "reports" / "matrix.json")
    ctx = _context(checkout, small, tmp_path / "cache")
    target = History()
    assert target.stale(ctx) == "1 committed matrix runs are not in it"
    [outcome] = regenerate(ctx, [target])
    assert outcome.state == "rebuilt" and target.stale(ctx) is None
    entries = json.loads((checkout / "reports" / "history.json").read_text())["entries"]
    assert [e["matrix"] for e in entries] == ["reports/matrix.json"]  # as the checkout names it
    (checkout / "reports" / "history.json").write_text("[]")  # not a history file
    [outcome] = regenerate(ctx, [target])
    assert outcome.state == "cannot" and "history" in outcome.detail


def test_the_matrix_takes_every_registered_name_of_an_engine_it_has_a_row_of() -> None:
    """A hand-made row an engine points at brings the engine's other names in (a name a
    new release registers becomes a row); a matrix without the engine gains none."""
    from scrubcheck.regenerate.targets import _manifests

    assert [m.name for m in _manifests(["hermes-stream"])] == ["hermes-stream"]
    with_vllm = [m.name for m in _manifests(["vllm-qwen3-stream"])]
    assert with_vllm[0] == "vllm-qwen3-stream"
    assert len(with_vllm) > 1 and all(n.startswith("vllm:") for n in with_vllm[1:])
