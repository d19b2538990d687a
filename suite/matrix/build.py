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

import hashlib
import json
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

from scrubcheck import __version__
from scrubcheck.adapters import AdapterError
from scrubcheck.chunking import Caps
from scrubcheck.matrix.model import Matrix, Row
from scrubcheck.model import Scenario
from scrubcheck.peers import Manifest, read_marker
from scrubcheck.reports import write_reports
from scrubcheck.results import RunResult
from scrubcheck.runner import RunSettings, run_corpus
from scrubcheck.spec import SPEC_VERSION

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


def reference_row() -> Row:
    return Row("reference", "scrubcheck reference scrubber", "streaming scrubber",
               "scrubcheck", __version__, "reference", "ran")


def peer_row(manifest: Manifest) -> Row:
    record = read_marker(manifest.package)
    version = (record.version if record else "") or manifest.package.version
    return Row(manifest.name, manifest.title, manifest.kind, manifest.package.label, version,
               f"peer:{manifest.name}", "ran", manifest.model_of, manifest.all_restrictions())


def scrubber_row(name: str, spec: str) -> Row:
    """A row for a scrubber spec given on the command line (in-process or a peer path)."""
    return Row(name, spec, "scrubber", spec, "", spec, "ran")


def not_run_reason(manifest: Manifest, requested: bool) -> str | None:
    if read_marker(manifest.package) is not None:
        return None
    if manifest.heavy and not requested:
        return ("heavy peer, not installed: `scrubcheck peers install "
                f"{manifest.name}` then name it to run it")
    return f"not installed: run `scrubcheck peers install {manifest.name}`"


def corpus_digest(scenarios: list[Scenario]) -> str:
    """A fingerprint of what the scenarios ask (not where they sit), so a run made on
    another corpus is never reused."""
    digest = hashlib.sha256()
    for s in scenarios:
        digest.update(json.dumps([s.id, s.rules, s.deltas, s.reasoning, s.visible, s.acceptable,
                                  s.context.as_kwargs()], default=list).encode())
    return digest.hexdigest()[:16]


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
) -> Matrix:
    """Run the reference, the chosen peers and the `scrubbers` rows ((name, spec) each);
    write each full report as it finishes. `selection` (words saying which scenarios,
    when not all) is added to the mode note."""
    started_at = datetime.now(UTC).isoformat(timespec="seconds")
    clock = time.monotonic()
    rows = [reference_row(), *(scrubber_row(name, spec) for name, spec in scrubbers)]
    digest = corpus_digest(scenarios)
    for manifest in manifests:
        row = peer_row(manifest)
        reason = not_run_reason(manifest, manifest.name in requested)
        if reason:
            row.status = reason
        rows.append(row)
    for index, row in enumerate(rows, 1):
        if row.status != "ran":
            say(f"[{index}/{len(rows)}] {row.name}: {row.status}")
            continue
        folder = out / "peers" / row.name
        report = folder / "report.json"
        row.report = str(report.relative_to(out))
        run = _reusable(report, settings, digest, row.version) if reuse and row.version \
            else None
        if run is not None:
            say(f"[{index}/{len(rows)}] {row.name}: reusing {report}")
            row.run, row.reused = run, True
            continue
        say(f"[{index}/{len(rows)}] {row.name} ({row.package}) ...")
        begun = time.monotonic()
        try:
            row.run = run_corpus(row.spec, scenarios, settings, progress=progress)
        except AdapterError as exc:
            row.status = f"failed to start: {exc}"
            row.report = None
            say(f"    {row.status}")
            continue
        row.run.settings.update(corpus_digest=digest, implementation_version=row.version)
        if row.kind == "scrubber":
            row.kind = f"{row.run.scrubber_kind} scrubber"
        write_reports(row.run, folder)
        counts = row.run.counts()
        say(f"    {time.monotonic() - begun:.0f} s: "
            + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
        sys.stdout.flush()
    note = (QUICK_NOTE if quick else FULL_NOTE) + (f" Selection: {selection}." if selection
                                                   else "")
    matrix = Matrix(rows, "quick" if quick else "full", note,
                    started_at, round(time.monotonic() - clock, 1), settings.to_dict())
    matrix.index_scenarios()
    return matrix
