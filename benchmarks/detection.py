"""Measure which mechanism catches which bundled broken scrubber, and how fast.

    python benchmarks/detection.py                 # everything: about 40 minutes on 2 cores
    python benchmarks/detection.py --only case_sensitive --skip corpus --update
    python benchmarks/detection.py --update --skip corpus --skip hunt --skip fuzz \
        --skip reference                           # only the control/target columns: 1 minute

For every broken scrubber in `scrubcheck.scrubbers.broken` it first runs its
control and target scenarios (scrubcheck.hunt.selftest: the control must pass,
the target must report the bug's rule; otherwise the scrubber is more broken
than it says, or not broken as it says, and the other columns prove nothing
about its bug). Then it runs the corpus
(`scrubcheck run` with fewer random chunkings and without the `long` scenarios;
the linear-time check still runs), `hunt` and `fuzz` (each for at most --time
seconds, seeded, stopping once the bug's own rules are reported), and it runs
hunt and fuzz for the full --time against the reference scrubber, which must
find nothing. The table goes to reports/detection.md. Times are wall-clock
seconds on this machine: to the first report of the bug's rule for hunt and
fuzz (before shrinking), and for the whole corpus run. Every measurement is
also kept in ~/.cache/scrubcheck/detection.json with the run that made it
(date, commit, command); `--update` measures only what is asked for and
rebuilds the table from the kept results, and the table names, for every
cell, the run it comes from.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shlex
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from checkout import measured_commit

from scrubcheck.cachedir import cache_dir
from scrubcheck.corpus import load_corpus
from scrubcheck.hunt import FuzzSettings, HuntSettings, fuzz, hunt
from scrubcheck.hunt.as_scenario import finding_yaml
from scrubcheck.hunt.fuzzing import atheris_problem
from scrubcheck.hunt.selftest import ALL_CASES, LEAK, BrokenCase, probe, verdict_text
from scrubcheck.results import Outcome
from scrubcheck.runner import RunSettings, run_corpus
from scrubcheck.scrubbers.broken import BROKEN

ROOT = Path(__file__).resolve().parent.parent
PROBES = ("control", "target")  # BrokenCase attributes: one column each
CATCHERS = ("corpus", "hunt", "fuzz")
MECHANISMS = (*PROBES, *CATCHERS)


@dataclass
class Detection:
    caught: bool  # for a probe: the verdict is the one it must get
    seconds: float | None  # to the bug's rule (hunt, fuzz) or the whole run (corpus, probe)
    rules: list[str] = field(default_factory=list)  # everything it reported
    note: str = ""
    run: str = ""  # the invocation that measured it (run_stamp)


def run_stamp(argv: list[str]) -> str:
    """When, at which commit and with which command a measurement was made."""
    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    command = shlex.join(["python", "benchmarks/detection.py", *argv])
    return f"{when}, commit {measured_commit()}: `{command}`"


def probe_detection(case: BrokenCase, which: str, scenarios: dict) -> Detection:
    """The broken scrubber on its control or target scenario (scrubcheck.hunt.selftest)."""
    check = getattr(case, which)
    started = time.monotonic()
    result = probe(BROKEN[case.name], check, scenarios)
    return Detection(check.met_by(result), time.monotonic() - started, [verdict_text(result)],
                     check.label)


def corpus_detection(case: BrokenCase, seed: int) -> Detection:
    corpus = load_corpus()
    scenarios = [s for s in corpus.scenarios if "long" not in s.labels]
    started = time.monotonic()
    run = run_corpus(BROKEN[case.name], scenarios, RunSettings(seed=seed, jobs=2, random_count=2,
                                                      timeout_s=20.0), progress=False)
    seconds = time.monotonic() - started
    rules: dict[str, int] = {}
    for result in [*run.results, *run.scrubber_checks]:
        for failure in result.failures:
            rules[failure.rule] = rules.get(failure.rule, 0) + 1
        if result.outcome in (Outcome.TIMEOUT, Outcome.ERROR) and not result.failures:
            rules[result.outcome.value] = rules.get(result.outcome.value, 0) + 1
    unsupported = sum(1 for r in run.results if r.outcome is Outcome.UNSUPPORTED)
    failing = sum(1 for r in run.results if r.outcome in (Outcome.FAIL, Outcome.ERROR,
                                                          Outcome.TIMEOUT))
    # a capability bug (no way to receive a context) shows as UNSUPPORTED scenarios
    caught = any(r in rules for r in case.rules) or ("UNSUPPORTED" in case.rules
                                                     and unsupported > 0)
    note = f"{failing}/{len(run.results)} scenarios fail"
    if unsupported:
        note += f", {unsupported} UNSUPPORTED"
    ordered = sorted(rules, key=lambda r: -rules[r])
    return Detection(caught, seconds, ordered, note)


def wanted_rules(case: BrokenCase) -> set[str]:
    """What hunt and fuzz must report: a leak for a leak-type bug, else the bug's rules."""
    return set(LEAK) if case.leak else set(case.rules)


