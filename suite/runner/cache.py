"""A cache of scenario results, so that a run reruns only what changed.

Regenerating the committed reports means running 36 implementations over the
whole corpus: an hour. Most of that work repeats the last regeneration: a
scenario's result is decided by the scenario, the implementation, the run's
settings and the harness, and a new scenario changes none of these for the
others. So each result is kept under

    <user cache>/results/v1/<harness digest>/<row key digest>.json

where the row key names the implementation (its spec and a digest of its code or
its installed version), the settings every scenario of the row shares (seed,
timeouts, chunking caps, conformance class, level, ... everything but `jobs`), and
the file holds, per scenario, the result that scenario got, under the scenario's
digest and the digests of the format files its vocabulary reads
(`harness.formats_read`: a new or edited format reruns the scenarios that read it,
not the corpus). `cached_run` looks up every scenario, runs only the missing ones
through `run_selection` (the same worker pool, timeouts and crash isolation as any
run) and returns the RunResult an uncached run would have returned, timings apart.

What is never cached, because it would freeze something that is not the code's
answer: TIMEOUT results (they depend on how busy the machine was), results of an
interrupted run (SKIPPED), and rows whose implementation cannot be digested (an
in-process scrubber whose source cannot be placed). The once-per-run linear-time
check is cached with the row when it passes (a FAIL is a ratio of times a busy
machine can produce, so it is measured again): it depends on the implementation, the
settings and the registry (its sample stream has a section in each enabled format),
not on the corpus; so is what the implementation says of itself (its kind and
features), which a format added to the registry may change. A result taken from the
cache gets the scenario's current file, line and description (moving a scenario
changes nothing a run found, but a report must point at where it is now).

The cache is safe to delete at any time (`rm -rf`, or `--no-cache`); a folder for
an older harness digest is never read again, and only the few most recently used
are kept.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from scrubcheck import __version__
from scrubcheck.cachedir import cache_dir
from scrubcheck.corpus.fingerprint import corpus_digest
from scrubcheck.model import Scenario
from scrubcheck.results import Outcome, RunResult, ScenarioResult, result_from_dict
from scrubcheck.runner.harness import (
    base_format,
    format_digests,
    formats_digest,
    formats_read,
    harness_digest,
    read_digest,
)
from scrubcheck.runner.settings import RunSettings
from scrubcheck.runner.shard import run_selection
from scrubcheck.spec import SPEC_VERSION
from scrubcheck.vocabulary import GENERIC

FORMAT = "v1"
#: harness folders kept (the most recently used): enough to switch between a few branches
KEEP_HARNESSES = 4
#: settings that describe the machine a run used, not what it asked of the scrubber
MACHINE_SETTINGS = frozenset({"jobs", "shard"})
#: outcomes that say how the machine fared, not what the code does
NOT_CACHED = frozenset({Outcome.TIMEOUT, Outcome.SKIPPED})
#: ... and for the once-per-row linear-time check, a FAIL too: it is a ratio of times, and
#: a machine busy with other work can only make a ratio worse, so a PASS may be kept but
#: a FAIL is measured again by the next run (a truly superlinear scrubber fails it again,
#: and its measurement stops early, at 32x)
NOT_CACHED_CHECK = NOT_CACHED | {Outcome.FAIL}


def scenario_digest(scenario: Scenario) -> str:
    """What a scenario asks of a scrubber, as the corpus digest counts it (its id, rules,
    deltas, reasoning, expected output and context), for this one scenario."""
    return corpus_digest([scenario])


@dataclass(frozen=True)
class Registry:
    """The formats in force, digested once per run: each format's digest, the registry's,
    and the default family's format (every result's key reads them)."""

    digests: dict[str, str]
    digest: str
    base: str

    @classmethod
    def now(cls) -> Registry:
        digests = format_digests()
        return cls(digests, formats_digest(digests), base_format())


def result_key(scenario: Scenario, judged_class: str | None,
               registry: Registry | None = None) -> str:
    """What a cached result is kept under: the scenario's digest and the digests of the
    formats its result reads, judged in `judged_class` (the run's class; a scenario's own
    context may name one)."""
    registry = registry or Registry.now()
    own = scenario.context.conformance_class
    names = formats_read(scenario.context.features, own if own != GENERIC else judged_class,
                         registry.base)
    digest = read_digest(names, registry.digests, registry.digest)
    return f"{scenario_digest(scenario)}:{digest}"


def key_digest(key: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(key, sort_keys=True, default=str).encode()
                          ).hexdigest()[:20]


@dataclass
class CachedRow:
    """What the cache holds for one row key: the implementation's description (kind,
    features, context), its once-per-run checks, and each scenario digest's result."""

    path: Path
    key: dict[str, Any]
    meta: dict[str, Any] | None = None
    scrubber_checks: list[dict[str, Any]] | None = None
    results: dict[str, dict[str, Any]] = field(default_factory=dict)

    @classmethod
    def load(cls, path: Path, key: dict[str, Any]) -> CachedRow:
        """The row at `path`; an unreadable or foreign file counts as empty (a cache is
        never an error: at worst it costs a rerun)."""
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            if data.get("key") != json.loads(json.dumps(key, default=str)):
                return cls(path, key)
            return cls(path, key, data.get("meta"), data.get("scrubber_checks"),
                       dict(data.get("results", {})))
        except (OSError, ValueError, AttributeError, TypeError):
            return cls(path, key)

    def save(self) -> None:
        """Written to a temporary file and renamed: a reader never sees half a row."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        text = json.dumps({"key": self.key, "meta": self.meta,
                           "scrubber_checks": self.scrubber_checks, "results": self.results},
                          default=str, ensure_ascii=True)
        handle, name = tempfile.mkstemp(dir=self.path.parent, suffix=".tmp")
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(name, self.path)


class ResultCache:
    """The results folder for one harness digest (`extra`: the parts beyond the judging
    code that decide these results, e.g. the gateway package for audits)."""

    def __init__(self, root: Path | None = None, *, extra: tuple[str, ...] = ()) -> None:
        self.root = root or cache_dir()  # the user cache folder (gateway answers live there too)
        self.base = self.root / "results" / FORMAT
        self.harness = harness_digest(extra)
        self.folder = self.base / self.harness
        self.reused = 0
        self.ran = 0

    def row(self, key: dict[str, Any]) -> CachedRow:
        return CachedRow.load(self.folder / f"{key_digest(key)}.json", key)

    def save(self, row: CachedRow) -> None:
        row.save()
        os.utime(self.folder)
        self._prune()

    def _prune(self) -> None:
        """Keep the KEEP_HARNESSES most recently used harness folders."""
        folders = sorted((p for p in self.base.iterdir() if p.is_dir()),
                         key=lambda p: p.stat().st_mtime, reverse=True)
        for old in folders[KEEP_HARNESSES:]:
            if old != self.folder:
                shutil.rmtree(old, ignore_errors=True)


def row_key(spec: str, implementation: str, settings: RunSettings) -> dict[str, Any]:
    """What every result of one row shares: the implementation and the settings."""
    shared = {k: v for k, v in settings.to_dict().items() if k not in MACHINE_SETTINGS}
    return {"spec": spec, "implementation": implementation, "settings": shared}


def cached_run(spec: str, scenarios: list[Scenario], settings: RunSettings,
               cache: ResultCache | None, implementation: str | None, *,
               progress: bool = False, corpus_errors: list[str] | None = None,
               run: Callable[..., RunResult] | None = None) -> RunResult:
    """`run(spec, scenarios, settings)` (run_selection, or a layer above's way to run a
    row, e.g. natively), with every result the cache holds for this implementation,
    settings and harness taken from it instead of run. Without a cache or an
    implementation digest, a plain run. Raises AdapterError as run_selection does (when
    anything must run)."""
    run = run or run_selection
    if cache is None or implementation is None or settings.shard is not None:
        return run(spec, scenarios, settings, progress=progress, corpus_errors=corpus_errors)
    row = cache.row(row_key(spec, implementation, settings))
    formats = Registry.now()
    registry = formats.digest
    keys = {s.id: result_key(s, settings.conformance_class, formats) for s in scenarios}
    missing = [s for s in scenarios if keys[s.id] not in row.results]
    # what is kept of the implementation itself (its features, the linear check) was
    # measured under the registry in force then
    current = row.meta is not None and row.meta.get("formats") == registry
    if not current:
        row.scrubber_checks = None
    checks_missing = settings.runs_linear_check and row.scrubber_checks is None
    fresh: RunResult | None = None
    if missing or checks_missing or not current:
        fresh = run(spec, missing, replace(settings, linear_check=checks_missing),
                    progress=progress, corpus_errors=corpus_errors)
        _remember(row, fresh, {s.id: keys[s.id] for s in missing}, checks_missing,
                  whole=len(missing) == len(scenarios), registry=registry)
        cache.save(row)
    ran = {r.scenario_id: r for r in fresh.results} if fresh else {}
    results = [ran[s.id] if s.id in ran else _restored(row.results[keys[s.id]], s)
               for s in scenarios]
    cache.ran += len(ran)
    cache.reused += len(results) - len(ran)
    return _assembled(spec, scenarios, settings, row, fresh, results, len(results) - len(ran),
                      corpus_errors, registry)


#: what a run's settings say about how it was judged (a native runner, its checks), kept
#: so that a run assembled from the cache says it too
JUDGED_BY = ("native", "vector_checks")


def _remember(row: CachedRow, fresh: RunResult, missing: dict[str, str],
              checks_missing: bool, *, whole: bool, registry: str) -> None:
    """Keep what `fresh` found that may be trusted again (see the module's docstring),
    each result under its key (`missing`: scenario id -> `result_key`), and the registry
    it was judged under; when it ran the whole selection, its wall time, which a run
    assembled from the cache later reports as the time of the last full run (its own is
    only what was left)."""
    if fresh.interrupted:
        return
    last_full = (row.meta or {}).get("last_full_run")
    if whole and missing:
        last_full = {"duration_s": fresh.duration_s, "scenarios": len(missing),
                     "started_at": fresh.started_at}
    for result in fresh.results:
        key = missing.get(result.scenario_id)
        if key is not None and result.outcome not in NOT_CACHED:
            row.results[key] = _as_dict(fresh, result)
    row.meta = {"scrubber_kind": fresh.scrubber_kind,
                "supported_features": fresh.supported_features,
                "accepted_context": fresh.accepted_context,
                "implementation_version": fresh.settings.get("implementation_version", ""),
                "conformance_class": fresh.settings.get("conformance_class"),
                "judged_by": {k: fresh.settings[k] for k in JUDGED_BY if k in fresh.settings},
                "last_full_run": last_full, "formats": registry}
    if checks_missing and not any(c.outcome in NOT_CACHED_CHECK for c in fresh.scrubber_checks):
        row.scrubber_checks = [_as_dict(fresh, c) for c in fresh.scrubber_checks]


def _as_dict(run: RunResult, result: ScenarioResult) -> dict[str, Any]:
    """One result as report.json writes it (RunResult.to_dict's own form)."""
    one = replace(run, results=[result], scrubber_checks=[])
    return dict(one.to_dict()["results"][0])


def _restored(raw: dict[str, Any], scenario: Scenario) -> ScenarioResult:
    result = result_from_dict(raw)
    result.area, result.file, result.line = scenario.area, scenario.file, scenario.line
    result.description = scenario.description
    return result


def _assembled(spec: str, scenarios: list[Scenario], settings: RunSettings, row: CachedRow,
               fresh: RunResult | None, results: list[ScenarioResult], reused: int,
               corpus_errors: list[str] | None, registry: str) -> RunResult:
    """The RunResult an uncached run over `scenarios` would have made, but for its timing
    and `settings.cache`: how many results were reused, how many ran, under which harness
    digest (a report says how it was made). Its duration is this run's own."""
    meta = row.meta or {}
    recorded = settings.to_dict()
    recorded["conformance_class"] = meta.get("conformance_class", settings.conformance_class)
    recorded.update(corpus_digest=corpus_digest(scenarios),
                    implementation_version=meta.get("implementation_version", ""),
                    selection={"scenarios": len(scenarios), "positions": None},
                    cache={"harness": harness_digest(), "formats": registry,
                           "reused": reused,
                           "ran": len(results) - reused,
                           "last_full_run": meta.get("last_full_run")})
    recorded.update(meta.get("judged_by") or {})
    if not settings.runs_linear_check:
        checks: list[ScenarioResult] = []
    elif row.scrubber_checks is not None:
        checks = [result_from_dict(c) for c in row.scrubber_checks]
    else:  # measured now but not kept (a TIMEOUT): this run's answer
        checks = list(fresh.scrubber_checks) if fresh else []
    return RunResult(
        scrubber=spec, scrubber_kind=meta["scrubber_kind"],
        supported_features=list(meta["supported_features"]),
        accepted_context=list(meta["accepted_context"]),
        spec_version=SPEC_VERSION, scrubcheck_version=__version__,
        started_at=fresh.started_at if fresh else datetime.now(UTC).isoformat(
            timespec="seconds"),
        duration_s=fresh.duration_s if fresh else 0.0,
        settings=recorded, results=results, corpus_errors=list(corpus_errors or []),
        scrubber_checks=checks, interrupted=bool(fresh and fresh.interrupted))
