"""What the site shows, read from one or more matrix.json files and the corpus.

A matrix.json keeps each implementation's verdict per scenario, its failure
classes and (from this version on) the evidence of each class's example; the
corpus gives each scenario's stream, area and rules. Several matrix files (one
per release of a peer, or shards of work) become one site: their rows are put
side by side, and each row remembers the SPEC version and corpus digest it was
judged by, so the pages can say when two rows were not judged alike.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from scrubcheck.matrix.engines import EngineSummary, engine_summaries
from scrubcheck.matrix.stored import StoredMatrixError, load_stored_matrix
from scrubcheck.matrix.verdicts import ERROR, FAIL, LEAK, PASS, SHOULD, SKIPPED, UNSUPPORTED
from scrubcheck.matrix.within_claim import counts, placements, row_claim
from scrubcheck.model import Scenario
from scrubcheck.spec import RULES

#: one letter per verdict in the index's data (keeps the index small): the client-side
#: filter reads them back (filter.js BUCKET)
LETTERS: dict[str, str] = {PASS: "P", LEAK: "L", FAIL: "F", SHOULD: "S", ERROR: "E",
                           UNSUPPORTED: "U", SKIPPED: "K",
                           # outside the conformance class a run judges: never a pass
                           "BEYOND CLAIM": "B"}
NOT_RUN = "-"
#: the three counts of the grid: what each collects
BUCKETS = {"pass": (PASS,), "leak": (LEAK,), "fail": (FAIL, SHOULD, ERROR)}


REFERENCE = "reference"


class SiteError(ValueError):
    """Input the site cannot be built from; the message names the file."""


@dataclass(frozen=True)
class Provenance:
    """Where a set of rows came from: the matrix file and what it was judged by."""

    path: str
    started_at: str
    mode: str
    spec_version: str  # "" for a matrix written before it was recorded
    corpus_digest: str

    @property
    def judged_by(self) -> str:
        if not self.spec_version:
            return "SPEC and corpus not recorded"
        return f"SPEC {self.spec_version}, corpus {self.corpus_digest}"


@dataclass
class Impl:
    """One implementation row that ran."""

    name: str
    title: str
    kind: str
    package: str
    version: str
    spec: str
    model_of: str | None
    restrictions: list[str]
    linear: str
    verdicts: dict[str, str]
    classes: list[dict] | None  # None: the matrix was made before classes were kept
    examples: dict[str, dict]
    provenance: Provenance
    #: the failure classes of the scenarios within its claim (SPEC section 12), as the
    #: matrix's headline counts them; None: the matrix did not keep them (older files)
    claim_classes: list[dict] | None = None
    #: its failing scenarios within its claim as root causes (matrix.bugs); None: not
    #: explained (a run with --no-explain, or an older matrix)
    claim_bugs: dict | None = None
    #: the claim matrix.json kept for the row ("" in a matrix older than that field)
    stored_claim: str = ""

    @property
    def base(self) -> str:
        """The implementation without its release: `hermes-stream@0.18.0` -> `hermes-stream`
        (rows of several releases of one package are named NAME@VERSION)."""
        return self.name.partition("@")[0]

    def totals(self) -> dict[str, int]:
        """Verdict counts in the generic class (every scenario the row was given)."""
        counts: dict[str, int] = {}
        for word in self.verdicts.values():
            counts[word] = counts.get(word, 0) + 1
        return counts

    @property
    def claim(self) -> str:
        """The class the row claims, as its matrix kept it (an engine's row cannot be looked
        up without the engine), else its peer manifest's; generic for the others."""
        return self.stored_claim or row_claim(self.name)

    @property
    def judged_classes(self) -> tuple[str, list[dict] | None]:
        """The failure classes its pages lead with, and the class they are counted in:
        within its claim where the matrix kept them, else the generic class's."""
        if self.claim != "generic" and self.claim_classes is not None:
            return self.claim, self.claim_classes
        return "generic", self.classes

    def claim_totals(self) -> dict[str, int]:
        """Verdict counts within the claimed class (SPEC section 12), as the matrix's
        headline counts them: BEYOND CLAIM and NOT JUDGED stand apart from the verdicts."""
        return dict(counts(self.claim, self.verdicts))


