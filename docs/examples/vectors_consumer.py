"""A vector consumer written from docs/vectors.md alone: judge a Python scrubber over a
vector set with the checks the data decides, and write a report.json.

It imports nothing of scrubcheck (tests/test_vectors_consumer.py checks that, and
that its verdicts are `scrubcheck run`'s on the reference and the broken
scrubbers), so it shows what an implementer in another language writes:

    python vectors_consumer.py VECTOR_DIR module:Factory [--out report.json] [--id ID ...]

The scrubber is a zero-argument factory of objects with feed(delta) and flush();
context keywords go to the factory when its signature names them (finish_reason
also to flush), and `supported_features` on the factory lists its features.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import importlib.util
import inspect
import json
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

WHITESPACE = " \t\r\n"
CONTEXT_KEYS = ("starts_in_reasoning", "inline_answer", "finish_reason", "features",
                "may_skip_reasoning", "delimiters", "conformance_class")
RAN = ("exception", "type", "leak", "tag", "expected", "invariance", "idempotence",
       "truncation", "reuse")


# ----------------------------------------------------------------- the scrubber
class Scrubber:
    """A factory, what context it takes, and one session per stream."""

    def __init__(self, spec: str) -> None:
        self.spec = spec
        self.factory = _load(spec)
        self.factory_keys = _keywords(self.factory, CONTEXT_KEYS)
        probe = self.factory()
        self.flush_keys = _keywords(probe.flush, ("finish_reason",)) - self.factory_keys
        self.accepted = self.factory_keys | self.flush_keys
        declared = getattr(self.factory, "supported_features", None)
        declared = getattr(probe, "supported_features", None) if declared is None else declared
        self.features = (frozenset({declared}) if isinstance(declared, str)
                         else frozenset(declared or ()))

    def cannot_take(self, keys: list[str], features: list[str]) -> str | None:
        missing = [k for k in keys if k not in self.accepted]
        if missing:
            return "cannot receive context " + ", ".join(missing)
        absent = [f for f in features if f not in self.features]
        if absent:
            return "does not support feature(s) " + ", ".join(absent)
        return None

    def open(self, context: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
        kwargs = {k: _arg(k, v) for k, v in context.items() if k in self.factory_keys}
        flush = {k: v for k, v in context.items() if k in self.flush_keys}
        return self.factory(**kwargs), flush


def _arg(key: str, value: Any) -> Any:
    return tuple(value) if key == "features" else value


def _load(spec: str) -> Callable[..., Any]:
    where, _, attr = spec.rpartition(":")
    if where.endswith(".py"):
        loaded = importlib.util.spec_from_file_location(Path(where).stem, where)
        assert loaded is not None and loaded.loader is not None, where
        module = importlib.util.module_from_spec(loaded)
        loaded.loader.exec_module(module)
    else:
        module = importlib.import_module(where)
    return getattr(module, attr)


def _keywords(func: Callable[..., Any], names: tuple[str, ...]) -> frozenset[str]:
    try:
        params = inspect.signature(func).parameters.values()
    except (TypeError, ValueError):
        return frozenset()
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params):
        return frozenset(names)
    named = {p.name for p in params if p.kind in (inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                                   inspect.Parameter.KEYWORD_ONLY)}
    return frozenset(n for n in names if n in named)


@dataclass
class Run:
    """One session: each return, the first raise, the non-string returns."""

    deltas: list[str]
    returns: list[str] = field(default_factory=list)
    error: str | None = None
    bad: list[str] = field(default_factory=list)

    @property
    def output(self) -> str:
        return "".join(self.returns)

    @property
    def ok(self) -> bool:
        return self.error is None


def _text(value: Any, run: Run, call: str) -> str:
    if isinstance(value, str):
        return value
    run.bad.append(f"{call} returned {type(value).__name__}")
    if value is None:
        return ""
    if isinstance(value, bytes | bytearray):
        return bytes(value).decode("utf-8", "replace")
    return str(value)


def drive(obj: Any, flush_kwargs: dict[str, Any], deltas: list[str]) -> Run:
    run = Run(deltas)
    for index, delta in enumerate(deltas):
        try:
            value = obj.feed(delta)
        except Exception as exc:
            run.error = f"feed() of delta {index} raised {type(exc).__name__}: {exc}"
            return run
        run.returns.append(_text(value, run, f"feed() of delta {index}"))
    try:
        value = obj.flush(**flush_kwargs)
    except Exception as exc:
        run.error = f"flush() raised {type(exc).__name__}: {exc}"
        return run
    run.returns.append(_text(value, run, "flush()"))
    return run


def fresh(scrubber: Scrubber, context: dict[str, Any], deltas: list[str]) -> Run:
    try:
        obj, flush = scrubber.open(context)
    except Exception as exc:
        return Run(deltas, error=f"opening a scrubber raised {type(exc).__name__}: {exc}")
    return drive(obj, flush, deltas)


# ----------------------------------------------------------------- the streams
def chunkings(vector: dict[str, Any]) -> Iterator[tuple[str, list[str]]]:
    text = "".join(vector["deltas"])
    for entry in vector["chunkings"]:
        if entry.get("kind") == "splits":
            points = range(1, len(text)) if entry["at"] == "every" else entry["at"]
            for k in points:
                yield f"split@{k}", [text[:k], text[k:]]
            continue
        name = entry["name"]
        if name == "recorded":
            yield name, list(vector["deltas"])
        elif name == "whole":
            yield name, [text]
        elif name == "char":
            yield name, list(text)
        elif name == "recorded+empty":
            out = [""]
            for delta in vector["deltas"]:
                out += [delta, ""]
            yield name, out
        elif "size" in entry:
            size = entry["size"]
            yield name, [text[i:i + size] for i in range(0, len(text), size)]
        else:
            pieces, position = [], 0
            for length in entry["lengths"]:
                pieces.append(text[position:position + length])
                position += length
            yield name, pieces


def cut_stream(deltas: list[str], cut: int) -> list[str]:
    kept, position = [], 0
    for delta in deltas:
        if position + len(delta) <= cut:
            kept.append(delta)
            position += len(delta)
            continue
        if cut > position:
            kept.append(delta[:cut - position])
        break
    return kept


# ----------------------------------------------------------------- the judgements
def leaks(vector: dict[str, Any], output: str, window: int, cut: int | None = None) -> str | None:
    """The first canary window found in `output` (live at `cut`, when given)."""
    for canary in vector["reasoning"]:
        r, at = canary["text"], canary["at"]
        width = min(window, len(r))
        for k in range(len(r) - width + 1):
            if cut is not None and at is not None and at + k + width > cut:
                break  # later windows are live later still
            if r[k:k + width] in output:
                return r[k:k + width]
    return None


def tag_verdict(vector: dict[str, Any], output: str, tags: list[str]) -> bool | None:
    """True: R-TAG-1 fails; False: it holds; None: the data cannot decide."""
    expect = vector["expect"] or {}
    if output == expect.get("visible") or output in expect.get("acceptable", ()):
        return False
    folded = output.translate({c: c + 32 for c in range(65, 91)})
    found = [folded.find(tag) for tag in tags if tag in folded]
    if not found:
        return False
    code = min((i for i in (output.find("`"), output.find("~")) if i >= 0), default=len(output))
    return True if min(found) < code else None


def _squeeze(text: str) -> str:
    return "".join(c for c in text if c not in WHITESPACE)


def ws_equal(expected: str, got: str, cuts: list[int]) -> bool:
    runs: list[list[int]] = []
    for c in sorted(set(cuts)):
        if not 0 <= c <= len(expected):
            continue
        start = end = c
        while start > 0 and expected[start - 1] in WHITESPACE:
            start -= 1
        while end < len(expected) and expected[end] in WHITESPACE:
            end += 1
        if start == end:
            continue
        if runs and start <= runs[-1][1]:
            runs[-1][1] = max(end, runs[-1][1])
        else:
            runs.append([start, end])
    i = j = 0
    for start, end in runs:
        if got[j:j + start - i] != expected[i:start]:
            return False
        j += start - i
        k = j
        while k < len(got) and got[k] in WHITESPACE:
            k += 1
        if k == j and not (start == 0 or end == len(expected)):
            return False
        i, j = end, k
    return got[j:] == expected[i:]


def expected_rule(vector: dict[str, Any], output: str) -> tuple[str, str | None] | None:
    """(rule, SHOULD-or-None) of a mismatch with the expected output; None when it matches."""
    expect = vector["expect"]
    if expect is None:
        return None
    if "acceptable" in expect:
        if output in expect["acceptable"]:
            return None
        nearest = max(expect["acceptable"], key=lambda a: (_common(a, output), -len(a)))
    else:
        nearest = expect["visible"]
        cuts = expect["cuts"]
        if output == nearest or (cuts is not None and ws_equal(nearest, output, cuts)):
            return None
    rule = "R-WS-1" if _squeeze(nearest) == _squeeze(output) else "R-FID-1"
    if expect["should_rule"]:
        return expect["should_rule"], "SHOULD"
    return rule, None


def _common(a: str, b: str) -> int:
    if a == b:
        return len(a)
    for i, (x, y) in enumerate(zip(a, b, strict=False)):
        if x != y:
            return i
    return min(len(a), len(b))


class Verdicts:
    """The failures of one scenario: the first per (check, rule), the rest counted."""

    def __init__(self, levels: dict[str, str]) -> None:
        self.levels = levels
        self.failures: dict[tuple[str, str], dict[str, Any]] = {}
        self.checks = 0

    def fail(self, check: str, rule: str, chunking: str, deltas: list[str], detail: str,
             level: str | None = None, expected: str | None = None,
             got: str | None = None) -> None:
        key = (check, rule)
        if key in self.failures:
            self.failures[key]["similar"] += 1
            return
        self.failures[key] = {
            "check": check, "rule": rule, "level": level or self.levels.get(rule, "MUST"),
            "chunking": chunking, "deltas": list(deltas), "detail": detail,
            "expected": expected, "got": got, "step": None,
            "replay": f"scrubcheck show ID --chunking {chunking}", "similar": 0}

    def robust(self, run: Run, name: str, prefix: str = "") -> None:
        if run.error is not None:
            self.fail("exception", "R-ROBUST-1", name, run.deltas, prefix + run.error)
        if run.bad:
            self.fail("type", "R-ROBUST-1", name, run.deltas, prefix + run.bad[0] + ", not str")


def judge(vector: dict[str, Any], scrubber: Scrubber, manifest: dict[str, Any],
          object_api: bool = True) -> dict[str, Any]:
    """One scenario's result, as report.json holds it."""
    started = time.perf_counter()
    result: dict[str, Any] = {
        key: vector[key] for key in ("area", "rules", "file", "line", "description")}
    result.update(scenario_id=vector["id"], failures=[], reason=None, chunkings_run=0,
                  checks_run=0, holdback=None, capped=dict(vector["capped"]), notes=[],
                  metrics={})
    reason = scrubber.cannot_take(vector["requires"], vector["context"]["features"])
    if reason:
        result.update(outcome="UNSUPPORTED", reason=f"{scrubber.spec}: {reason}",
                      duration_s=round(time.perf_counter() - started, 4))
        return result
    window = manifest["window"]
    tags = manifest["vocabularies"][vector["vocabulary"]]
    verdicts = Verdicts(manifest["levels"])
    context = vector["context"]
    outputs: list[tuple[str, int, str]] = []  # (name, number of deltas, output) of clean runs
    undecided_tags = 0
    for name, deltas in chunkings(vector):
        run = fresh(scrubber, context, deltas)
        result["chunkings_run"] += 1
        verdicts.checks += 1
        verdicts.robust(run, name)
        if vector["reasoning"]:
            verdicts.checks += 1
            found = leaks(vector, run.output, window)
            if found:
                verdicts.fail("leak", "R-LEAK-1", name, deltas, f"reasoning {found!r} visible",
                              got=run.output)
        if not run.ok:
            continue
        outputs.append((name, len(deltas), run.output))
        verdicts.checks += 1
        tagged = tag_verdict(vector, run.output, tags)
        if tagged is None:
            undecided_tags += 1
        elif tagged:
            verdicts.fail("tag", "R-TAG-1", name, deltas, "a tag outside code", got=run.output)
        if vector["expect"] is not None:
            verdicts.checks += 1
            mismatch = expected_rule(vector, run.output)
            if mismatch:
                verdicts.fail("expected", mismatch[0], name, deltas,
                              "output differs from the expected output", level=mismatch[1],
                              got=run.output)
    if undecided_tags:
        result["notes"].append(f"R-TAG-1 not judged on {undecided_tags} output(s): a tag "
                               "near a backtick or tilde needs SPEC's code reading")
    if len(outputs) > 1:
        verdicts.checks += 1
        base = next((o for o in outputs if o[0] == "whole"), outputs[0])
        for name, _, output in outputs:
            if output != base[2]:
                verdicts.fail("invariance", "R-CHUNK-1", name, [],
                              f"{name} and {base[0]} give different outputs",
                              expected=base[2], got=output)
    rescrub = vector["rescrub"]
    if scrubber.cannot_take(rescrub["requires"], []):
        result["notes"].append("R-IDEM-1 not checked: the scrubber cannot take its context")
    else:
        seen: set[str] = set()
        for name, _, output in outputs:
            if output in seen:
                continue
            seen.add(output)
            verdicts.checks += 1
            again = fresh(scrubber, rescrub["context"], [output])
            verdicts.robust(again, name, "re-scrubbing the output: ")
            if again.ok and again.output != output:
                verdicts.fail("idempotence", "R-IDEM-1", name, [output],
                              "scrubbing the output again changed it", expected=output,
                              got=again.output)
    truncation(vector, scrubber, verdicts, window, result)
    if object_api:
        reuse(vector, scrubber, manifest, verdicts, outputs)
    else:
        result["notes"].append("R-REUSE-1 not checked: the scrubber is not a reusable object")
    failures = list(verdicts.failures.values())
    result["failures"] = failures
    result["checks_run"] = verdicts.checks
    errors = [f for f in failures if f["check"] == "exception"]
    if errors:
        result["outcome"] = "ERROR"
        result["reason"] = f"the scrubber raised under {errors[0]['chunking']}: " \
                           f"{errors[0]['detail']}"
    elif failures:
        result["outcome"] = "FAIL"
    elif verdicts.checks == 0:
        result["outcome"], result["reason"] = "ERROR", "no check ran"
    else:
        result["outcome"] = "PASS"
    result["duration_s"] = round(time.perf_counter() - started, 4)
    return result