def hunt_detection(case: BrokenCase, seconds: float, seed: int) -> Detection:
    wanted = wanted_rules(case)
    result = hunt(BROKEN[case.name], HuntSettings(seconds=seconds, seed=seed, database="memory",
                                          linear="R-ROBUST-2" in wanted, timeout=5.0,
                                          stop=lambda f: f.rule in wanted))
    hits = [f.elapsed for f in result.findings if f.rule in wanted]
    return Detection(bool(hits), min(hits) if hits else None,
                    [f.rule for f in result.findings], f"{result.examples} cases")


def fuzz_detection(case: BrokenCase, seconds: float, seed: int) -> Detection:
    wanted = wanted_rules(case)
    with tempfile.TemporaryDirectory() as work:
        options = FuzzSettings(seconds=seconds, seed=seed, work_dir=Path(work), timeout=5,
                               linear="R-ROBUST-2" in wanted, stop=lambda f: f.rule in wanted)
        result = fuzz(BROKEN[case.name], options)
    hits = [f.elapsed for f in result.findings if f.rule in wanted]
    note = f"{result.executions} inputs"
    if result.errors:
        note += f"; harness: {result.errors[0][:80]}"
    return Detection(bool(hits), min(hits) if hits else None,
                    [f.rule for f in result.findings], note)


def cell(outcome: Detection | None, mechanism: str, case: BrokenCase) -> str:
    if outcome is None:
        return "not run"
    if mechanism in PROBES:
        got = outcome.rules[0] if outcome.rules else "no result"
        must = "PASS" if mechanism == "control" else case.target.expect
        mark = "✓" if outcome.caught else f"**✗ must be {must}**"
        return f"`{outcome.note}`: {got} {mark}"
    if mechanism == "corpus":
        head = "**caught**" if outcome.caught else "missed"
        rules = ", ".join(outcome.rules[:4]) + (" …" if len(outcome.rules) > 4 else "")
        return f"{head} ({outcome.note}; {rules or 'no failures'}; run {outcome.seconds:.0f} s)"
    if outcome.caught:
        return f"**{outcome.seconds:.1f} s** ({', '.join(dict.fromkeys(outcome.rules))})"
    found = ", ".join(dict.fromkeys(outcome.rules)) or "nothing"
    return f"missed (found {found}; {outcome.note})"


def reference_lines(tool: str, seconds: float, seed: int) -> list[str]:
    """The reference's result: a summary line, then every finding as its scenario."""
    if tool == "hunt":
        result = hunt("reference", HuntSettings(seconds=seconds, seed=seed, database="memory"))
        ratios = ""
        if result.linear is not None:
            ratios = ", linear-time ratio n -> 8n: " + ", ".join(
                f"{k.removeprefix('ratio_')} {v:g}" for k, v in result.linear.metrics.items()
                if k.startswith("ratio"))
        head = (f"- `scrubcheck hunt --scrubber reference --time {seconds:g} --seed {seed}`: "
                f"**{len(result.findings)} findings** in {result.seconds:g} s "
                f"({result.examples:,} cases in {result.batches} Hypothesis runs{ratios})")
        findings = result.findings
    else:
        with tempfile.TemporaryDirectory() as work:
            result = fuzz("reference", FuzzSettings(seconds=seconds, seed=seed,
                                                    work_dir=Path(work)))
        errors = f"; harness problems: {result.errors}" if result.errors else ""
        head = (f"- `scrubcheck fuzz --scrubber reference --time {seconds:g} --seed {seed}`: "
                f"**{len(result.findings)} findings** in {result.seconds:g} s "
                f"({result.executions:,} inputs executed{errors})")
        findings = result.findings
    lines = [head]
    for finding in findings:
        lines += ["", f"  {finding.violation.level} {finding.rule} ({finding.violation.check})"
                  f" after {finding.elapsed:g} s:", "", "  ```yaml",
                  *("  " + line for line in finding_yaml(finding).splitlines()), "  ```"]
    return lines