@dataclass
class SiteData:
    impls: list[Impl]
    not_run: list[tuple[str, str, str]]  # (name, package, why) of rows that did not run
    inputs: list[Provenance]
    ids: list[str]  # every scenario some row judged, in first-seen order
    scenarios: dict[str, Scenario]  # the corpus's, by id
    areas: list[str] = field(default_factory=list)
    groups: list[str] = field(default_factory=list)
    #: rows not in the grid because another input's row of that name is (the reference);
    #: the history still records them with their own run
    shown_once: list[Impl] = field(default_factory=list)
    #: each serving engine's registered parsers, summed (matrix.engines)
    engines: list[EngineSummary] = field(default_factory=list)

    @property
    def missing(self) -> list[str]:
        """Scenario ids the matrices judged that today's corpus does not have."""
        return [i for i in self.ids if i not in self.scenarios]

    @property
    def mixed(self) -> bool:
        """Whether the rows were judged by different SPEC versions or corpora."""
        return len({(p.spec_version, p.corpus_digest) for p in self.inputs}) > 1

    def area_of(self, scenario_id: str) -> str:
        scenario = self.scenarios.get(scenario_id)
        return scenario.area if scenario else ""

    def groups_of(self, scenario_id: str) -> list[str]:
        scenario = self.scenarios.get(scenario_id)
        if scenario is None:
            return []
        return list(dict.fromkeys(RULES[r].group if r in RULES else r for r in scenario.rules))

    def impl(self, name: str) -> Impl:
        return next(i for i in self.impls if i.name == name)

    @cached_property
    def classes(self) -> list[str]:
        """The conformance classes of the class axis: generic, then each class some row
        claims (SPEC section 12), in first-seen order."""
        return list(dict.fromkeys(["generic", *(i.claim for i in self.impls)]))

    @cached_property
    def within(self) -> dict[str, frozenset[str]]:
        """For each class of the axis, the scenario ids it judges as the generic class
        does (SPEC section 12): there a row's verdict is its verdict in the class. Beyond
        the class, or within it with another expectation, a scenario is not counted."""
        known = tuple(i for i in self.ids if i in self.scenarios)
        return {cls: frozenset(known) if cls == "generic" else frozenset(
                    i for i, why in placements(cls, known).items() if why is None)
                for cls in self.classes}


def load_site_data(paths: list[Path], scenarios: list[Scenario]) -> SiteData:
    """The rows of every matrix file, side by side; a row name in two files is an error
    (name each release's rows NAME@VERSION)."""
    if not paths:
        raise SiteError("no matrix.json given")
    impls: list[Impl] = []
    not_run: list[tuple[str, str, str]] = []
    inputs: list[Provenance] = []
    seen: dict[str, str] = {}
    shown_once: list[Impl] = []  # the later inputs' reference rows: kept for the history
    ids: dict[str, None] = {}
    engines: list[EngineSummary] = []
    for path in paths:
        try:  # the same validation `matrix --render-from` does
            engines += engine_summaries(load_stored_matrix(path))
        except StoredMatrixError as exc:
            raise SiteError(str(exc)) from exc
        data = json.loads(path.read_text(encoding="utf-8"))
        settings = data.get("settings") or {}
        provenance = Provenance(str(path), str(data.get("started_at", "")),
                                str(data.get("mode", "")),
                                str(settings.get("spec_version") or ""),
                                str(settings.get("corpus_digest") or ""))
        inputs.append(provenance)
        for raw in data["rows"]:
            name = raw["name"]
            if name == REFERENCE and name in seen:
                # every matrix runs the reference: the first input's row stands for all
                not_run.append((f"{name} ({path})", raw["package"],
                                f"shown once, from {seen[name]}"))
                shown_once.append(_impl(raw, provenance))
                continue
            if name in seen:
                raise SiteError(f"{path}: row {name!r} is also in {seen[name]}; rows of "
                                "several releases are named NAME@VERSION")
            seen[name] = str(path)
            if raw["status"] != "ran" or not isinstance(raw.get("verdicts"), dict):
                not_run.append((name, raw["package"], raw["status"]))
                continue
            impls.append(_impl(raw, provenance))
            ids.update(dict.fromkeys(raw["verdicts"]))
    by_id = {s.id: s for s in scenarios}
    site = SiteData(impls, not_run, inputs, list(ids), by_id, shown_once=shown_once,
                    engines=engines)
    site.areas = list(dict.fromkeys(site.area_of(i) or "(not in corpus)" for i in site.ids))
    order = list(dict.fromkeys(rule.group for rule in RULES.values()))
    used = {g for i in site.ids for g in site.groups_of(i)}
    site.groups = [g for g in order if g in used] + sorted(used - set(order))
    return site


def _impl(raw: dict, provenance: Provenance) -> Impl:
    examples = raw.get("examples")
    return Impl(raw["name"], raw["title"], raw["kind"], raw["package"], raw["version"],
                raw["spec"], raw.get("model_of"), list(raw.get("restrictions") or []),
                str(raw.get("linear_time") or ""), dict(raw["verdicts"]),
                raw.get("failure_classes"), examples if isinstance(examples, dict) else {},
                provenance, raw.get("claim_failure_classes"), raw.get("claim_bugs"),
                str(raw.get("claim") or ""))


def bucket_counts(site: SiteData, impl: Impl, ids: list[str] | frozenset[str]
                  ) -> dict[str, int]:
    """pass / leak / fail (FAIL, SHOULD and ERROR) / other (unsupported, skipped, not run)
    among `ids`."""
    counts = {"pass": 0, "leak": 0, "fail": 0, "other": 0}
    for scenario_id in ids:
        word = impl.verdicts.get(scenario_id)
        bucket = next((b for b, words in BUCKETS.items() if word in words), "other")
        counts[bucket] += 1
    return counts