def truncation(vector: dict[str, Any], scrubber: Scrubber, verdicts: Verdicts, window: int,
               result: dict[str, Any]) -> None:
    spec = vector["truncation"]
    text = "".join(vector["deltas"])
    cuts = range(len(text) + 1) if spec["cuts"] == "every" else spec["cuts"]
    skipped = 0
    for cut in cuts:
        keys = spec["requires_after_backtick"] if text[cut - 1:cut] == "`" else spec["requires"]
        if scrubber.cannot_take(keys, []):
            skipped += 1
            continue
        name = f"trunc@{cut}"
        deltas = cut_stream(vector["deltas"], cut)
        run = fresh(scrubber, spec["context"], deltas)
        verdicts.checks += 1
        verdicts.robust(run, name)
        found = leaks(vector, run.output, window, cut)
        if found:
            verdicts.fail("truncation", "R-TRUNC-1", name, deltas,
                          f"reasoning {found!r} visible after the cut", got=run.output)
        elif run.output and any(a <= cut <= b for a, b in spec["undecided"] or ()):
            verdicts.fail("truncation", "R-SKIP-2", name, deltas,
                          "text showed while the pre-filled block was undecided",
                          expected="", got=run.output)
    if skipped:
        result["notes"].append(f"{skipped} truncation cut(s) not checked (UNSUPPORTED)")


