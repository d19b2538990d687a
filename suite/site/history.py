"""History across runs and releases: a file that each site build appends to, and the trend.

`reports/history.json` keeps, per matrix run, where it came from (the run's start,
its date, the SPEC version and corpus digest it was judged by) and per row the
package version, the verdict counts and the failure classes with their shortest
example. A later build appends its matrices instead of replacing the file (a run
already there is not added twice), so the file grows into the record of which
release of a scrubber introduced or fixed a failure class; where the matrix explained
its rows, the bugs within the claim are kept too (each by its name, which the bug's
signature makes, so the same bug in two runs has the same name), and the trend says
which bugs a release fixed and which it brought.

The trend per implementation puts its rows in version order (rows named
NAME@VERSION in one matrix, and the same row across runs), and compares each
pair of consecutive points only when both were judged by the same SPEC version
and corpus: otherwise a class "fixed" may only be a scenario that changed, and
the page says so instead of comparing.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from packaging.version import InvalidVersion, Version

from scrubcheck.matrix.verdicts import LEAK
from scrubcheck.site.model import SiteData

HISTORY_FORMAT = 1


class HistoryError(ValueError):
    """A history file that cannot be read or extended (names the file)."""


def class_key(failure_class: dict) -> str:
    """What makes two runs' failure classes the same bug: verdict, rules, area, family."""
    return " | ".join(str(failure_class.get(k, "")) for k in ("verdict", "rules", "area",
                                                              "family"))


def entries_of(site: SiteData) -> list[dict]:
    """One history entry per input matrix of the site."""
    entries: dict[str, dict] = {}
    for impl in [*site.impls, *site.shown_once]:
        p = impl.provenance
        entry = entries.setdefault(p.path, {
            "run": p.started_at, "date": p.started_at[:10], "matrix": p.path,
            "spec_version": p.spec_version, "corpus_digest": p.corpus_digest, "mode": p.mode,
            "rows": {}})
        judged_in, claim_classes = impl.judged_classes
        entry["rows"][impl.name] = {
            "base": impl.base, "package": impl.package, "version": impl.version,
            "totals": impl.totals(), "classes": _kept(impl.classes),
            # SPEC section 12: the trend counts within the claim; classes within it only
            # where the matrix kept them (a matrix made before did not)
            "claim": impl.claim, "claim_totals": impl.claim_totals(),
            "claim_classes": _kept(claim_classes) if judged_in == impl.claim else None}
        if impl.claim_bugs is not None:  # the row was explained: its bugs within the claim
            entry["rows"][impl.name]["bugs"] = _kept_bugs(impl.claim_bugs)
    return list(entries.values())


def _kept(classes: list[dict] | None) -> list[dict]:
    return [{k: c[k] for k in ("verdict", "rules", "area", "family", "scenarios", "example",
                               "command")} for c in (classes or [])]


def _kept_bugs(explained: dict) -> list[dict]:
    """Each bug as the trend needs it: its name, kind, how many scenarios it explains
    and its smallest stream."""
    return [{"name": c["name"], "kind": c["kind"], "scenarios": len(c["scenarios"]),
             "deltas": c["smallest"]["deltas"], "expected": c["smallest"]["expected"],
             "got": c["smallest"]["got"]} for c in explained.get("root_causes", [])]


def _same_run(a: dict, b: dict) -> bool:
    return (a["run"], a["spec_version"], a["corpus_digest"], sorted(a["rows"])) == \
        (b["run"], b["spec_version"], b["corpus_digest"], sorted(b["rows"]))


def read_history(path: Path) -> list[dict]:
    if not path.exists():
        return []
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise HistoryError(f"{path}: {exc}") from exc
    if not isinstance(data, dict) or data.get("history_format") != HISTORY_FORMAT \
            or not isinstance(data.get("entries"), list):
        raise HistoryError(f"{path}: not a scrubcheck history file of format {HISTORY_FORMAT}")
    for number, entry in enumerate(data["entries"], 1):
        if not isinstance(entry, dict) or not {"run", "spec_version", "corpus_digest",
                                               "rows"} <= set(entry):
            raise HistoryError(f"{path}: entry {number} lacks run, spec_version, "
                               "corpus_digest or rows")
    return list(data["entries"])


def merged(history: list[dict], new: list[dict]) -> tuple[list[dict], int]:
    """`history` with the `new` entries it does not hold yet appended; and how many were.
    An entry of a run the history holds replaces the old one only when it is the same
    run read with more (the within-claim counts an older scrubcheck did not record):
    what a run found is never rewritten, only its reading completed."""
    out = list(history)
    added = 0
    for entry in new:
        same = next((k for k, old in enumerate(out) if _same_run(entry, old)), None)
        if same is None:
            out.append(entry)
            added += 1
        elif _completes(entry, out[same]):
            out[same] = entry
    return out, added


def _completes(new: dict, old: dict) -> bool:
    """Whether `new` has every row of `old` with the same totals and classes, and more keys."""
    for name, row in old["rows"].items():
        fresh = new["rows"].get(name, {})
        if any(fresh.get(k) != v for k, v in row.items()):
            return False
    return any(set(new["rows"].get(n, {})) > set(row) for n, row in old["rows"].items())


