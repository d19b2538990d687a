"""What `scrubcheck regenerate` rebuilds: each committed report, how to tell it is stale,
and how to make it current.

A target knows two things. `stale` answers cheaply, without running any
implementation, whether the committed files still describe the checkout: the SPEC
version, the corpus digest, the harness digest and the implementations' versions
they record, against today's. `build` makes them current, running implementations
through the result cache (scrubcheck.runner.cache), so only the rows × scenarios
whose digests changed are run. Targets run in dependency order: the docs pages quote
the matrix and the audits, so they come last.

Each target reproduces what its committed files already are: the matrix reruns the
rows the committed matrix.json has (and refuses, naming the install command, when
one of their peers is not installed here, rather than write a matrix with a row
missing); the gateway audits rerun each committed audit's gateway and configuration.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from scrubcheck.corpus import Corpus
from scrubcheck.corpus.fingerprint import corpus_digest
from scrubcheck.matrix import run_matrix, write_matrix
from scrubcheck.matrix.bugs import Explaining
from scrubcheck.peers import Manifest, ManifestError, read_marker, shipped_rows
from scrubcheck.peers.engines import shipped_engines
from scrubcheck.regenerate import quotes, spec_table
from scrubcheck.reports import read_report, write_reports
from scrubcheck.reports.coverage import render as render_coverage
from scrubcheck.results import RunResult
from scrubcheck.runner import RunSettings
from scrubcheck.runner.cache import ResultCache, cached_run
from scrubcheck.runner.harness import (
    GATEWAY_PARTS,
    formats_digest,
    harness_digest,
    implementation_digest,
    writers_digest,
)
from scrubcheck.spec import SPEC_VERSION
from scrubcheck.vocabulary import GENERIC

Say = Callable[[str], None]
#: what the committed matrix is run with (docs/compliance.md: a full-mode `scrubcheck matrix`)
MATRIX_TIMEOUT_S = 120.0


class CannotRegenerate(RuntimeError):
    """A target cannot be made current here (a peer or gateway not installed); the message
    names what to install. Nothing of that target is written."""


@dataclass
class Context:
    """What every target works with: the checkout, its corpus, the cache, the machine."""

    root: Path  # the checkout: reports/, README.md and docs/
    corpus: Corpus
    cache: ResultCache | None  # None: --no-cache, every row runs in full
    gateway_cache: ResultCache | None
    jobs: int | None
    say: Say = print
    progress: bool = False
    #: --force: run what a target runs even where re-rendering its stored results would do
    rerun: bool = False

    @property
    def reports(self) -> Path:
        return self.root / "reports"

    @cached_property
    def digest(self) -> str:
        """The corpus digest, as every report records it (computed once)."""
        return corpus_digest(self.corpus.scenarios)


class Target:
    """One committed report (or set of files) that regenerate keeps current."""

    name = ""
    #: what it is, in the words `--list` prints
    about = ""

    def stale(self, ctx: Context) -> str | None:
        """Why the committed files no longer describe the checkout; None when current."""
        raise NotImplementedError

    def build(self, ctx: Context) -> list[Path]:
        """Make the files current; the paths written."""
        raise NotImplementedError


def _json(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _first_difference(pairs: Iterable[tuple[str, object, object]]) -> str | None:
    for what, was, now in pairs:
        if was != now:
            return f"{what} {was!r}, the checkout's is {now!r}"
    return None


class Coverage(Target):
    name = "coverage"
    about = "reports/coverage.md: scenarios per SPEC rule, area, feature (scrubcheck coverage)"

    def path(self, ctx: Context) -> Path:
        return ctx.reports / "coverage.md"

    def stale(self, ctx: Context) -> str | None:
        try:
            committed = self.path(ctx).read_text(encoding="utf-8")
        except OSError:
            return "missing"
        return None if committed == render_coverage(ctx.corpus) else "differs from the corpus"

    def build(self, ctx: Context) -> list[Path]:
        path = self.path(ctx)
        path.write_text(render_coverage(ctx.corpus), encoding="utf-8")
        return [path]


class Reference(Target):
    name = "reference"
    about = ("reports/reference/: the reference scrubber over the whole corpus "
             "(scrubcheck run --scrubber reference --jobs 2)")
    spec = "reference"

    def folder(self, ctx: Context) -> Path:
        return ctx.reports / "reference"

    def settings(self, ctx: Context) -> RunSettings:
        # the class named, not left to the claim: a cached result in the generic class
        # reads only the formats its scenario enables (runner.harness.formats_read)
        return RunSettings(jobs=ctx.jobs, conformance_class=GENERIC)

    def stale(self, ctx: Context) -> str | None:
        path = self.folder(ctx) / "report.json"
        data = _json(path)
        if data is None:
            return "missing"
        settings = data.get("settings", {})
        made = _first_difference([
            ("it was judged by SPEC", data.get("spec_version"), SPEC_VERSION),
            ("its corpus digest is", settings.get("corpus_digest"), ctx.digest),
            ("its harness digest is", settings.get("cache", {}).get("harness"),
             harness_digest()),
            ("its format registry's digest is", settings.get("cache", {}).get("formats"),
             formats_digest()),
            ("the reference's code digest is", settings.get("implementation_digest"),
             implementation_digest(self.spec)),
        ])
        if made:
            return made
        with tempfile.TemporaryDirectory(prefix="scrubcheck-regenerate-") as tmp:
            for fresh in write_reports(read_report(path), Path(tmp)):
                committed = self.folder(ctx) / fresh.name
                if not committed.is_file() or fresh.read_bytes() != committed.read_bytes():
                    return f"{fresh.name} is not what the writers make of report.json"
        return None

    def build(self, ctx: Context) -> list[Path]:
        implementation = implementation_digest(self.spec)
        run = cached_run(self.spec, ctx.corpus.scenarios, self.settings(ctx), ctx.cache,
                         implementation, progress=ctx.progress,
                         corpus_errors=[str(e) for e in ctx.corpus.errors])
        _say_run(ctx, self.spec, run)
        # which reference it was: an edit to scrubbers/ makes the report stale, as a
        # change to the harness does (tests/test_committed_reports.py reads both)
        run.settings["implementation_digest"] = implementation
        return write_reports(run, self.folder(ctx))


def _say_run(ctx: Context, name: str, run: RunResult) -> None:
    cache = run.settings.get("cache")
    how = (f"{cache['ran']} ran, {cache['reused']} from the cache" if cache
           else f"{len(run.results)} ran (no cache)")
    counts = ", ".join(f"{k} {v}" for k, v in sorted(run.counts().items()))
    ctx.say(f"    {name}: {how}; {counts}; {run.duration_s:.0f} s")


class Matrix(Target):
    name = "matrix"
    about = ("reports/matrix.{json,md,html}: every committed row over the whole corpus, "
             "full mode (scrubcheck matrix)")

    def path(self, ctx: Context) -> Path:
        return ctx.reports / "matrix.json"

    def rows(self, ctx: Context) -> list[dict[str, Any]]:
        data = _json(self.path(ctx))
        if data is None:
            raise CannotRegenerate(f"{self.path(ctx)} is missing or not JSON: run "
                                   "`scrubcheck matrix --out reports` once to choose its rows")
        return [r for r in data.get("rows", []) if isinstance(r, dict)]

    def stale(self, ctx: Context) -> str | None:
        data = _json(self.path(ctx))
        if data is None:
            return "missing"
        return self._results_stale(ctx, data) or _first_difference([
            ("its pages' writers' digest is", data.get("settings", {}).get("writers_digest"),
             writers_digest())])

    def _results_stale(self, ctx: Context, data: dict[str, Any]) -> str | None:
        """Why the results themselves no longer hold (None: only the pages may be old)."""
        settings = data.get("settings", {})
        made = _first_difference([
            ("it was judged by SPEC", settings.get("spec_version"), SPEC_VERSION),
            ("its corpus digest is", settings.get("corpus_digest"), ctx.digest),
            ("its harness digest is", settings.get("harness_digest"), harness_digest()),
            ("its format registry's digest is", settings.get("formats_digest"),
             formats_digest()),
        ])
        if made:
            return made
        manifests = {m.name: m for m in shipped_rows()}
        for row in data.get("rows", []):
            manifest = manifests.get(str(row.get("spec", "")).removeprefix("peer:"))
            if row.get("status") == "ran" and manifest is not None:
                record = read_marker(manifest.package)
                now = (record.version or manifest.package.version) if record else None
                if now is not None and now != row.get("version"):
                    return f"row {row['name']} ran {row.get('version')}, {now} is installed"
        return None

    def build(self, ctx: Context) -> list[Path]:
        data = _json(self.path(ctx))
        if data is not None and not ctx.rerun and self._results_stale(ctx, data) is None:
            return self._rerender(ctx)
        rows = self.rows(ctx)
        names = [r["name"] for r in rows if r.get("spec", "").startswith("peer:")]
        manifests = _manifests(names)
        missing = sorted({m.engine or m.name for m in manifests
                          if read_marker(m.package) is None})
        if missing:
            raise CannotRegenerate(
                f"{len(missing)} of the matrix's peers are not installed here: "
                f"scrubcheck peers install {' '.join(missing)}")
        settings = RunSettings(timeout_s=MATRIX_TIMEOUT_S, jobs=ctx.jobs)
        matrix = run_matrix(manifests, set(names), ctx.corpus.scenarios, settings,
                            ctx.reports, quick=False, progress=ctx.progress, say=ctx.say,
                            cache=ctx.cache,
                            explaining=Explaining(jobs=settings.workers,
                                                 cache=ctx.cache is not None,
                                                 timeout=5.0 + MATRIX_TIMEOUT_S))
        return write_matrix(matrix, ctx.reports)

    def _rerender(self, ctx: Context) -> list[Path]:
        """Only the writers changed: every result still holds, so the pages are written
        again from matrix.json (`matrix --render-from`) in seconds, and say so; --force
        runs the rows instead."""
        from scrubcheck.matrix.stored import StoredMatrixError, load_stored_matrix

        try:
            matrix = load_stored_matrix(self.path(ctx))
        except (StoredMatrixError, ManifestError) as exc:
            raise CannotRegenerate(str(exc)) from exc
        ctx.say("    only the pages' writers changed: re-rendered from matrix.json "
                "(--force runs the rows)")
        return write_matrix(matrix, ctx.reports)


def _manifests(names: list[str]) -> list[Manifest]:
    """The committed matrix's peer rows, and every registered parser of each engine the
    matrix already has a row of (its own `ENGINE:NAME` rows, or a hand-made row the
    engine points at): a name a new engine release registers becomes a row without
    choosing it by hand."""
    rows = shipped_rows()
    by_name = {m.name: m for m in rows}
    chosen = set(names)
    engines = {m.engine for m in rows if m.engine and m.name in chosen}
    engines |= {e.name for e in shipped_engines() if chosen & {r for _, r in e.own_rows}}
    absent = sorted({m.engine for m in rows if m.name.endswith(":*") and m.engine in engines})
    unknown = [n for n in names if n not in by_name]
    if unknown and absent:
        raise CannotRegenerate(f"the matrix has rows of engines whose parsers cannot be "
                               f"listed here ({', '.join(absent)}): scrubcheck peers install "
                               + " ".join(absent))
    if unknown:
        raise CannotRegenerate(f"the matrix has rows for peers no longer shipped: "
                               f"{', '.join(unknown)}; run `scrubcheck matrix` to choose rows")
    return [by_name[n] for n in names] + [m for m in rows if m.engine in engines
                                          and m.name not in chosen]


class SpecTable(Target):
    name = "spec-table"
    about = "SPEC.md's feature table (R-VOCAB-3), one row per format of the registry"

    def _texts(self, ctx: Context) -> tuple[str, str]:
        current = (ctx.root / "SPEC.md").read_text(encoding="utf-8")
        try:
            return current, spec_table.updated(current)
        except spec_table.SpecTableError as exc:
            raise CannotRegenerate(str(exc)) from exc

    def stale(self, ctx: Context) -> str | None:
        try:
            current, fresh = self._texts(ctx)
        except (OSError, CannotRegenerate) as exc:
            return str(exc)
        return None if fresh == current else "its rows differ from the format registry"

    def build(self, ctx: Context) -> list[Path]:
        _, fresh = self._texts(ctx)
        path = ctx.root / "SPEC.md"
        path.write_text(fresh, encoding="utf-8")
        return [path]


class Quotes(Target):
    name = "quotes"
    about = ("the docs pages' quotes of the reports: docs/compliance.md's matrix headline "
             "table and corpus size, docs/gateways.md's table numbers and stream count")

    def _pages(self, ctx: Context) -> dict[Path, str]:
        """Each quoting page and its text made current."""
        compliance = ctx.root / quotes.COMPLIANCE_PAGE
        gateways = ctx.root / quotes.GATEWAYS_PAGE
        return {
            compliance: quotes.compliance_updated(compliance.read_text(encoding="utf-8"),
                                                  ctx.reports / "matrix.json"),
            gateways: quotes.gateways_updated(gateways.read_text(encoding="utf-8"),
                                              sorted((ctx.reports / "gateways").glob("*.json"))),
        }

    def stale(self, ctx: Context) -> str | None:
        try:
            pages = self._pages(ctx)
        except (OSError, quotes.QuoteError) as exc:
            return str(exc)
        changed = [path.relative_to(ctx.root).as_posix() for path, text in pages.items()
                   if path.read_text(encoding="utf-8") != text]
        return (f"{', '.join(changed)}: tables or counts differ from the reports"
                if changed else None)

    def build(self, ctx: Context) -> list[Path]:
        try:
            pages = self._pages(ctx)
        except (OSError, quotes.QuoteError) as exc:
            raise CannotRegenerate(f"docs pages: {exc}") from exc
        for path, text in pages.items():
            path.write_text(text, encoding="utf-8")
        return list(pages)


def gateway_cache(root: Path | None) -> ResultCache:
    """The cache whose folder holds the gateways' stored answers (gateway/answers.py):
    every audit judges them afresh, so a change to the judging requests nothing."""
    return ResultCache(root, extra=GATEWAY_PARTS)


#: the audit forms the repository keeps (docs/gateways.md links the html, regenerate reads the json)
COMMITTED_AUDIT_KINDS = ("md", "html", "json")


class Gateways(Target):
    name = "gateways"
    about = ("reports/gateways/: each committed audit's gateway and configuration, started "
             "on loopback, over the whole corpus (scrubcheck gateway audit --gateway-name)")

    def audits(self, ctx: Context) -> list[Path]:
        return sorted((ctx.reports / "gateways").glob("*.json"))

    def stale(self, ctx: Context) -> str | None:
        ids = [s.id for s in ctx.corpus.scenarios]
        for path in self.audits(ctx):
            data = _json(path)
            if data is None:
                return f"{path.name} is not JSON"
            audited = list(dict.fromkeys(r["id"] for r in data.get("results", [])))
            made = _first_difference([
                (f"{path.name} was judged by SPEC", data.get("spec_version"), SPEC_VERSION),
                (f"{path.name} audited scenarios: count", len(audited), len(ids)),
                (f"{path.name}'s scenario ids", sorted(audited) == sorted(ids), True),
                (f"{path.name}'s corpus digest is",
                 data.get("settings", {}).get("corpus_digest"), ctx.digest),
                (f"{path.name}'s harness digest is",
                 data.get("settings", {}).get("harness_digest"),
                 harness_digest(GATEWAY_PARTS)),
                (f"{path.name}'s format registry's digest is",
                 data.get("settings", {}).get("formats_digest"), formats_digest()),
            ])
            if made:
                return made
        return None

    def build(self, ctx: Context) -> list[Path]:
        from scrubcheck.gateway.audit import AuditOptions, replay_upstream
        from scrubcheck.gateway.audit_report import write_audit_reports
        from scrubcheck.gateway.products import GatewayError, GatewayManifestError
        from scrubcheck.gateway.products.audited import audit_named, report_stem

        written: list[Path] = []
        for path in self.audits(ctx):
            data = _json(path) or {}
            choice = quotes.audit_name(data)
            options = AuditOptions(jobs=ctx.jobs or AuditOptions.jobs)
            ctx.say(f"gateway {choice} ...")
            try:
                with replay_upstream(ctx.corpus.scenarios, port=0) as upstream:
                    result = audit_named(choice, ctx.corpus.scenarios, options,
                                         upstream=upstream, say=ctx.say,
                                         cache=ctx.gateway_cache)
            except (GatewayError, GatewayManifestError) as exc:
                raise CannotRegenerate(
                    f"{choice}: {exc} (scrubcheck gateways install "
                    f"{choice.split(':')[0]})") from exc
            if result.problem or result.interrupted:
                raise CannotRegenerate(f"{choice}: the audit did not run through: "
                                       f"{result.problem or 'interrupted'}")
            result.settings.update(corpus_digest=ctx.digest,
                                   harness_digest=harness_digest(GATEWAY_PARTS),
                                   formats_digest=formats_digest())
            ctx.say(f"    {choice}: {result.headline_text()}; {result.duration_s:.0f} s")
            written += write_audit_reports(result, path.parent, report_stem(choice),
                                           kinds=COMMITTED_AUDIT_KINDS, captures=False)
        return written


class History(Target):
    name = "history"
    about = ("reports/history.json: every committed matrix run appended (the site's trend "
             "across releases reads it; appended to, never rewritten)")

    def _paths(self, ctx: Context) -> tuple[Path, list[Path]]:
        matrices = [p for p in (ctx.reports / "matrix.json",
                                ctx.reports / "releases" / "matrix.json") if p.is_file()]
        return ctx.reports / "history.json", matrices

    def _merged(self, ctx: Context) -> tuple[list[dict[str, Any]], int]:
        from scrubcheck.site.history import entries_of, merged, read_history
        from scrubcheck.site.model import load_site_data

        history, matrices = self._paths(ctx)
        new = []
        for path in matrices:
            for entry in entries_of(load_site_data([path], ctx.corpus.scenarios)):
                # the committed file names the matrix as the checkout does, not as this
                # machine's folders happen to (`reports/releases/matrix.json`)
                new.append({**entry, "matrix": path.relative_to(ctx.root).as_posix()})
        return merged(read_history(history) if history.is_file() else [], new)

    def stale(self, ctx: Context) -> str | None:
        from scrubcheck.site.history import read_history

        history, _ = self._paths(ctx)
        try:
            entries, added = self._merged(ctx)
            if added:
                return f"{added} committed matrix runs are not in it"
            if history.is_file() and entries != read_history(history):
                return "committed matrix runs are in it with less than the matrices now record"
        except (OSError, ValueError) as exc:
            return str(exc)
        return None

    def build(self, ctx: Context) -> list[Path]:
        from scrubcheck.site.history import write_history

        try:
            entries, _ = self._merged(ctx)
        except (OSError, ValueError) as exc:
            raise CannotRegenerate(f"reports/history.json: {exc}") from exc
        path, _ = self._paths(ctx)
        write_history(path, entries)
        return [path]


#: every target, in the order they are built (the docs pages quote the others)
TARGETS: tuple[Target, ...] = (SpecTable(), Coverage(), Reference(), Matrix(), History(),
                               Gateways(), Quotes())