def reuse(vector: dict[str, Any], scrubber: Scrubber, manifest: dict[str, Any],
          verdicts: Verdicts, outputs: list[tuple[str, int, str]]) -> None:
    recorded = next((o for o in outputs if o[0] == "recorded"), None)
    if recorded is None:
        return
    for poison, text in manifest["poisons"].items():
        name = f"reuse:{poison}"
        try:
            obj, flush = scrubber.open(vector["context"])
        except Exception:
            continue  # reported by the fresh runs already
        verdicts.checks += 1
        first = drive(obj, flush, [text])
        verdicts.robust(first, name)
        if not first.ok:
            continue
        second = drive(obj, flush, list(vector["deltas"]))
        verdicts.robust(second, name)
        if second.ok and second.output != recorded[2]:
            verdicts.fail("reuse", "R-REUSE-1", name, list(vector["deltas"]),
                          f"after the poison {poison} the same object scrubs differently",
                          expected=recorded[2], got=second.output)


# ----------------------------------------------------------------- the report
def read_vectors(folder: Path, ids: set[str] | None) -> tuple[dict[str, Any], list[dict]]:
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    if manifest.get("format_version") != 1:
        raise SystemExit(f"{folder}/manifest.json: format_version "
                         f"{manifest.get('format_version')!r}, this consumer reads 1")
    body = (folder / "vectors.jsonl").read_bytes()
    digest = manifest["files"]["vectors.jsonl"]["sha256"]
    if hashlib.sha256(body).hexdigest() != digest:
        raise SystemExit(f"{folder}/vectors.jsonl: its SHA-256 is not the manifest's")
    vectors = []
    # lines end at "\n" only: U+2028 and other line breaks may stand inside a string
    for number, line in enumerate(body.decode("utf-8").split("\n")[:-1], 1):
        try:
            vector = json.loads(line)
        except ValueError as exc:
            raise SystemExit(f"{folder}/vectors.jsonl:{number}: {exc}") from exc
        if ids is None or vector["id"] in ids:
            vectors.append(vector)
    return manifest, vectors