def run_marks(rows: list[tuple[BrokenCase, dict[str, Detection | None]]],
              reference_run: str) -> dict[str, str]:
    """A letter per invocation that measured something in the table, in order of use."""
    stamps = [o.run for _, outcomes in rows for o in outcomes.values() if o is not None]
    return {stamp: chr(ord("A") + i)
            for i, stamp in enumerate(dict.fromkeys([*stamps, reference_run]))}


def write_report(path: Path, rows: list[tuple[BrokenCase, dict[str, Detection | None]]],
                 reference: list[str], reference_run: str, args: argparse.Namespace) -> None:
    marks = run_marks(rows, reference_run)

    def marked(outcome: Detection | None, mechanism: str, case: BrokenCase) -> str:
        text = cell(outcome, mechanism, case)
        return f"{text} [{marks[outcome.run]}]" if outcome is not None and len(marks) > 1 \
            else text

    lines = [
        "# Detection table: which mechanism catches which broken scrubber",
        "",
        f"Generated by `python benchmarks/detection.py` (seed {args.seed}, hunt/fuzz limit "
        f"{args.time:g} s each) on {platform.python_implementation()} "
        f"{platform.python_version()}, {os.cpu_count()} CPUs. The measurements come from "
        + ("one run:" if len(marks) == 1 else "these runs (the letter after each cell):"),
        "",
        *(f"- {'' if len(marks) == 1 else f'**{letter}**: '}{stamp}"
          for stamp, letter in marks.items()),
        "",
        "Each broken scrubber (`scrubcheck.scrubbers.broken`) carries one bug seen in the "
        "field (its source: an anchor of [docs/field.md](../docs/field.md)); the self-test "
        "ones are the reference scrubber with that one bug added. "
        "**control** / **target**: the scenario it must still pass (what it does right) and "
        "the scenario of its bug, which must report the bug's rule (both listed in "
        "`scrubcheck.hunt.selftest`; a `--chunking` runs that chunking alone). A broken "
        "scrubber that fails its control, or passes its target, makes the other columns "
        "meaningless for its bug. A mechanism *catches* a bug when it reports one of the "
        "bug's rules. "
        "**corpus**: `scrubcheck run` over the shipped corpus (without the `long` scenarios, "
        "2 random chunkings, the linear-time check on), with the rules it reported (most "
        "frequent first) and the run's duration. **hunt** / **fuzz**: seconds until the bug's "
        "rule was first reported (for a leak-type bug: R-LEAK-1 or R-TRUNC-1), before "
        "shrinking, and every rule reported by then; both stop at that point.",
        "",
        "| broken scrubber | bug (seen in) | leak-type | control (must pass) | "
        "target (must fail) | corpus run | hunt | fuzz |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for case, outcomes in rows:
        seen = ", ".join(f"[{a.split('#')[1]}](../{a})" for a in case.source.split(", "))
        lines.append(f"| `{case.name}` | {case.bug} ({seen}) | "
                     f"{'yes' if case.leak else 'no'} | "
                     + " | ".join(marked(outcomes.get(m), m, case) for m in MECHANISMS) + " |")
    probed = sum(1 for _, o in rows if all(o.get(p) and o[p].caught for p in PROBES))
    caught_by_one = sum(1 for _, o in rows if any(o.get(m) and o[m].caught for m in CATCHERS))
    leak_rows = [(c, o) for c, o in rows if c.leak]
    fast = sum(1 for _, o in leak_rows
               if all(o.get(m) and o[m].caught and o[m].seconds <= 60 for m in ("hunt", "fuzz")))
    lines += [
        "",
        f"Control passed and target failed with the bug's rule: {probed} of {len(rows)}. "
        f"Caught by at least one mechanism: {caught_by_one} of {len(rows)}. "
        f"Leak-type bugs caught by both hunt and fuzz within 60 s: {fast} of {len(leak_rows)}.",
        "",
        "## The reference scrubber (must find nothing)",
        "",
        "A finding here is a bug of the reference or a gap in SPEC (the stream model "
        "computes its expectation from SPEC alone); each is reported for a decision before "
        "its scenario joins the corpus."
        + (f" Measured by run {marks[reference_run]}." if len(marks) > 1 else ""),
        "",
        *reference,
        "",
        "Earlier findings against the reference, each fixed and pinned by corpus scenarios "
        "(see SPEC.md's changelog):",
        "",
        *(f"- {finding}" for finding in FIXED_FINDINGS),
        "",
    ]
    path.write_text("\n".join(lines), encoding="utf-8")


#: what earlier runs of this benchmark found in the reference, and where it is pinned now
FIXED_FINDINGS = (
    "hunt, seed 1, R-LEAK-1: `<|channel|>analysis<think>…</think><|message|>…` showed the "
    "harmony analysis channel (the partial left by a failed longer match was released before "
    "the removed block); SPEC 1.1.0 R-TAG-1; scenarios `split-spliced-after-failed-longer-match`"
    ", `split-spliced-after-failed-longer-match-dead`.",
    "hunt, seed 1, R-TRUNC-1: a stream cut right after a backtick turned reasoning into a code "
    "span; SPEC 1.1.0 R-CODE-6 (a run at the cut closes no span outside a block); scenarios "
    "`trunc-span-closing-run-at-cut`, `trunc-span-closing-run-at-cut-content-filter`, "
    "`trunc-span-closed-before-cut-stays-code`, `trunc-block-close-in-span-at-cut`.",
    "hunt, seed 1, R-ROBUST-2 on a loaded machine: the linear-time check abandoned the 8n run "
    "at 16x from one quiet short sample; the check now abandons at 32x and measures again.",
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--time", type=float, default=60.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--only", action="append", metavar="NAME")
    parser.add_argument("--skip", action="append", choices=(*MECHANISMS, "reference"),
                        default=[])
    parser.add_argument("--out", type=Path, default=ROOT / "reports" / "detection.md")
    parser.add_argument("--update", action="store_true",
                        help="keep earlier measurements of what is not measured now")
    args = parser.parse_args(argv)
    stamp = run_stamp(sys.argv[1:] if argv is None else argv)
    kept_path = cache_dir() / "detection.json"
    kept = json.loads(kept_path.read_text()) if args.update and kept_path.exists() else {}
    if "fuzz" not in args.skip and atheris_problem():
        print(f"detection: {atheris_problem()}", file=sys.stderr)
        return 2
    scenarios = load_corpus().by_id()
    cases = [c for c in ALL_CASES if not args.only or c.name in args.only]
    if args.update:
        cases = list(ALL_CASES)
    rows = []
    for case in cases:
        outcomes: dict[str, Detection | None] = {}
        for mechanism in MECHANISMS:
            previous = kept.get(case.name, {}).get(mechanism)
            if mechanism in args.skip or (args.only and case.name not in args.only):
                outcomes[mechanism] = Detection(**previous) if previous else None
                continue
            if mechanism in PROBES:
                outcome = probe_detection(case, mechanism, scenarios)
            elif mechanism == "corpus":
                outcome = corpus_detection(case, args.seed)
            elif mechanism == "hunt":
                outcome = hunt_detection(case, args.time, args.seed)
            else:
                outcome = fuzz_detection(case, args.time, args.seed)
            outcome.run = stamp
            outcomes[mechanism] = outcome
            print(f"{case.name:20} {mechanism:7} {cell(outcome, mechanism, case)}", flush=True)
        rows.append((case, outcomes))
        kept[case.name] = {m: asdict(o) for m, o in outcomes.items() if o is not None}
    if "reference" in args.skip:
        reference = kept.get("reference lines", [])
        reference_run = kept.get("reference run", "")
    else:
        reference = [line for tool in ("hunt", "fuzz") if tool not in args.skip
                     for line in reference_lines(tool, args.time, args.seed)]
        reference_run = stamp
    kept["reference lines"], kept["reference run"] = reference, reference_run
    kept_path.parent.mkdir(parents=True, exist_ok=True)
    kept_path.write_text(json.dumps(kept, indent=1))
    for line in reference:
        print(line, flush=True)
    write_report(args.out, rows, reference, reference_run, args)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
