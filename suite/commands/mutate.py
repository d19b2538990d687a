"""`scrubcheck mutate`: mutation testing of the reference scrubber, the corpus run as the test.

A corpus that the reference passes proves little unless it also fails a reference with
one thing wrong. This command samples mutants of the reference (cosmic-ray's operators,
uniformly over its modules, by seed), runs the corpus against each and writes
`reports/mutation.md`: killed, survived (with the diff), equivalent (with the reason,
from `scrubbers/reference/mutation-equivalents.yaml`) and the time. A command rather
than a script, because a corpus author needs it to know whether a new scenario pulls
its weight, and CI can gate on it.

Exit 0 when the kill rate over non-equivalent mutants reaches `--goal` and no listed
equivalent was killed, 1 otherwise, 2 on usage errors, corpus errors, a malformed
equivalents file, or when the unmutated reference does not pass the oracle.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from scrubcheck.commands.options import (
    add_corpus_option,
    add_jobs_option,
    add_level_option,
    add_out_option,
    add_seed_option,
    add_timeout_option,
    usage_for,
)
from scrubcheck.corpus import load_corpus, select
from scrubcheck.runner import RunSettings

if TYPE_CHECKING:  # cosmic-ray is an optional dependency: imported where used
    from scrubcheck.mutation.mutants import Population, Sample
    from scrubcheck.mutation.oracle import Oracle
    from scrubcheck.mutation.session import Session

NAME = "mutate"
HELP = "mutation-test the reference scrubber: does the corpus kill its mutants?"
DEFAULT_REPORT = Path("reports/mutation.md")
_usage = usage_for(NAME)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--sample", type=int, default=120, metavar="N",
                        help="mutants to draw (default 120)")
    add_seed_option(parser, "the sample and of the random chunkings")
    parser.add_argument("--file", action="append", metavar="NAME",
                        help="mutate only this module of the reference, e.g. spans.py "
                             "(repeatable; default: every module but __init__.py)")
    parser.add_argument("--mutant", action="append", metavar="ID",
                        help="judge only the mutant with this id (repeatable; no sampling)")
    parser.add_argument("--list", action="store_true",
                        help="print the sampled mutants (id and change) and stop")
    add_corpus_option(parser)
    parser.add_argument("--area", action="append", metavar="A", help="only this area (repeatable)")
    parser.add_argument("--id", action="append", metavar="GLOB",
                        help="only these scenario ids (repeatable)")
    add_jobs_option(parser, "worker processes of each corpus run", default=2)
    parser.add_argument("--random-chunkings", type=int, default=2, metavar="N",
                        help="seeded random chunkings per scenario (default 2)")
    parser.add_argument("--full-chunkings", action="store_true",
                        help="the whole chunking matrix of `scrubcheck run` (default: the "
                             "matrix's --quick caps: every scenario and check, fewer "
                             "split points and cuts)")
    add_level_option(parser, effect="kill a mutant", default="should",
                     default_text="should: the reference passes every rule, so any broken "
                                  "one tells the mutant apart")
    add_timeout_option(parser, 60.0, "seconds per scenario in the baseline run (default 60)")
    parser.add_argument("--min-timeout", type=float, default=10.0, metavar="S",
                        help="least seconds per scenario for a mutant (default 10)")
    parser.add_argument("--timeout-factor", type=float, default=10.0, metavar="X",
                        help="a mutant's scenario times out after X times the slowest "
                             "scenario of its batch in the baseline (default 10)")
    parser.add_argument("--equivalents", type=Path, metavar="FILE",
                        help="the equivalent mutants and why (default: "
                             "mutation-equivalents.yaml beside the reference)")
    add_out_option(parser, f"write the Markdown report there (default {DEFAULT_REPORT} for a "
                   "sampled run over the whole corpus; other runs write none unless asked)",
                   metavar="FILE", old=("--report",))
    parser.add_argument("--goal", type=float, default=0.95, metavar="RATE",
                        help="kill rate over non-equivalent mutants that passes (default 0.95)")


def run(args: argparse.Namespace) -> int:
    problem = _bad_numbers(args)
    if problem:
        return _usage(problem)
    try:
        from scrubcheck.mutation.equivalents import EquivalentsError, load_equivalents
        from scrubcheck.mutation.mutants import MutationToolMissing, population
        from scrubcheck.mutation.oracle import OracleError
        from scrubcheck.mutation.session import reference_package, run_session
    except ImportError as exc:  # pragma: no cover - cosmic-ray's own dependencies
        return _usage(f"{exc}; pip install 'scrubcheck[mutation]'")
    package, attr = reference_package()
    equivalents_path = args.equivalents or package / "mutation-equivalents.yaml"
    try:
        pop = population(package, args.file)
        equivalents = load_equivalents(equivalents_path)
    except (MutationToolMissing, FileNotFoundError, EquivalentsError) as exc:
        return _usage(str(exc))
    chosen = _choose_mutants(pop, args)
    if isinstance(chosen, str):
        return _usage(chosen)
    if args.list:
        for mutant in chosen.mutants:
            mark = " (listed equivalent)" if mutant.id in equivalents else ""
            print(f"{mutant.id}  line {mutant.site.line}: {mutant.change}{mark}")
        return 0
    oracle = _oracle(args)
    if isinstance(oracle, str):
        return _usage(oracle)
    try:
        session = run_session(pop, chosen.mutants, oracle, seed=args.seed,
                              equivalents=equivalents, attr=attr,
                              passed_over=chosen.passed_over,
                              say=lambda line: print(line, flush=True))
    except OracleError as exc:
        return _usage(str(exc))
    return _conclude(session, args, equivalents_path)


def _bad_numbers(args: argparse.Namespace) -> str | None:
    """What is wrong with the numeric options, if anything (a usage error)."""
    if args.sample < 1 or args.jobs < 1 or args.random_chunkings < 0:
        return "--sample and --jobs must be at least 1, --random-chunkings at least 0"
    if min(args.timeout, args.min_timeout, args.timeout_factor) <= 0 or not 0 < args.goal <= 1:
        return "timeouts and --timeout-factor must be positive, --goal in (0, 1]"
    return None


def _choose_mutants(pop: Population, args: argparse.Namespace) -> Sample | str:
    """The mutants to judge and those the sample passed over, or why there are none:
    the ids asked for with --mutant, else a seeded sample."""
    if args.mutant:
        from scrubcheck.mutation.mutants import Sample

        try:
            return Sample(pop.chosen(args.mutant), [])
        except LookupError as exc:
            return str(exc)
    return pop.sample(args.sample, args.seed)


def _oracle(args: argparse.Namespace) -> Oracle | str:
    """The corpus run that judges each mutant, or why it cannot be built: a mutant is
    never judged against a partial corpus or an empty selection."""
    from scrubcheck.mutation.oracle import Oracle

    corpus = load_corpus(list(args.corpus) if args.corpus else None)
    for error in corpus.errors:
        print(error, file=sys.stderr)
    if corpus.errors:
        return ("the corpus has errors (scrubcheck lint); a mutant cannot be judged "
                "against a partial corpus")
    scenarios = select(corpus.scenarios, areas=args.area, ids=args.id)
    if not scenarios:
        return f"no scenario matches the selection ({len(corpus.scenarios)} loaded)"
    settings = RunSettings(seed=args.seed, timeout_s=args.timeout, level=args.level,
                           jobs=args.jobs, random_count=args.random_chunkings,
                           linear_check=False)
    if not args.full_chunkings:
        from scrubcheck.matrix.runs import matrix_settings

        settings = replace(matrix_settings(settings, quick=True),
                           random_count=args.random_chunkings)
    return Oracle(scenarios, settings, min_timeout_s=args.min_timeout,
                  timeout_factor=args.timeout_factor)


def _conclude(session: Session, args: argparse.Namespace, equivalents_path: Path) -> int:
    """Print the kill rate and stale entries, write the report, and give the exit code."""
    from scrubcheck.mutation.session import CONTRADICTED, EQUIVALENT, SURVIVED

    print(f"kill rate {_percent(session.kill_rate)} over {session.non_equivalent} "
          f"non-equivalent mutants ({session.count(EQUIVALENT)} equivalent, "
          f"{session.count(SURVIVED)} survived) in {session.wall_s:.0f} s")
    for entry in session.stale:
        print(f"stale equivalents entry (no such mutant now): {entry.id} "
              f"({equivalents_path}:{entry.line})", file=sys.stderr)
    _write_report(session, args)
    contradicted = session.count(CONTRADICTED)
    if contradicted:
        print(f"{contradicted} mutants listed as equivalent were killed: their entries in "
              f"{equivalents_path} are wrong", file=sys.stderr)
    ok = session.kill_rate is not None and session.kill_rate >= args.goal and not contradicted
    return 0 if ok else 1


def _write_report(session: Session, args: argparse.Namespace) -> None:
    """The Markdown report: where --out says, else the committed one for a whole run."""
    from scrubcheck.mutation.report_md import render

    whole_run = not (args.mutant or args.corpus or args.area or args.id)
    report = args.out or (DEFAULT_REPORT if whole_run else None)
    if report is None:
        return
    command = shlex.join(["scrubcheck", "mutate", *sys.argv[2:]]) if sys.argv[1:2] == [
        "mutate"] else "scrubcheck mutate"
    report.parent.mkdir(parents=True, exist_ok=True)
    report.write_text(render(session, command=command, goal=args.goal), encoding="utf-8")
    print(f"report: {report}")


def _percent(rate: float | None) -> str:
    return "n/a" if rate is None else f"{100 * rate:.1f}%"