def write_history(path: Path, entries: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"history_format": HISTORY_FORMAT, "entries": entries},
                               indent=1, ensure_ascii=False) + "\n", encoding="utf-8",
                    errors="backslashreplace")


@dataclass(frozen=True)
class Point:
    """One implementation row in one run."""

    name: str
    version: str
    run: str
    spec_version: str
    corpus_digest: str
    totals: dict
    classes: tuple[dict, ...]
    mode: str = ""
    #: SPEC section 12: the class the row claims, and its counts and failure classes
    #: within it (None where the history did not record them)
    claim: str = "generic"
    claim_totals: dict | None = None
    claim_classes: tuple[dict, ...] | None = None
    #: its bugs within the claim (None where the row was not explained)
    bugs: tuple[dict, ...] | None = None

    @property
    def judged_by(self) -> tuple[str, str, str]:
        """What must be equal for two points to be compared: the SPEC they were judged by,
        the corpus and the mode (quick mode runs fewer chunkings, so finds fewer failures)."""
        return self.spec_version, self.corpus_digest, self.mode

    @property
    def leaks(self) -> int:
        """Leaking scenarios within the claim (over every scenario where not recorded)."""
        return int((self.claim_totals if self.claim_totals is not None else self.totals)
                   .get(LEAK, 0))

    @property
    def leaks_in(self) -> str:
        """The class `leaks` counts in."""
        return self.claim if self.claim_totals is not None else "generic"


@dataclass(frozen=True)
class Step:
    """Two consecutive points: the classes fixed and new, or why they were not compared."""

    before: Point
    after: Point
    fixed: tuple[dict, ...]
    new: tuple[dict, ...]
    not_compared: str  # "" when compared
    compared_in: str = "generic"  # the class whose failure classes were compared
    #: the bugs fixed and new (by name); None when either point was not explained
    fixed_bugs: tuple[dict, ...] | None = None
    new_bugs: tuple[dict, ...] | None = None


def _version_key(version: str) -> tuple:
    try:
        return (0, Version(version), "")
    except InvalidVersion:
        return (1, Version("0"), version)


def trends(entries: list[dict]) -> dict[str, list[Point]]:
    """base implementation name -> its points, oldest version first (then oldest run)."""
    points: dict[str, list[Point]] = {}
    for entry in entries:
        for name, row in entry["rows"].items():
            points.setdefault(row.get("base") or name.partition("@")[0], []).append(Point(
                name, str(row.get("version", "")), str(entry["run"]),
                str(entry["spec_version"]), str(entry["corpus_digest"]),
                dict(row.get("totals", {})), tuple(row.get("classes", [])),
                str(entry.get("mode", "")), str(row.get("claim") or "generic"),
                row.get("claim_totals"),
                None if row.get("claim_classes") is None else tuple(row["claim_classes"]),
                None if row.get("bugs") is None else tuple(row["bugs"])))
    for series in points.values():
        series.sort(key=lambda p: (_version_key(p.version), p.run))
    return points


def judged_alike(series: list[Point]) -> list[list[Point]]:
    """The series split into runs judged alike (same SPEC, corpus and mode), each in version
    order, the group holding the newest run first: only within a group are versions
    compared."""
    groups: dict[tuple[str, str, str], list[Point]] = {}
    for point in series:
        groups.setdefault(point.judged_by, []).append(point)
    return sorted(groups.values(), key=lambda g: max(p.run for p in g), reverse=True)


def steps(series: list[Point]) -> list[Step]:
    out = []
    for before, after in zip(series, series[1:], strict=False):
        if before.judged_by != after.judged_by:
            why = []
            if before.spec_version != after.spec_version:
                why.append(f"SPEC {before.spec_version or '?'} → {after.spec_version or '?'}")
            if before.corpus_digest != after.corpus_digest:
                why.append(f"corpus {before.corpus_digest or '?'} → "
                           f"{after.corpus_digest or '?'}")
            if before.mode != after.mode:
                why.append(f"{before.mode or '?'} mode → {after.mode or '?'} mode")
            out.append(Step(before, after, (), (), "; ".join(why)))
            continue
        # within the claim where both points kept its classes, else in the generic class
        within = (before.claim == after.claim and before.claim_classes is not None
                  and after.claim_classes is not None)
        old = {class_key(c): c for c in (before.claim_classes if within else before.classes)
               or ()}
        now = {class_key(c): c for c in (after.claim_classes if within else after.classes)
               or ()}
        fixed_bugs = new_bugs = None
        if before.bugs is not None and after.bugs is not None and before.claim == after.claim:
            old_bugs = {b["name"]: b for b in before.bugs}
            now_bugs = {b["name"]: b for b in after.bugs}
            fixed_bugs = tuple(b for name, b in old_bugs.items() if name not in now_bugs)
            new_bugs = tuple(b for name, b in now_bugs.items() if name not in old_bugs)
        out.append(Step(before, after, tuple(old[k] for k in old if k not in now),
                        tuple(now[k] for k in now if k not in old), "",
                        after.claim if within else "generic", fixed_bugs, new_bugs))
    return out
