"""run_selection: a run of a selection, or of one shard of it, that says what it was made from.

Every run records in its settings what a later step needs to trust it without
rerunning it (`matrix --reuse`, `scrubcheck merge`):

- `corpus_digest`: the fingerprint of the *whole* selection (before sharding), so
  the N shards of one run agree on it and a shard made from another corpus or
  another `--area` does not;
- `implementation_version`: what was run (a peer's installed version; for a
  Python scrubber its distribution's version and a digest of the module's
  source, so shards built from two different checkouts are told apart);
- `selection`: how many scenarios the whole selection holds and, for a shard,
  the positions of its own scenarios in it, which put the merged results back in
  the unsharded order and prove that N shards cover the selection exactly once.

A shard is run by the same `run_corpus` as a whole run, so per-scenario
isolation, timeouts and crash handling are the same; only the once-per-run
linear-time check is left to shard 1 (`RunSettings.runs_linear_check`).
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import inspect
from dataclasses import replace
from pathlib import Path

from scrubcheck.adapters import Adapter, load_adapter
from scrubcheck.adapters.peer import PeerAdapter
from scrubcheck.adapters.resolve import AdapterError, resolve_target, split_kind
from scrubcheck.corpus.fingerprint import corpus_digest
from scrubcheck.corpus.shard import Shard
from scrubcheck.model import Scenario
from scrubcheck.results import RunResult
from scrubcheck.runner.corpus import run_corpus
from scrubcheck.runner.settings import RunSettings


def run_selection(
    spec: str,
    scenarios: list[Scenario],
    settings: RunSettings,
    *,
    shard: Shard | None = None,
    progress: bool = False,
    corpus_errors: list[str] | None = None,
) -> RunResult:
    """Run `scenarios` (the whole selection) or, with `shard`, its part of them.

    Raises AdapterError when the spec cannot be loaded (as run_corpus does).
    """
    chosen = shard.pick(scenarios) if shard is not None else list(scenarios)
    if shard is not None:
        settings = replace(settings, shard=str(shard))
    result = run_corpus(spec, chosen, settings, progress=progress, corpus_errors=corpus_errors)
    result.settings.update(
        corpus_digest=corpus_digest(scenarios),
        implementation_version=implementation_version(load_adapter(spec)),
        selection={"scenarios": len(scenarios),
                   "positions": shard.positions(scenarios) if shard is not None else None},
    )
    return result


def implementation_version(adapter: Adapter) -> str:
    """What ran, as precisely as can be told: `hermes-agent 0.19.0` for a peer, e.g.
    `scrubcheck 0.1.0; source 3f2a…` for a Python scrubber, `source 3f2a…` for a file."""
    if isinstance(adapter, PeerAdapter) and adapter.installed_version is not None:
        # a peer: the version its environment really holds
        manifest = adapter.manifest
        return f"{manifest.package.name or manifest.name} {adapter.installed_version}".strip()
    _, target = split_kind(adapter.spec)
    try:
        obj = resolve_target(target)
        if not callable(obj):  # what inspect cannot place (nor can a scrubber be)
            raise TypeError(type(obj).__name__)
        module = inspect.getmodule(obj)
        source = inspect.getsourcefile(obj)
    except (AdapterError, TypeError, OSError):
        return ""
    parts = []
    top = (module.__name__ if module else "").split(".")[0]
    for dist in importlib.metadata.packages_distributions().get(top, [])[:1]:
        parts.append(f"{dist} {importlib.metadata.version(dist)}")
    if source and Path(source).is_file():
        parts.append("source " + hashlib.sha256(Path(source).read_bytes()).hexdigest()[:12])
    return "; ".join(parts)
