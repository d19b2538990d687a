"""A whole vector set: the manifest and one vector per line, written byte for byte alike.

The same SPEC version, corpus digest and seed give the same bytes (no clock, no
host, no scrubcheck version in the files; keys in a fixed order), so a
consumer's CI can pin a set by its digest and a change of the set always means
a change of what is judged. Scenarios whose strings JSON cannot carry exactly
(two lone surrogate halves that a JSON reader joins into one character) are
left out, counted in the manifest and printed by `scrubcheck export`.

A set is written for one conformance class (SPEC section 12; generic unless asked):
each vector names every class that judges it (`classes`), so one generic set tells a
consumer what a claim covers, and a set exported for a class holds that class's reading
of each scenario within it (its context names the class, its expectation is the class's)
and lists the scenarios beyond it in the manifest (`beyond`, with why), never dropping
them silently, as `run --claim` shows them as BEYOND CLAIM.
"""

from __future__ import annotations

import gzip
import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from scrubcheck.checks.reasoning_windows import WINDOW
from scrubcheck.checks.reuse import POISONS
from scrubcheck.chunking import Caps
from scrubcheck.claims import check_class, classes_within, place
from scrubcheck.corpus.fingerprint import corpus_digest
from scrubcheck.model import Scenario
from scrubcheck.spec import RULES, SPEC_VERSION
from scrubcheck.vectors.checks import DATA_CHECKS, HARNESS_CHECKS
from scrubcheck.vectors.encode import encode_scenario, vocabulary_key, vocabulary_tags
from scrubcheck.vocabulary import GENERIC

FORMAT_VERSION = 1
MANIFEST_SCHEMA_ID = "urn:scrubcheck:vectors-manifest:1"
VECTOR_SCHEMA_ID = "urn:scrubcheck:vector:1"
SCHEMA_FILES = ("manifest.schema.json", "vector.schema.json")
MANIFEST = "manifest.json"
VECTORS = "vectors.jsonl"
#: the rules a consumer's failures may name, with their level (report.json needs it)
REPORTED_RULES = ("R-ROBUST-1", "R-LEAK-1", "R-TRUNC-1", "R-SKIP-2", "R-TAG-1", "R-FID-1",
                  "R-WS-1", "R-CHUNK-1", "R-IDEM-1", "R-REUSE-1")


@dataclass
class VectorSet:
    manifest: dict[str, Any]
    lines: list[str]  # one JSON text per vector, without the newline
    left_out: list[tuple[str, str]] = field(default_factory=list)  # (scenario id, why)
    #: the scenarios beyond the class: what a consumer's BEYOND CLAIM row needs, and why
    beyond: list[dict[str, Any]] = field(default_factory=list)


def dumps(value: Any) -> str:
    """Compact JSON with sorted keys (the one spelling every file of a set uses)."""
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"),
                      allow_nan=False)


def _portable(vector: dict[str, Any]) -> bool:
    """Whether JSON gives every string of the vector back exactly."""
    text = dumps(vector).encode("utf-8", "backslashreplace").decode("utf-8")
    return json.loads(text) == vector


