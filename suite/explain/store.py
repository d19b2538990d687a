"""Explanations kept between runs, keyed as results are.

Shrinking costs about as much as the run it explains. Most of it repeats the last
explanation: a failure's smallest stream and signature are decided by the scenario,
the implementation, the harness that judged it, the failures the run found and the
explanation's own code. So each scenario's explained failures are kept under

    <user cache>/explanations/v1/<key digest>.json

where the key names the implementation (its spec and the digest of its code or its
installed version: `runner.harness.implementation_digest`), the harness digest, the
digest of `scrubcheck.explain` itself, the seed, the class judged and the time a
shrink may take; and within the file, each entry is kept under the scenario's result
key (`runner.cache.result_key`: its digest and the formats it reads) and the failures
the run reported for it (check, rule and stream label). An implementation that cannot
be digested is never cached. Shrinks stopped by their time limit are not kept (a quiet
machine may finish them). The cache is safe to delete at any time.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from dataclasses import asdict
from functools import cache
from pathlib import Path
from typing import Any

from scrubcheck.cachedir import cache_dir
from scrubcheck.explain.difference import Did
from scrubcheck.explain.failure import Explained
from scrubcheck.explain.signature import Signature
from scrubcheck.model import Context, Scenario
from scrubcheck.results import ScenarioResult
from scrubcheck.runner.cache import result_key
from scrubcheck.runner.harness import files_digest, harness_digest, implementation_digest
from scrubcheck.vocabulary import custom_delimiters

FORMAT = "v1"


@cache
def code_digest() -> str:
    """The digest of the explanation's own code (this package)."""
    root = Path(__file__).resolve().parent
    return files_digest(root.rglob("*.py"), root)


def entry_key(scenario: Scenario, result: ScenarioResult, judged_class: str | None) -> str:
    """What one scenario's explanation is kept under: its result key and its failures."""
    failures = sorted((f.check, f.rule, f.chunking) for f in result.failures)
    seen = json.dumps([result.outcome.value, result.reason or "", failures])
    return f"{result_key(scenario, judged_class)}:{hashlib.sha256(seen.encode()).hexdigest()[:16]}"


def _as_dict(item: Explained) -> dict[str, Any]:
    data = asdict(item)
    data["signature"] = {**asdict(item.signature), "did": item.signature.did.name}
    data["context"] = dict(item.context.as_kwargs())
    data["deltas"] = list(item.deltas)
    return data


def _from_dict(raw: dict[str, Any]) -> Explained:
    sig = raw["signature"]
    signature = Signature(Did[sig["did"]], piece=sig["piece"], family=sig["family"],
                          case=sig["case"], boundary=sig["boundary"],
                          needs=tuple(sig["needs"]), context=tuple(sig["context"]))
    context = dict(raw["context"])
    context["features"] = tuple(context.get("features") or ())
    context["delimiters"] = custom_delimiters(context.get("delimiters"))
    fields = {**raw, "signature": signature, "context": Context(**context),
              "deltas": tuple(raw["deltas"])}
    return Explained(**fields)


class Store:
    """One implementation's explanations under one harness, read once and written once."""

    def __init__(self, spec: str, seed: int, judged_class: str | None, seconds: float,
                 root: Path | None = None) -> None:
        implementation = implementation_digest(spec)
        self.enabled = implementation is not None
        key = json.dumps([FORMAT, spec, implementation, harness_digest(), code_digest(),
                          seed, judged_class, seconds])
        name = hashlib.sha256(key.encode()).hexdigest()[:20]
        self.path = (root or cache_dir() / "explanations" / FORMAT) / f"{name}.json"
        self.entries: dict[str, list[dict[str, Any]]] = {}
        self.changed = False
        if self.enabled:
            try:
                self.entries = json.loads(self.path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                self.entries = {}

    def get(self, key: str) -> list[Explained] | None:
        raw = self.entries.get(key) if self.enabled else None
        if raw is None:
            return None
        try:
            return [_from_dict(item) for item in raw]
        except (KeyError, TypeError, ValueError):  # a file of another shape: explain again
            return None

    def put(self, key: str, items: list[Explained]) -> None:
        if self.enabled and all(item.complete or item.label in ("ERROR", "TIMEOUT")
                                for item in items):
            self.entries[key] = [_as_dict(item) for item in items]
            self.changed = True

    def save(self) -> None:
        if not (self.enabled and self.changed):
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=self.path.parent, suffix=".tmp")
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            json.dump(self.entries, out)  # ASCII: streams may hold lone surrogates
        os.replace(temporary, self.path)
