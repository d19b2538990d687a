"""merge_shards: N shard runs (`--shard K/N`) back into the one run they are parts of.

The merged RunResult is what an unsharded run over the same selection returns:
the same results in the same (corpus) order, the linear-time check from shard 1,
so every report writer renders it unchanged. Merging refuses (MergeError, a
usage error) rather than guess whenever the shards might not be parts of one run:

- a report that is not a shard, shards of different N, a shard given twice or
  missing;
- any disagreement in what was run and how: scrubber, SPEC, scrubcheck and
  implementation versions, corpus digest, seed, level, timeouts, chunking caps,
  memory limit, corpus errors... (every recorded setting except the ones that
  describe one machine: `jobs`, `shard` and the shard's own positions);
- a scenario in two shards, or positions that do not cover the selection
  exactly once (a shard made with another `--area`, say, or edited by hand).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta

from scrubcheck.corpus.shard import Shard
from scrubcheck.results import RunResult, ScenarioResult

#: Settings that may differ between the shards of one run: they describe one job.
PER_SHARD_SETTINGS = frozenset({"jobs", "shard", "selection", "merged_from"})
#: Top-level fields that must agree, besides the settings.
AGREEING_FIELDS = ("scrubber", "scrubber_kind", "supported_features", "accepted_context",
                   "spec_version", "scrubcheck_version", "corpus_errors")
#: Settings without which shards cannot be shown to be parts of one run.
REQUIRED_SETTINGS = ("corpus_digest", "implementation_version", "selection")


class MergeError(ValueError):
    """The reports are not the shards of one run; the message says which and why."""


def merge_shards(shards: Sequence[tuple[str, RunResult]]) -> RunResult:
    """One RunResult from `(label, shard run)` pairs (labels name them in errors: paths)."""
    if not shards:
        raise MergeError("no shard reports given")
    parsed = [(label, run, _shard_of(label, run)) for label, run in shards]
    _check_complete(parsed)
    parsed.sort(key=lambda item: item[2].index)
    _check_agreement(parsed)
    results = _ordered_results(parsed)
    first = parsed[0][1]
    checks = [check for _, run, _ in parsed for check in run.scrubber_checks]
    owners = [str(shard) for _, run, shard in parsed if run.scrubber_checks]
    if len(owners) > 1:
        raise MergeError(f"the once-per-run checks appear in shards {', '.join(owners)}; "
                         "only shard 1 runs them")
    settings = {**first.settings, "shard": None,
                "selection": {**first.settings["selection"], "positions": None},
                "merged_from": [_describe(label, run, shard) for label, run, shard in parsed]}
    started, duration = _span(run for _, run, _ in parsed)
    return RunResult(
        scrubber=first.scrubber, scrubber_kind=first.scrubber_kind,
        supported_features=list(first.supported_features),
        accepted_context=list(first.accepted_context), spec_version=first.spec_version,
        scrubcheck_version=first.scrubcheck_version, started_at=started, duration_s=duration,
        settings=settings, results=results, corpus_errors=list(first.corpus_errors),
        scrubber_checks=checks, interrupted=any(run.interrupted for _, run, _ in parsed),
    )


def _shard_of(label: str, run: RunResult) -> Shard:
    text = run.settings.get("shard")
    if not text:
        raise MergeError(f"{label}: not a shard (made without --shard K/N), nothing to merge")
    try:
        shard = Shard.parse(str(text))
    except ValueError as exc:
        raise MergeError(f"{label}: {exc}") from None
    missing = [key for key in REQUIRED_SETTINGS if key not in run.settings]
    if missing:
        raise MergeError(f"{label}: records no {', '.join(missing)} (made by an older "
                         "scrubcheck?), so it cannot be shown to be a part of the same run")
    return shard


def _check_complete(parsed: list[tuple[str, RunResult, Shard]]) -> None:
    counts = {shard.count for _, _, shard in parsed}
    if len(counts) > 1:
        listed = ", ".join(f"{label} ({shard})" for label, _, shard in parsed)
        raise MergeError(f"the reports are shards of different splits: {listed}")
    count = counts.pop()
    seen: dict[int, str] = {}
    for label, _, shard in parsed:
        if shard.index in seen:
            raise MergeError(f"shard {shard} given twice: {seen[shard.index]} and {label}")
        seen[shard.index] = label
    missing = [f"{k}/{count}" for k in range(1, count + 1) if k not in seen]
    if missing:
        raise MergeError(f"shard{'s' if len(missing) > 1 else ''} {', '.join(missing)} "
                         f"missing: {len(seen)} of {count} given")


def _check_agreement(parsed: list[tuple[str, RunResult, Shard]]) -> None:
    first_label, first, first_shard = parsed[0]
    for label, run, shard in parsed[1:]:
        for name in AGREEING_FIELDS:
            if getattr(run, name) != getattr(first, name):
                raise MergeError(_differ(name, first_label, first_shard, getattr(first, name),
                                         label, shard, getattr(run, name)))
        keys = (set(first.settings) | set(run.settings)) - PER_SHARD_SETTINGS
        for key in sorted(keys):
            if run.settings.get(key) != first.settings.get(key):
                raise MergeError(_differ(f"setting {key}", first_label, first_shard,
                                         first.settings.get(key), label, shard,
                                         run.settings.get(key)))
        total, other = first.settings["selection"], run.settings["selection"]
        if total.get("scenarios") != other.get("scenarios"):
            raise MergeError(_differ("selection size", first_label, first_shard,
                                     total.get("scenarios"), label, shard,
                                     other.get("scenarios")))


def _differ(what: str, label_a: str, shard_a: Shard, a: object, label_b: str, shard_b: Shard,
            b: object) -> str:
    return (f"the shards disagree on {what}: {shard_a} ({label_a}) has {_short(a)}, "
            f"{shard_b} ({label_b}) has {_short(b)}; they are not parts of one run")


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 120 else text[:117] + "..."


def _ordered_results(parsed: list[tuple[str, RunResult, Shard]]) -> list[ScenarioResult]:
    total = parsed[0][1].settings["selection"].get("scenarios")
    if not isinstance(total, int):
        raise MergeError(f"{parsed[0][0]}: its selection size is not recorded")
    placed: list[ScenarioResult | None] = [None] * total
    where: dict[str, str] = {}
    for label, run, shard in parsed:
        positions = run.settings["selection"].get("positions")
        if not isinstance(positions, list) or len(positions) != len(run.results):
            raise MergeError(f"{label}: shard {shard} records positions for "
                             f"{len(positions) if isinstance(positions, list) else 'no'} "
                             f"scenarios but holds {len(run.results)} results")
        for position, result in zip(positions, run.results, strict=True):
            if result.scenario_id in where:
                raise MergeError(f"scenario {result.scenario_id} appears twice: in "
                                 f"{where[result.scenario_id]} and in {label} (shard {shard})")
            where[result.scenario_id] = f"{label} (shard {shard})"
            if not isinstance(position, int) or not 0 <= position < total \
                    or placed[position] is not None:
                raise MergeError(f"{label}: shard {shard} puts {result.scenario_id} at "
                                 f"position {position!r}, which is outside the selection of "
                                 f"{total} or taken")
            placed[position] = result
    gaps = [i for i, r in enumerate(placed) if r is None]
    if gaps:
        raise MergeError(f"the shards hold {total - len(gaps)} of the {total} selected "
                         f"scenarios; positions {gaps[:10]} are in no shard")
    return [r for r in placed if r is not None]


def _describe(label: str, run: RunResult, shard: Shard) -> dict:
    return {"shard": str(shard), "report": label, "scenarios": len(run.results),
            "jobs": run.settings.get("jobs"), "started_at": run.started_at,
            "duration_s": run.duration_s}


def _span(runs: Iterable[RunResult]) -> tuple[str, float]:
    """When the first shard started, and seconds until the last one ended (the wall-clock
    cost of the whole run however the shards were spread)."""
    spans = []
    for run in runs:
        try:
            begun = datetime.fromisoformat(run.started_at)
        except ValueError:
            continue
        spans.append((begun, begun + timedelta(seconds=run.duration_s), run.started_at))
    if not spans:
        return "", 0.0
    start = min(spans)
    end = max(s[1] for s in spans)
    return start[2], round((end - start[0]).total_seconds(), 3)