def build_vector_set(
    scenarios: Iterable[Scenario],
    *,
    seed: int = 0,
    random_count: int = 8,
    caps: Caps | None = None,
    selection: dict[str, list[str]] | None = None,
    conformance_class: str = GENERIC,
) -> VectorSet:
    """Every scenario of the selection as a vector, as `conformance_class` judges it, and
    the manifest that describes them (UnknownClass for a class no format has)."""
    caps = caps or Caps()
    check_class(conformance_class)
    chosen = list(scenarios)
    lines: list[str] = []
    left_out: list[tuple[str, str]] = []
    beyond: list[dict[str, Any]] = []
    vocabularies: dict[str, list[str]] = {}
    for original in chosen:
        placement = place(original, conformance_class)
        if placement.scenario is None:
            beyond.append({"id": original.id, "area": original.area, "rules": list(original.rules),
                           "file": original.file, "line": original.line,
                           "description": original.description,
                           "reason": placement.beyond or "beyond the class"})
            continue
        scenario = placement.scenario
        vector = encode_scenario(scenario, seed, random_count, caps)
        vector["classes"] = list(classes_within(original))
        if not _portable(vector):
            left_out.append((scenario.id, "a string JSON cannot carry exactly (lone "
                             "surrogate halves that a JSON reader joins into one character)"))
            continue
        vocabulary = scenario.context.vocabulary()
        vocabularies.setdefault(vocabulary_key(vocabulary), vocabulary_tags(vocabulary))
        lines.append(dumps(vector))
    manifest: dict[str, Any] = {
        "$schema": MANIFEST_SCHEMA_ID,
        "format_version": FORMAT_VERSION,
        "spec_version": SPEC_VERSION,
        "corpus_digest": corpus_digest(chosen),
        "class": conformance_class,
        "beyond": beyond,
        "seed": seed,
        "random_chunkings": random_count,
        "selection": selection or {},
        "count": len(lines),
        "left_out": [{"id": i, "reason": why} for i, why in left_out],
        "checks": {"data": dict(DATA_CHECKS), "harness": dict(HARNESS_CHECKS)},
        "levels": {rule: RULES[rule].level for rule in REPORTED_RULES},
        "vocabularies": dict(sorted(vocabularies.items())),
        "poisons": {name: text for name, (text, _) in POISONS.items()},
        "window": WINDOW,
    }
    body = "".join(line + "\n" for line in lines).encode("utf-8", "backslashreplace")
    manifest["files"] = {VECTORS: {"bytes": len(body), "sha256": hashlib.sha256(body).hexdigest(),
                                   "gzip_bytes": len(_gzip(body))}}
    return VectorSet(manifest, lines, left_out, beyond)


def _gzip(data: bytes) -> bytes:
    # mtime=0 and no file name: the compressed bytes depend on the content alone
    return gzip.compress(data, compresslevel=9, mtime=0)


def write_vector_set(vector_set: VectorSet, out: Path) -> list[Path]:
    """manifest.json, vectors.jsonl, vectors.jsonl.gz and both schemas in `out`."""
    out.mkdir(parents=True, exist_ok=True)
    body = "".join(line + "\n" for line in vector_set.lines).encode("utf-8", "backslashreplace")
    written = []
    for name, data in (
        (VECTORS, body),
        (VECTORS + ".gz", _gzip(body)),
        (MANIFEST, (json.dumps(vector_set.manifest, ensure_ascii=False, sort_keys=True,
                               indent=1) + "\n").encode("utf-8")),
        *((schema, schema_text(schema).encode("utf-8")) for schema in SCHEMA_FILES),
    ):
        path = out / name
        path.write_bytes(data)
        written.append(path)
    return written


def schema_text(name: str) -> str:
    return resources.files(__package__).joinpath(name).read_text(encoding="utf-8")


def load_schema(name: str) -> dict[str, Any]:
    return json.loads(schema_text(name))


def validate_set(out: Path) -> int:
    """Validate a written set against its schemas; the number of vectors checked.
    Raises jsonschema.ValidationError naming the line of the first bad vector."""
    import jsonschema

    manifest = json.loads((out / MANIFEST).read_text(encoding="utf-8"))
    jsonschema.validate(manifest, load_schema(SCHEMA_FILES[0]),
                        cls=jsonschema.Draft202012Validator)
    validator = jsonschema.Draft202012Validator(load_schema(SCHEMA_FILES[1]))
    count = 0
    with (out / VECTORS).open(encoding="utf-8") as lines:
        for number, line in enumerate(lines, 1):
            error = jsonschema.exceptions.best_match(validator.iter_errors(json.loads(line)))
            if error is not None:
                raise jsonschema.ValidationError(f"{out / VECTORS}:{number}: {error.message} "
                                                 f"at {'/'.join(map(str, error.path))}")
            count += 1
    return count
