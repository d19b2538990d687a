"""Measure how many of the reference scrubber's mutants `scrubcheck hunt` finds.

    python benchmarks/hunt_mutants.py                      # seed-0 sample of 120: ~25 min, 2 cores
    python benchmarks/hunt_mutants.py --examples 1000 --mutant ID --mutant ID

`scrubcheck mutate` asks whether the *corpus* tells each mutant of the reference
apart from the reference; this asks the same of the *hunt*, whose generators are
meant to reach the shapes the corpus was written for and the ones nobody wrote
down. A mutant the corpus kills and the hunt misses names a shape the generators
never produce: that is how gaps in the generators are found and how a new
generator is shown to close one.

Each mutant (the same seeded sample as `scrubcheck mutate`, listed equivalents left
out) is copied as its own package and hunted with a fixed number of cases and a
fixed seed (`--max-examples`, `--seed`, an in-memory example database and no
linear-time measurement), so two runs on any machine try the same streams and a
change of the generators is measured by the change in the table, not by luck. A
mutant is *found* when the hunt reports any finding at all, or refuses to run it
because it does not load (the unmutated copy, hunted the same way first, must load
and report nothing). The table goes to
reports/hunt-mutants.md.
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from checkout import measured_commit
from tabulate import tabulate

from scrubcheck.mutation.equivalents import load_equivalents
from scrubcheck.mutation.mutants import Mutant, package_copy, population
from scrubcheck.mutation.session import reference_package

ROOT = Path(__file__).resolve().parent.parent
#: wall-clock seconds one hunt may take before it is stopped and reported as such
HUNT_LIMIT_S = 900
#: the first line of a saved finding: `# MUST R-LEAK-1 (no-leak) found by hunt ...`
FINDING_HEAD = re.compile(r"^# (?:MUST|SHOULD) (?P<rule>R-[A-Z]+-\d+) \(", re.MULTILINE)


@dataclass(frozen=True)
class Hunted:
    """What one hunt of one package reported."""

    returncode: int | None  # None: stopped at HUNT_LIMIT_S
    rules: tuple[str, ...]  # of every finding, first seen first
    seconds: float
    detail: str = ""  # the end of the hunt's output when it failed to run

    @property
    def refused(self) -> bool:
        """Exit 2: scrubcheck would not hunt it, because the package does not load. The
        unmutated copy loads with the same command line, so a mutant refused is told apart."""
        return self.returncode == 2

    @property
    def found(self) -> bool:
        return bool(self.rules) or self.refused

    @property
    def broken(self) -> bool:
        """The hunt itself failed (a crash, stopped at the limit): nothing is known."""
        return self.returncode is None or self.returncode not in (0, 1, 2)


def hunt_package(package: Path, changed: dict[str, str], attr: str, name: str, work: Path,
                 args: argparse.Namespace) -> Hunted:
    """Copy `package` as module `name` with `changed` files into `work` and hunt it."""
    findings = work / f"{name}-findings"
    command = [str(Path(sys.executable).with_name("scrubcheck")), "hunt",
               "--scrubber", f"{name}:{attr}", "--max-examples", str(args.examples),
               "--seed", str(args.hunt_seed), "--database", "memory", "--no-linear",
               "--level", "should", "--timeout", "5", "--out", str(findings)]
    env = {**os.environ, "PYTHONPATH": str(work)}
    started = time.monotonic()
    try:
        with package_copy(package, changed, work / name):
            done = subprocess.run(command, capture_output=True, text=True, env=env,
                                  timeout=HUNT_LIMIT_S)
    except subprocess.TimeoutExpired:
        return Hunted(None, (), round(time.monotonic() - started, 1),
                      f"stopped after {HUNT_LIMIT_S} s")
    seconds = round(time.monotonic() - started, 1)
    rules: list[str] = []
    for path in sorted(findings.glob("*.yaml")) if findings.is_dir() else ():
        for match in FINDING_HEAD.finditer(path.read_text(encoding="utf-8")):
            if match["rule"] not in rules:
                rules.append(match["rule"])
    tail = " | ".join((done.stderr or done.stdout).strip().splitlines()[-3:])
    return Hunted(done.returncode, tuple(rules), seconds, f"exit {done.returncode}: {tail}")


def chosen_mutants(args: argparse.Namespace, package: Path) -> tuple[list[Mutant], int]:
    """The mutants to hunt and how many listed equivalents were left out."""
    pop = population(package)
    if args.mutant:
        try:
            mutants = pop.chosen(args.mutant)
        except LookupError as exc:
            raise SystemExit(str(exc)) from None
    else:
        mutants = pop.sample(args.sample, args.seed).mutants
    equivalents = load_equivalents(package / "mutation-equivalents.yaml")
    kept = [m for m in mutants if m.id not in equivalents]
    return kept, len(mutants) - len(kept)


def verdict(hunted: Hunted) -> str:
    if hunted.broken:
        return f"hunt failed ({hunted.detail})"
    if hunted.refused:
        return f"**found**: refused at load ({hunted.detail})"
    if hunted.found:
        return "**found**: " + ", ".join(hunted.rules)
    return "missed"


def write_report(path: Path, rows: list[tuple[Mutant, Hunted]], baseline: Hunted,
                 left_out: int, args: argparse.Namespace, wall_s: float) -> None:
    found = sum(1 for _, h in rows if h.found)
    broken = sum(1 for _, h in rows if h.broken)
    command = shlex.join(["python", "benchmarks/hunt_mutants.py", *args.argv])
    selection = (f"the {len(args.mutant)} mutants asked for" if args.mutant else
                 f"the seed-{args.seed} sample of {args.sample} (`scrubcheck mutate "
                 f"--sample {args.sample} --seed {args.seed}`)")
    table = [(n, f"{m.site.file}:{m.site.line}", m.site.operator.rpartition("/")[2],
              f"`{m.change}`", verdict(h), h.seconds) for n, (m, h) in enumerate(rows, 1)]
    lines = [
        "# Hunt against the reference's mutants",
        "",
        f"Generated by `{command}` on {time.strftime('%Y-%m-%d', time.gmtime())} at commit "
        f"{measured_commit()}, CPython {sys.version.split()[0]}, in {wall_s:.0f} s.",
        "",
        f"Mutants: {selection}, without the {left_out} listed as equivalent in "
        "scrubbers/reference/mutation-equivalents.yaml. Each is hunted with "
        f"`scrubcheck hunt --max-examples {args.examples} --seed {args.hunt_seed} "
        "--database memory --no-linear --level should`: the same "
        f"{args.examples} cases for every mutant, on any machine. A mutant is found "
        "when the hunt reports any finding (the rules are those of all its findings) or "
        "refuses to run it because it does not load (exit 2).",
        "",
        f"**The hunt finds {found} of {len(rows)} mutants** "
        f"({found / len(rows):.0%})" if rows else "**No mutant hunted.**",
        "",
        f"The unmutated copy, hunted the same way, reports nothing ({baseline.seconds} s). "
        f"Hunts that failed to run: {broken}.",
        "",
        tabulate(table, headers=("#", "where", "operator", "change", "hunt", "s"),
                 tablefmt="github"),
        "",
    ]
    path.write_text("\n".join(lines), encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sample", type=int, default=120)
    parser.add_argument("--seed", type=int, default=0, help="seed of the mutant sample")
    parser.add_argument("--mutant", action="append", metavar="ID", default=[])
    parser.add_argument("--examples", type=int, default=3000, help="cases per hunt")
    parser.add_argument("--hunt-seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--out", type=Path, default=ROOT / "reports" / "hunt-mutants.md")
    args = parser.parse_args(argv)
    args.argv = sys.argv[1:] if argv is None else argv
    package, attr = reference_package()
    mutants, left_out = chosen_mutants(args, package)
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="scrubcheck-hunt-mutants-") as tmp:
        work = Path(tmp)
        baseline = hunt_package(package, {}, attr, "scrubcheck_hunted_baseline", work, args)
        print(f"baseline: {verdict(baseline)} in {baseline.seconds} s", flush=True)
        if baseline.returncode != 0 or baseline.found:
            print("the unmutated reference must pass the hunt; nothing measured",
                  file=sys.stderr)
            return 1

        def one(item: tuple[int, Mutant]) -> Hunted:
            number, mutant = item
            hunted = hunt_package(package, {mutant.site.file: mutant.code}, attr,
                                  f"scrubcheck_hunted_{number}", work, args)
            print(f"[{number}/{len(mutants)}] {mutant.site.file}:{mutant.site.line} "
                  f"{verdict(hunted)} in {hunted.seconds} s", flush=True)
            return hunted

        with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            results = list(pool.map(one, enumerate(mutants, 1)))
    rows = list(zip(mutants, results, strict=True))
    write_report(args.out, rows, baseline, left_out, args, time.monotonic() - started)
    found = sum(1 for _, h in rows if h.found)
    print(f"found {found} of {len(rows)}; wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
