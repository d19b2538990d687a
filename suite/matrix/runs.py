"""Run the reference and every installed peer over one corpus, and keep each run.

Each implementation's run is written as a full report under
`<out>/peers/<name>/` as soon as it finishes, so an interrupted matrix loses
one run at most, and `reuse=True` picks up runs made with the same settings,
scrubcheck, SPEC, corpus and implementation version. Besides peers, any
scrubber spec `run` takes can be a row (an implementer comparing builds of
their own); such a row has no version to tell its builds apart, so it is never
reused. Every run has its own worker pool with the same per-scenario
wall-clock timeout and memory limit, so a row that hangs or crashes costs its
own scenarios and nothing of the other rows.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from functools import partial
from pathlib import Path

from scrubcheck import __version__
from scrubcheck.adapters import AdapterError
from scrubcheck.chunking import Caps
from scrubcheck.corpus.fingerprint import corpus_digest
from scrubcheck.corpus.shard import Shard
from scrubcheck.matrix.bugs import Explaining, explain_row
from scrubcheck.matrix.rows import Matrix, Row
from scrubcheck.model import Scenario
from scrubcheck.peers import Manifest, installed_version, read_marker
from scrubcheck.reports import write_reports
from scrubcheck.results import RunResult
from scrubcheck.runner import RunSettings
from scrubcheck.runner.cache import ResultCache, cached_run
from scrubcheck.runner.harness import formats_digest, harness_digest
from scrubcheck.spec import SPEC_VERSION
from scrubcheck.vectors.native import native_implementation, run_row

#: --quick: the same corpus and checks, fewer chunkings and cuts per scenario.
QUICK_CAPS = Caps(long_input=0, tag_window=0, sample=3, budget_chars=200_000, min_variants=8,
                  max_deltas=4096)
QUICK_NOTE = ("quick: every scenario and every check, but per scenario only the recorded, "
              "whole, recorded+empty, one-character (texts up to 4096 characters), fixed-size "
              "(2..8), tag-aligned and 2 seeded random chunkings, and split points and "
              "truncation cuts at each tag boundary plus 3 seeded others "
              "(reported as capped variants). `scrubcheck matrix` without --quick runs the "
              "full chunking matrix.")
FULL_NOTE = "full: the whole chunking matrix, as `scrubcheck run` uses it."

Say = Callable[[str], None]


def matrix_settings(base: RunSettings, quick: bool) -> RunSettings:
    if not quick:
        return base
    return replace(base, random_count=2, caps=QUICK_CAPS)


#: what the row of a serving engine's registered parser says of how it ran
ENGINE_QUICK_NOTE = ("run in quick mode, as every registered parser of a serving engine is "
                     "(so that an engine's whole list fits one matrix run): " + QUICK_NOTE)


def row_settings(row: Row, settings: RunSettings) -> RunSettings:
    """The settings a row runs with: the matrix's, and quick for an engine's registered
    parser (its many rows would otherwise take most of a full matrix's time); its row
    says so (`peer_row`)."""
    return matrix_settings(settings, quick=bool(row.engine))


def reference_row() -> Row:
    return Row("reference", "scrubcheck reference scrubber", "streaming scrubber",
               "scrubcheck", __version__, "reference", "ran")


def peer_row(manifest: Manifest) -> Row:
    notes = manifest.all_restrictions() + ([ENGINE_QUICK_NOTE] if manifest.engine else [])
    return Row(manifest.name, manifest.title, manifest.kind, manifest.package.label,
               installed_version(manifest.package),
               f"peer:{manifest.name}", "ran", manifest.model_of, notes,
               engine=manifest.engine)


def scrubber_row(name: str, spec: str) -> Row:
    """A row for a scrubber spec given on the command line (in-process or a peer path)."""
    return Row(name, spec, "scrubber", spec, "", spec, "ran")


def report_row(name: str, path: str, run: RunResult) -> Row:
    """A row read from a report.json another runner wrote (`matrix --add-report NAME=PATH`),
    e.g. scrubcheck-vectors judging a JS scrubber over the exported vectors."""
    checks = run.settings.get("vector_checks", {})
    restrictions = ([f"judged over the vectors by {run.scrubcheck_version}: not run here "
                     f"({', '.join(checks.get('not_run', []))})"] if checks else [])
    return Row(name, run.scrubber, f"{run.scrubber_kind} scrubber", f"report {path}",
               str(run.settings.get("implementation_version", "")), run.scrubber, "ran",
               restrictions=restrictions)


def note_judged_by(row: Row) -> None:
    """Add to a row's restrictions how its run was judged, when natively."""
    native = native_restriction(row.run) if row.run is not None else None
    if native and native not in row.restrictions:
        row.restrictions = [*row.restrictions, native]


def native_restriction(run: RunResult) -> str | None:
    """How a row judged natively was judged, in words (None for a protocol row)."""
    native = run.settings.get("native")
    if not native:
        return None
    checks = run.settings.get("vector_checks", {})
    over = native.get("over_protocol") or []
    return (f"judged natively in Node: js/scrubcheck-vectors drives the package "
            f"({native['runner']} via {native['via']}) over the exported vectors, with the "
            f"harness's per-scenario timeout and crash isolation around it; not judged there: "
            f"{', '.join(checks.get('not_run', [])) or 'nothing'}"
            + (f"; {len(over)} scenario(s) JSON cannot carry exactly ran over the peer "
               f"protocol ({', '.join(over)})" if over else "")
            + "; `scrubcheck run` drives it over the protocol with every check")


def not_run_reason(manifest: Manifest, requested: bool) -> str | None:
    if manifest.listed:  # a registered engine name that is not run, and why
        return manifest.listed
    if read_marker(manifest.package) is not None:
        return None
    if manifest.heavy and not requested:
        return ("heavy peer, not installed: `scrubcheck peers install "
                f"{manifest.name}` then name it to run it")
    return f"not installed: run `scrubcheck peers install {manifest.name}`"


def _reusable(path: Path, settings: RunSettings, digest: str, version: str) -> RunResult | None:
    """The earlier run at `path` if it was made by this scrubcheck and SPEC, on this
    corpus, with these settings and this version of the implementation."""
    try:
        run = RunResult.from_dict(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, TypeError, KeyError):
        return None
    if (run.settings.get("corpus_digest"), run.settings.get("implementation_version"),
            run.spec_version, run.scrubcheck_version) != (digest, version, SPEC_VERSION,
                                                          __version__):
        return None
    wanted = settings.to_dict()
    # a setting the old run did not record (one added to scrubcheck since) had its default
    same = all(run.settings[k] == wanted[k] for k in wanted
               if k in run.settings and k != "jobs")
    return run if same else None


#: Runs the rows that need a run; yields each row with its run, or the AdapterError that
#: kept it from starting, in whatever order they finish (local: one after the other; a Dask
#: cluster: implementations × shards at once, `scrubcheck.distributed`).
RowRunner = Callable[[list[Row]], Iterable[tuple[Row, RunResult | AdapterError]]]


def local_rows(scenarios: list[Scenario], settings: RunSettings, shard: Shard | None,
               progress: bool, say: Say, cache: ResultCache | None = None) -> RowRunner:
    """Each row's run on this machine, one row at a time (each with its own worker pool),
    natively where its manifest offers it (vectors.native); with `cache` (scrubcheck
    regenerate), every result the cache holds for the row is taken from it."""

    def run_rows(rows: list[Row]) -> Iterable[tuple[Row, RunResult | AdapterError]]:
        for index, row in enumerate(rows, 1):
            say(f"[{index}/{len(rows)}] {row.name} ({row.package}) ...")
            try:
                yield row, cached_run(
                    row.spec, scenarios, row_settings(row, settings), cache,
                    native_implementation(row.spec) if cache is not None else None,
                    progress=progress, run=partial(run_row, shard=shard, say=say))
            except AdapterError as exc:
                yield row, exc

    return run_rows


def shard_sentence(shard: Shard) -> str:
    """What the mode note of a shard's matrix adds (and `merge` takes away again)."""
    return (f" Shard {shard}: only the scenarios of this part of the selection "
            "(`scrubcheck merge` the N shards' matrix.json for the whole).")


def run_matrix(
    manifests: list[Manifest],
    requested: set[str],
    scenarios: list[Scenario],
    settings: RunSettings,
    out: Path,
    *,
    quick: bool,
    reuse: bool = False,
    progress: bool = False,
    say: Say = print,
    scrubbers: Sequence[tuple[str, str]] = (),
    selection: str = "",
    shard: Shard | None = None,
    runner: RowRunner | None = None,
    reports: Sequence[tuple[str, str, RunResult]] = (),
    cache: ResultCache | None = None,
    explaining: Explaining | None = None,
) -> Matrix:
    """Run the reference, the chosen peers and the `scrubbers` rows ((name, spec) each);
    write each full report as it finishes. `selection` (words saying which scenarios,
    when not all) is added to the mode note. With `shard`, every row runs only that shard
    of `scenarios`; `runner` runs the rows elsewhere (default: `local_rows`, through
    `cache` when given). With `explaining`, each row's failures within its claim are
    explained as root causes as soon as it has run (matrix.bugs)."""
    started_at = datetime.now(UTC).isoformat(timespec="seconds")
    clock = time.monotonic()
    # what the page says about how it was produced: timings mean little without the
    # machine's size and how busy it was (these runs share machines)
    host = {"cpus": os.cpu_count(), "load_at_start": _load()}
    if shard is not None:
        settings = replace(settings, shard=str(shard))
    # Every row is judged in the generic class: one run answers both how a row fares on
    # the whole SPEC and, through matrix.within_claim, within the class it claims.
    settings = replace(settings, conformance_class="generic")
    digest = corpus_digest(scenarios)
    rows = _rows(manifests, requested, scrubbers)
    todo = _rows_to_run(rows, out, settings, digest, reuse=reuse, say=say)
    for name, path, run in reports:  # rows judged elsewhere (a vectors runner), not run here
        row = report_row(name, path, run)
        rows.insert(1 + len(scrubbers), row)
        keep_run(row, run, out)
        say(f"    {name}: from {path}")
    runner = runner or local_rows(scenarios, settings, shard, progress, say, cache)
    for row, outcome in runner(todo):
        _keep_outcome(row, outcome, out, say)
    if explaining is not None:  # the rows that ran and those reused alike
        by_id = {s.id: s for s in scenarios}
        for row in rows:
            if row.run is not None:
                explain_row(row, by_id, explaining, say)
    note = (QUICK_NOTE if quick else FULL_NOTE) + (f" Selection: {selection}." if selection
                                                   else "")
    if shard is not None:
        note += shard_sentence(shard)
    matrix = Matrix(rows, "quick" if quick else "full", note,
                    started_at, round(time.monotonic() - clock, 1),
                    {**settings.to_dict(), "corpus_digest": digest, "spec_version": SPEC_VERSION,
                     # what `scrubcheck regenerate --check` compares: the code that decided
                     # the results (write_matrix adds the code that wrote the pages)
                     "harness_digest": harness_digest(),
                     "formats_digest": formats_digest(),
                     "host": {**host, "load_at_end": _load()}})
    matrix.index_scenarios()
    return matrix


def _rows(manifests: list[Manifest], requested: set[str],
          scrubbers: Sequence[tuple[str, str]]) -> list[Row]:
    """Every row of the page, in page order: the reference, the `scrubbers` given by
    spec, then every peer, those not asked for or not installed with the reason why."""
    rows = [reference_row(), *(scrubber_row(name, spec) for name, spec in scrubbers)]
    for manifest in manifests:
        row = peer_row(manifest)
        reason = not_run_reason(manifest, manifest.name in requested)
        if reason:
            row.status = reason
        rows.append(row)
    return rows


def _rows_to_run(rows: list[Row], out: Path, settings: RunSettings, digest: str, *,
                 reuse: bool, say: Say) -> list[Row]:
    """The rows that must run now: each row that runs, unless --reuse finds its kept
    report made with the same settings, corpus digest and version (then it is reused)."""
    todo = []
    for index, row in enumerate(rows, 1):
        if row.status != "ran":
            say(f"[{index}/{len(rows)}] {row.name}: {row.status}")
            continue
        report = out / "peers" / row.name / "report.json"
        row.report = str(report.relative_to(out))
        run = (_reusable(report, row_settings(row, settings), digest, row.version)
               if reuse and row.version else None)
        if run is not None:
            say(f"[{index}/{len(rows)}] {row.name}: reusing {report}")
            row.run, row.reused = run, True
            note_judged_by(row)
        else:
            todo.append(row)
    return todo


def _keep_outcome(row: Row, outcome: RunResult | AdapterError, out: Path, say: Say) -> None:
    """Record a finished row: its run and report, or why its scrubber did not start."""
    if isinstance(outcome, AdapterError):
        row.status = f"failed to start: {outcome}"
        row.report = None
        say(f"    {row.name}: {row.status}")
        return
    keep_run(row, outcome, out)
    cache = outcome.settings.get("cache")
    reused = f"{cache['ran']} ran, {cache['reused']} from the cache; " if cache else ""
    say(f"    {row.name}: {reused}{outcome.duration_s:.0f} s: "
        + ", ".join(f"{k} {v}" for k, v in sorted(outcome.counts().items())))
    sys.stdout.flush()


def _load() -> float | None:
    """The one-minute load average, where the system has one."""
    try:
        return round(os.getloadavg()[0], 1)
    except (AttributeError, OSError):
        return None


def keep_run(row: Row, run: RunResult, out: Path) -> None:
    """A row's finished run, its reports written. A peer's run records the version its
    row names (what `--reuse` compares), a Python scrubber's what `run_selection` found."""
    if row.version:
        run.settings["implementation_version"] = row.version
    row.run = run
    note_judged_by(row)
    if row.kind == "scrubber":
        row.kind = f"{run.scrubber_kind} scrubber"
    row.report = str(Path("peers") / row.name / "report.json")
    write_reports(run, out / "peers" / row.name)