def beyond_row(entry: dict[str, Any]) -> dict[str, Any]:
    """A scenario beyond the set's class: shown and counted, never passed or failed."""
    row = {key: entry[key] for key in ("area", "rules", "file", "line", "description")}
    row.update(scenario_id=entry["id"], outcome="BEYOND CLAIM", failures=[],
               reason=entry["reason"], chunkings_run=0, checks_run=0, holdback=None,
               duration_s=0.0, capped={}, notes=[], metrics={})
    return row


def consume(folder: Path, spec: str, ids: set[str] | None = None,
            object_api: bool = True) -> dict[str, Any]:
    """The report.json (as a dict) of `spec` judged over the vector set in `folder`."""
    started = time.perf_counter()
    manifest, vectors = read_vectors(folder, ids)
    scrubber = Scrubber(spec)
    results = [judge(v, scrubber, manifest, object_api) for v in vectors]
    results += [beyond_row(b) for b in manifest["beyond"] if ids is None or b["id"] in ids]
    counts: dict[str, int] = {}
    for result in results:
        counts[result["outcome"]] = counts.get(result["outcome"], 0) + 1
    ran = [c for c in RAN if c != "reuse" or object_api]
    return {
        "$schema": "urn:scrubcheck:report:1", "format_version": 1,
        "scrubber": spec, "scrubber_kind": "stream",
        "supported_features": sorted(scrubber.features),
        "accepted_context": sorted(scrubber.accepted),
        "spec_version": manifest["spec_version"],
        "scrubcheck_version": "vectors_consumer.py (docs/examples)",
        "started_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "duration_s": round(time.perf_counter() - started, 3),
        "settings": {
            "seed": manifest["seed"], "corpus_digest": manifest["corpus_digest"],
            "conformance_class": manifest["class"],
            "vectors_format": manifest["format_version"], "implementation_version": "",
            "selection": {"scenarios": len(results), "positions": None},
            "vector_checks": {"ran": ran, "not_run": sorted(manifest["checks"]["harness"])
                              + ([] if object_api else ["reuse"])},
        },
        "results": results, "corpus_errors": [], "scrubber_checks": [], "counts": counts,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("vectors", type=Path)
    parser.add_argument("scrubber")
    parser.add_argument("--out", type=Path)
    parser.add_argument("--id", action="append")
    args = parser.parse_args(argv)
    report = consume(args.vectors, args.scrubber, set(args.id) if args.id else None)
    text = json.dumps(report, ensure_ascii=False, indent=1) + "\n"
    if args.out:
        args.out.write_text(text, encoding="utf-8", errors="backslashreplace")
    print(", ".join(f"{k} {v}" for k, v in sorted(report["counts"].items())))
    failing = any(r["outcome"] in ("FAIL", "ERROR") and any(
        f["level"] == "MUST" for f in r["failures"]) for r in report["results"])
    return 1 if failing else 0


if __name__ == "__main__":
    sys.exit(main())
