"""The compliance matrix as data: one row per implementation, its run, and the views.

Every view (headline counts, area and rule-group cells, the pruned
scenario table, the hall of bugs, the observed behaviours) is computed here
once, so the Markdown, HTML and JSON forms cannot disagree.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from scrubcheck.checks.names import Check
from scrubcheck.matrix.classes import FailureClass, failure_classes
from scrubcheck.matrix.observed import EVERY_PEER, Observed, shipped_observed
from scrubcheck.matrix.verdicts import (
    ERROR,
    FAIL,
    JUDGED,
    LEAK,
    PASS,
    SHOULD,
    SKIPPED,
    UNSUPPORTED,
    verdict,
)
from scrubcheck.matrix.within_claim import placements, row_claim
from scrubcheck.peers.observed import Observation
from scrubcheck.reports.analysis import reproductions, scenario_severity
from scrubcheck.results import RunResult, ScenarioResult
from scrubcheck.spec import RULES

HALL_SIZE = 8


@dataclass
class Row:
    """One implementation: what it is, and its run if it ran."""

    name: str
    title: str
    kind: str
    package: str  # e.g. "hermes-agent==0.19.0", "npm ai@6.0.326", "scrubcheck"
    version: str
    spec: str  # the adapter spec its replay commands use
    status: str  # "ran", or why not ("not installed: ...", "heavy: ...", "failed: ...")
    model_of: str | None = None
    restrictions: list[str] = field(default_factory=list)
    run: RunResult | None = None
    report: str | None = None  # path of its full report, relative to the matrix
    reused: bool = False  # taken from an earlier run with the same settings (--reuse)
    #: instead of `run`: this row's views as matrix.json kept them (`scrubcheck matrix
    #: --render-from`); the per-scenario failures are not there, only what the pages show
    stored: dict | None = None
    #: its failing scenarios within its claim explained as root causes
    #: (`scrubcheck.explain.Explanation.to_dict`; matrix.bugs fills it), None when not
    #: explained
    bugs: dict | None = None
    #: the serving engine whose registered parser the row is (peers.engines), else ""
    engine: str = ""
    #: failure classes by conformance class, computed once per row (classes_within)
    _within: dict[str, list[FailureClass] | None] = field(default_factory=dict, repr=False,
                                                           compare=False)

    @property
    def ran(self) -> bool:
        return self.run is not None or self.stored is not None

    @property
    def duration_s(self) -> float:
        if self.run is not None:
            return self.run.duration_s
        return float((self.stored or {}).get("duration_s") or 0.0)

    def time_note(self) -> str:
        """How long the row's run took, as its headline notes say it: its wall time, and
        where the result cache gave most of it, the last full run's (which is what a reader
        comparing implementations wants); "natively" for a row judged in its own language."""
        if not self.ran:
            return ""
        if self.run is None:  # re-rendered from matrix.json: the words it kept
            return str((self.stored or {}).get("time") or f"ran in {self.duration_s:,.0f} s")
        settings = self.run.settings
        how = " natively in Node" if settings.get("native") else ""
        cache = settings.get("cache") or {}
        full = cache.get("last_full_run")
        if cache.get("reused") and full:
            return (f"last full run {full['duration_s']:,.0f} s{how} "
                    f"({full['scenarios']:,} scenarios); this one ran {cache.get('ran', 0):,} "
                    f"in {self.duration_s:,.0f} s")
        if cache.get("reused"):
            return f"ran {cache.get('ran', 0):,} uncached in {self.duration_s:,.0f} s{how}"
        return f"ran in {self.duration_s:,.0f} s{how}"

    def cache_counts(self) -> dict[str, int]:
        """How many of its results the result cache gave and how many ran (empty when no
        cache was used); kept in matrix.json, so a re-rendered page says it too."""
        if self.run is None:
            return dict((self.stored or {}).get("cache") or {})
        cache = self.run.settings.get("cache") or {}
        return {k: int(cache[k]) for k in ("reused", "ran") if k in cache}

    def claim_bugs(self) -> dict | None:
        """Its bugs within its claim (the explanation as `bugs` holds it), or None where
        they were not explained (a run with `--no-explain`, a merged or older matrix)."""
        if self.bugs is not None:
            return self.bugs
        kept = (self.stored or {}).get("claim_bugs")
        return dict(kept) if isinstance(kept, dict) else None

    def bug_count(self) -> int | None:
        data = self.claim_bugs()
        return None if data is None else int(data["bugs"])

    def verdicts(self) -> dict[str, str]:
        if self.run is not None:
            return {r.scenario_id: verdict(r) for r in self.run.results}
        return dict((self.stored or {}).get("verdicts", {}))

    def totals(self) -> Counter:
        return Counter(self.verdicts().values())

    def failure_classes(self) -> list[FailureClass] | None:
        """Its distinct failure classes (`classes`), or None for a row re-rendered from a
        matrix.json that did not keep them (made before they were counted)."""
        if self.run is not None:
            return failure_classes(self.run)
        kept = (self.stored or {}).get("failure_classes")
        return None if kept is None else [FailureClass(**c) for c in kept]

    @property
    def claim(self) -> str:
        """The conformance class the row claims (SPEC section 12): as matrix.json kept it
        for a stored row (an engine's row cannot be looked up without the engine)."""
        kept = (self.stored or {}).get("claim")
        return kept if isinstance(kept, str) and kept else row_claim(self.name)

    def classes_within(self, claim: str) -> list[FailureClass] | None:
        """The failure classes among the scenarios within `claim` that the class judges as
        the generic class does (matrix.within_claim): what the headline and the class grid
        count, so one bug on other formats' delimiters does not count against a claim that
        does not cover them. None where a stored row did not keep them."""
        if claim not in self._within:
            self._within[claim] = self._classes_within(claim)
        return self._within[claim]

    def _classes_within(self, claim: str) -> list[FailureClass] | None:
        if claim == "generic":
            return self.failure_classes()
        if self.run is not None:
            placed = placements(claim, tuple(r.scenario_id for r in self.run.results))
            return failure_classes(self.run, {i for i, p in placed.items() if p is None})
        kept = (self.stored or {}).get("claim_failure_classes")
        if claim == self.claim and kept is not None:
            return [FailureClass(**c) for c in kept]
        return None

    def class_count_within(self, claim: str) -> int | None:
        """How many failure classes within `claim` (a stored row keeps the counts)."""
        if self.run is None and claim not in ("generic", self.claim):
            count = ((self.stored or {}).get("class_failure_counts") or {}).get(claim)
            return None if count is None else int(count)
        classes = self.classes_within(claim)
        return None if classes is None else len(classes)

    def linear(self) -> str:
        """The once-per-run R-ROBUST-2 outcome, or '' when it did not run."""
        if self.stored is not None:
            return self.stored.get("linear_time", "")
        if not self.run or not self.run.scrubber_checks:
            return ""
        return self.run.scrubber_checks[0].outcome.value


@dataclass(frozen=True)
class HallEntry:
    scenario_id: str
    verdict: str
    checks: str  # "leak R-LEAK-1 · expected R-FID-1"
    chunking: str
    size: int  # characters in the smallest failing chunking
    command: str


@dataclass
class Matrix:
    rows: list[Row]
    mode: str  # "full" or "quick"
    mode_note: str
    started_at: str
    duration_s: float
    settings: dict
    scenarios: dict[str, ScenarioResult] = field(default_factory=dict)  # id -> any result
    #: the claims the observed-behaviour view checks (from the peers' manifests)
    observed: tuple[Observed, ...] = field(default_factory=shipped_observed)
    #: re-rendered from matrix.json: when, the corpus areas and rule groups, every scenario id,
    #: and the observed checks as that run judged them, keyed (peer, scenario)
    rendered_at: str | None = None
    stored_areas: list[str] = field(default_factory=list)
    stored_groups: list[str] = field(default_factory=list)
    stored_ids: list[str] = field(default_factory=list)
    stored_observed: dict[tuple[str, str], dict] = field(default_factory=dict)

    @property
    def ran(self) -> list[Row]:
        return [r for r in self.rows if r.ran]

    def scenario_ids(self) -> list[str]:
        """Every scenario some implementation ran, in corpus order."""
        return list(self.scenarios) if self.scenarios else list(self.stored_ids)

    def timing(self) -> str:
        """How long the runs took, summed over implementations (reused ones included)."""
        total = sum(r.duration_s for r in self.ran)
        if self.rendered_at:
            return (f"the {len(self.ran)} runs took {total / 60:.0f} min in all"
                    f"{self._cached()}; this page was re-rendered from matrix.json on "
                    f"{self.rendered_at}")
        reused = sum(1 for r in self.ran if r.reused)
        return (f"the {len(self.ran)} runs took {total / 60:.0f} min in all"
                + (f" ({reused} reused from earlier runs with the same settings; this "
                   f"invocation took {self.duration_s / 60:.0f} min)" if reused else "")
                + self._cached())

    def _cached(self) -> str:
        """What the result cache gave (scrubcheck regenerate): then the times above are
        those of the results left to run, not of a full run, and the page says so."""
        counts = [r.cache_counts() for r in self.ran]
        reused = sum(int(c.get("reused", 0)) for c in counts)
        if not reused:
            return ""
        total = reused + sum(int(c.get("ran", 0)) for c in counts)
        return (f"; {reused:,} of {total:,} results were taken from the result cache "
                "(scrubcheck regenerate), so these are the times of what was left to run, "
                "not of a full run")

    def production(self) -> str:
        """How long the runs took and what they were measured against, as the pages say it."""
        provenance = self.provenance()
        return self.timing() + (f" ({provenance})" if provenance else "")

    def provenance(self) -> str:
        """What the runs were measured against, and on what machine (empty for a matrix
        written before this was recorded)."""
        settings = self.settings
        parts = []
        if settings.get("spec_version") and settings.get("corpus_digest"):
            parts.append(f"SPEC {settings['spec_version']}, corpus digest "
                         f"{settings['corpus_digest']}")
        host = settings.get("host") or {}
        if host.get("cpus"):
            load = ""
            if host.get("load_at_start") is not None and host.get("load_at_end") is not None:
                load = (f", one-minute load average {host['load_at_start']} at the start and "
                        f"{host['load_at_end']} at the end")
            parts.append(f"run on {host['cpus']} CPUs{load}")
        return "; ".join(parts)

    def index_scenarios(self) -> None:
        for row in self.ran:
            if row.run is not None:
                for result in row.run.results:
                    self.scenarios.setdefault(result.scenario_id, result)


def cell_counts(row: Row, key: str) -> dict[str, Counter]:
    """Verdict counts per area (`key` 'area') or per SPEC rule group ('group')."""
    cells: dict[str, Counter] = {}
    if row.stored is not None:
        kept = row.stored.get("areas" if key == "area" else "rule_groups", {})
        return {name: Counter(counts) for name, counts in kept.items()}
    if not row.run:
        return cells
    for result in row.run.results:
        for group in _groups(result, key):
            cells.setdefault(group, Counter())[verdict(result)] += 1
    return cells


def _groups(result: ScenarioResult, key: str) -> list[str]:
    if key == "area":
        return [result.area]
    groups = []
    for rule in result.rules:
        group = RULES[rule].group if rule in RULES else rule
        if group not in groups:
            groups.append(group)
    return groups


def columns(matrix: Matrix, key: str) -> list[str]:
    """Areas in corpus order, or SPEC rule groups in SPEC order."""
    if key == "group":
        order = list(dict.fromkeys(rule.group for rule in RULES.values()))
        if matrix.scenarios or not matrix.stored_groups:
            return order
        # re-rendered: the groups of the SPEC the runs were judged by, in today's order
        kept = matrix.stored_groups
        return [g for g in order if g in kept] + [g for g in kept if g not in order]
    if not matrix.scenarios:
        return list(matrix.stored_areas)
    return list(dict.fromkeys(r.area for r in matrix.scenarios.values()))


def pruned(matrix: Matrix) -> list[str]:
    """Scenario ids on which the implementations that judged them disagree (the others
    are hidden: every implementation treats them alike)."""
    by_row = [row.verdicts() for row in matrix.ran]
    kept = []
    for scenario_id in matrix.scenario_ids():
        judged = {v[scenario_id] for v in by_row if v.get(scenario_id) in JUDGED}
        if len(judged) > 1:
            kept.append(scenario_id)
    return kept


def hall_of_bugs(row: Row, size: int = HALL_SIZE) -> list[HallEntry]:
    """The row's shortest failing scenarios, leaks first, with a command reproducing each."""
    if row.stored is not None:
        return [HallEntry(**entry) for entry in row.stored.get("hall_of_bugs", [])][:size]
    if not row.run:
        return []
    failing = [r for r in row.run.results if verdict(r) in (LEAK, FAIL, SHOULD) and r.failures]
    entries = []
    for result in failing:
        repro = reproductions(result)[0].failure
        entries.append((scenario_severity(result), sum(map(len, repro.deltas)) or 10**9,
                        result, repro))
    entries.sort(key=lambda e: (e[0], e[1], e[2].scenario_id))
    hall = []
    for _, chars, result, repro in entries[:size]:
        checks = " · ".join(f"{r.failure.check} {r.failure.rule}" for r in reproductions(result))
        hall.append(HallEntry(result.scenario_id, verdict(result), checks, repro.chunking,
                              chars if chars < 10**9 else 0, repro.replay))
    return hall


@dataclass(frozen=True)
class ObservedCheck:
    claim: Observation
    peer: str  # a peer's name, or "all peers" for a claim about everyone
    scenario_id: str
    verdict: str  # the peer's verdict here ("not run" when it did not run), or a summary
    confirmed: bool
    command: str


ALL_PEERS = "all peers"


def _confirms(claim: Observation, got: str) -> bool:
    if claim.expect == "passes":
        return got == PASS
    if claim.expect == "unsupported":
        return got == UNSUPPORTED
    return got in (LEAK, FAIL, SHOULD, ERROR)


def observed_checks(matrix: Matrix) -> list[ObservedCheck]:
    """Each observed behaviour against this run: the peer's verdict on each of its scenarios
    (for a claim about every peer, one summary of who fails, passes or cannot run it)."""
    rows = {r.name: r for r in matrix.rows}
    checks = []
    for observed in matrix.observed:
        claim = observed.claim
        for scenario_id in claim.scenarios:
            if observed.peer == EVERY_PEER:
                checks.append(_summary(claim, scenario_id, matrix))
                continue
            row = rows.get(observed.peer)
            got = row.verdicts().get(scenario_id, "not run") if row else "not run"
            checks.append(ObservedCheck(claim, observed.peer, scenario_id, got,
                                        _confirms(claim, got),
                                        _command(matrix, row, scenario_id)))
    return checks


#: checks that judge the whole stream's output, as opposed to cuts, re-use or timing
_OUTPUT_CHECKS = frozenset({Check.EXPECTED, Check.LEAK, Check.TAG, Check.EXCEPTION, Check.TYPE})


def _whole_stream(row: Row, scenario_id: str) -> str:
    """'pass', 'fail' or 'unsupported': the peer's output for the stream given as one
    delta. Claims about every peer are about what a peer does (fences, nesting, case),
    so a chunking or truncation bug of the peer must not decide them."""
    result = next((r for r in row.run.results if r.scenario_id == scenario_id), None) \
        if row.run else None
    if result is None or verdict(result) in (UNSUPPORTED, SKIPPED):
        return "unsupported"
    if verdict(result) == ERROR and not result.failures:
        return "fail"
    whole = [f for f in result.failures if f.check in _OUTPUT_CHECKS
             and (f.chunking == "whole" or len(f.deltas) == 1)]
    return "fail" if whole else "pass"


def _summary(claim: Observation, scenario_id: str, matrix: Matrix) -> ObservedCheck:
    """Who fails, passes or cannot run a claim about every peer, judged on the stream as
    one delta. A peer that fails the claim's control scenario is listed apart: its
    verdict says nothing about the claim. A matrix re-rendered from matrix.json has no
    per-chunking failures left, so it shows the summary its run made."""
    command = f"scrubcheck show {scenario_id} --scrubber peer:NAME --chunking whole"
    if matrix.rendered_at:
        kept = matrix.stored_observed.get((ALL_PEERS, scenario_id))
        if kept is None:
            return ObservedCheck(claim, ALL_PEERS, scenario_id, "not in the stored run",
                                 False, command)
        return ObservedCheck(claim, ALL_PEERS, scenario_id, kept["verdict"],
                             bool(kept["confirmed"]), kept.get("command") or command)
    failing_control = f"fails the control {claim.control}"
    groups: dict[str, list[str]] = {"fail": [], "pass": [], "unsupported": [],
                                    failing_control: []}
    apart: dict[str, list[str]] = {"fail": [], "pass": [], "unsupported": []}
    for row in matrix.ran:
        if row.name == "reference":
            continue
        key = _whole_stream(row, scenario_id)
        if claim.exempt and row.name.startswith(claim.exempt):
            apart[key].append(row.name)
        elif (claim.control and key != "unsupported"
              and _whole_stream(row, claim.control) != "pass"):
            groups[failing_control].append(row.name)
        else:
            groups[key].append(row.name)
    contrary = "pass" if claim.expect == "fails" else "fail"
    parts = [f"{key}: {', '.join(names)}" for key, names in groups.items() if names]
    parts += [f"{'/'.join(claim.exempt)}* (said to differ) {key}: {', '.join(names)}"
              for key, names in apart.items() if names]
    confirmed = not groups[contrary] and bool(groups["fail"] or groups["pass"])
    return ObservedCheck(claim, ALL_PEERS, scenario_id, "whole stream: " + "; ".join(parts),
                         confirmed, command)


def _command(matrix: Matrix, row: Row | None, scenario_id: str) -> str:
    if row is None or not row.ran:
        return ""
    if row.run is None:  # re-rendered: the command its run printed, else a show command
        kept = matrix.stored_observed.get((row.name, scenario_id), {})
        return kept.get("command") or f"scrubcheck show {scenario_id} --scrubber {row.spec}"
    for result in row.run.results:
        if result.scenario_id == scenario_id and result.failures:
            return reproductions(result)[0].failure.replay
    return f"scrubcheck show {scenario_id} --scrubber {row.spec}"


def counts_text(counts: Counter) -> str:
    """`12 pass · 3 fail (2 leak) · 1 n/a`, for cells."""
    failed = counts[LEAK] + counts[FAIL] + counts[SHOULD]
    parts = [f"{counts[PASS]}/{failed}/{counts[UNSUPPORTED] + counts[SKIPPED]}"]
    if counts[LEAK]:
        parts.append(f"⚠{counts[LEAK]}")
    if counts[ERROR]:
        parts.append(f"E{counts[ERROR]}")
    return " ".join(parts)
