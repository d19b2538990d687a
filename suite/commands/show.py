"""`scrubcheck show`: one scenario, one scrubber, everything needed to see a failure.

Without `--chunking`: the scenario, the scrubber's output under every chunking
(grouped by identical output) and all check verdicts. With `--chunking NAME`
(as printed in a replay command: a chunking, `trunc@C` or `reuse:POISON`):
every feed() with what it returned and the cumulative output, flush(), a
splitter's reasoning channel, and the verdicts of that chunking's checks.
Whitespace is shown visibly (· ¶ → ←, escapes for invisible characters).
`scrubcheck show linear-time` repeats the once-per-run R-ROBUST-2 measurement.
Exit 0 when the verdicts pass, 1 when they fail, 2 on usage errors.
"""

from __future__ import annotations

import argparse
import difflib
import signal
import sys
from contextlib import contextmanager
from pathlib import Path

from scrubcheck.adapters import Adapter, AdapterError, load_adapter
from scrubcheck.checks import POISONS, Trace, drive, run_stream, truncate_deltas, visible
from scrubcheck.checks.reuse import run_reuse
from scrubcheck.checks.trace import open_session
from scrubcheck.chunking import chunking_by_name, chunking_plan
from scrubcheck.corpus import load_corpus
from scrubcheck.model import Scenario
from scrubcheck.results import Outcome, ScenarioResult
from scrubcheck.runner import LINEAR_ID, RunSettings, run_linear_check, run_scenario
from scrubcheck.vocabulary import build_vocabulary

NAME = "show"
HELP = "show one scenario and what a scrubber makes of it, step by step"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("id", help="scenario id")
    parser.add_argument("--scrubber", default="reference", metavar="SPEC",
                        help="scrubber spec, as for `scrubcheck run` (default: reference)")
    parser.add_argument("--chunking", metavar="NAME",
                        help="recorded, whole, char, split@K, fixed-N, tags, random-I, "
                             "recorded+empty, trunc@C or reuse:POISON")
    parser.add_argument("--seed", type=int, default=0, metavar="N")
    parser.add_argument("--corpus", action="append", type=Path, metavar="PATH",
                        help="corpus file or directory (default: the shipped corpus)")
    parser.add_argument("--timeout", type=float, default=60.0, metavar="S",
                        help="give up on a scrubber that runs longer (default 60)")


class _Timeout(BaseException):  # not Exception: traces catch what scrubbers raise
    pass


@contextmanager
def _deadline(seconds: float):
    def expire(signum, frame):
        raise _Timeout

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def run(args: argparse.Namespace) -> int:
    if args.id == LINEAR_ID:
        return show_linear(args)
    try:
        corpus = load_corpus(list(args.corpus) if args.corpus else None)
    except FileNotFoundError as exc:
        return _usage(str(exc))
    for error in corpus.errors:  # the wanted scenario may sit in a file that did not load
        print(error, file=sys.stderr)
    scenario = corpus.by_id().get(args.id)
    if scenario is None:
        close = difflib.get_close_matches(args.id, list(corpus.by_id()), n=5)
        hint = f"; did you mean: {', '.join(close)}" if close else ""
        return _usage(f"no scenario {args.id!r} in the corpus{hint}")
    try:
        adapter = load_adapter(args.scrubber)
    except AdapterError as exc:
        return _usage(f"cannot load scrubber: {exc}")
    vocabulary = build_vocabulary(scenario.context.features)
    if args.chunking and not _known_selector(scenario, args.chunking, args.seed):
        return _usage(f"unknown chunking {args.chunking!r} (see --help)")

    print_scenario(scenario)
    print(f"\nscrubber: {adapter.spec} ({adapter.kind})")
    settings = RunSettings(seed=args.seed, timeout_s=args.timeout,
                           corpus_paths=tuple(str(p) for p in args.corpus or ()))
    label = ["setup"]
    try:
        with _deadline(args.timeout):
            unsupported = adapter.unsupported_reason(scenario.context)
            if unsupported is None:
                if args.chunking:
                    print_steps(adapter, scenario, args.chunking, args.seed, vocabulary)
                else:
                    print_outputs(adapter, scenario, args.seed, vocabulary)
            result = run_scenario(adapter, scenario, settings, only=args.chunking,
                                  progress=lambda at: label.__setitem__(0, at))
    except _Timeout:
        print(f"\nTIMEOUT: no result within {args.timeout:g} s (at {label[0]})")
        return 1
    print_verdicts(result)
    return 1 if result.outcome in (Outcome.FAIL, Outcome.ERROR, Outcome.TIMEOUT) else 0


def show_linear(args: argparse.Namespace) -> int:
    """The R-ROBUST-2 measurement for one scrubber, with its numbers."""
    try:
        adapter = load_adapter(args.scrubber)
    except AdapterError as exc:
        return _usage(f"cannot load scrubber: {exc}")
    print(f"linear-time check (R-ROBUST-2) of {adapter.spec} ({adapter.kind})")
    try:
        with _deadline(args.timeout):
            result = run_linear_check(adapter)
    except _Timeout:
        print(f"\nTIMEOUT: no result within {args.timeout:g} s")
        return 1
    for key, value in result.metrics.items():
        print(f"  {key}: {value:g}")
    print_verdicts(result)
    return 0 if result.outcome is Outcome.PASS else 1


def _usage(message: str) -> int:
    print(f"scrubcheck show: {message}", file=sys.stderr)
    return 2


def _known_selector(scenario: Scenario, name: str, seed: int) -> bool:
    if name.startswith("trunc@"):
        return name[6:].isdigit() and int(name[6:]) <= len(scenario.text)
    if name.startswith("reuse:"):
        return name[6:] in POISONS
    try:
        chunking_by_name(scenario, build_vocabulary(scenario.context.features), name, seed)
    except ValueError:
        return False
    return True


def q(text: str) -> str:
    return f'"{visible(text)}"'


def print_scenario(scenario: Scenario) -> None:
    ctx = scenario.context
    print(f"scenario {scenario.id}  ({scenario.location})")
    print(f"area: {scenario.area}   rules: {', '.join(scenario.rules)}")
    print(f"description: {' '.join(scenario.description.split())}")
    print(f"context: starts_in_reasoning={ctx.starts_in_reasoning} "
          f"inline_answer={ctx.inline_answer} finish_reason={ctx.finish_reason} "
          f"features=[{', '.join(ctx.features)}]")
    if scenario.source:
        print(f"source: {scenario.source}")
    print(f"deltas (recorded, {len(scenario.deltas)}):")
    for index, delta in enumerate(scenario.deltas):
        print(f"  [{index}] {q(delta)}")
    if scenario.visible is not None:
        print(f"expected (visible, compared under R-WS-1): {q(scenario.visible)}")
    elif scenario.acceptable:
        print("expected (any of, exactly):")
        for option in scenario.acceptable:
            print(f"  {q(option)}")
    else:
        print("expected: invariants only")
    print("reasoning (must never show):")
    for r in scenario.reasoning:
        print(f"  {q(r)}")


def print_outputs(adapter: Adapter, scenario: Scenario, seed: int, vocabulary) -> None:
    """Every chunking's output, grouped so that a chunking-dependent scrubber stands out."""
    plan = chunking_plan(scenario, vocabulary, seed)
    groups: dict[tuple[str, str], list[str]] = {}
    cache: dict[tuple[str, ...], Trace] = {}
    for chunking in plan.chunkings:
        if chunking.deltas not in cache:
            cache[chunking.deltas] = run_stream(adapter, scenario.context, chunking.deltas)
        trace = cache[chunking.deltas]
        if trace.ok:
            key = ("output", trace.output)
        else:
            error = trace.error
            key = ("error", f"{error.where()} raised {error.summary}" if error else "no flush")
        groups.setdefault(key, []).append(chunking.name)
    distinct = "one output" if len(groups) == 1 else f"{len(groups)} different outputs"
    print(f"\noutputs under {len(plan.chunkings)} chunkings ({distinct}):")
    for (kind, text), names in groups.items():
        shown = ", ".join(names[:12]) + (f", … ({len(names) - 12} more)" if len(names) > 12
                                        else "")
        print(f"  {q(text) if kind == 'output' else '!! ' + text}")
        print(f"      from {len(names)}: {shown}")
    for family, count in plan.capped.items():
        print(f"  (long input: {count} {family} variants not run)")


def _selected_trace(
    adapter: Adapter, scenario: Scenario, name: str, seed: int, vocabulary
) -> tuple[str, Trace | None, Trace | None]:
    """(title, first trace, second trace) for a chunking, trunc@C or reuse:P selector."""
    if name.startswith("trunc@"):
        cut = int(name[6:])
        deltas = truncate_deltas(tuple(scenario.deltas), cut)
        title = f"recorded deltas cut at input position {cut}, flushed with finish_reason=length"
        return title, run_stream(adapter, scenario.context.truncated(), deltas), None
    if name.startswith("reuse:"):
        poison = name[6:]
        first, second, error = run_reuse(adapter, scenario.context, tuple(scenario.deltas),
                                         poison)
        if error is not None:
            print(f"open() raised {error.summary}")
        title = (f"one scrubber object: the poison stream ({POISONS[poison][1]}), flush, then "
                 "the recorded deltas")
        return title, first, second
    chunking = chunking_by_name(scenario, vocabulary, name, seed)
    session = open_session(adapter, scenario.context)
    if not hasattr(session, "feed"):
        print(f"open() raised {session.summary}")
        return name, None, None
    return f"chunking {name}", drive(session, chunking.deltas), None


def print_steps(adapter: Adapter, scenario: Scenario, name: str, seed: int, vocabulary) -> None:
    title, first, second = _selected_trace(adapter, scenario, name, seed, vocabulary)
    print(f"\n{title}:")
    for label, trace in (("poison stream", first if second else None),
                         ("stream", second if second else first)):
        if trace is None:
            continue
        if second is not None:
            print(f" {label}:")
        print_trace(trace)


def print_trace(trace: Trace) -> None:
    print(f"  {'step':>5}  {'delta':<28} {'returned':<24} cumulative output")
    for index, delta in enumerate(trace.deltas):
        if index >= len(trace.returns):
            break
        print(f"  {index:>5}  {_cell(q(delta), 28)} {_cell(q(trace.returns[index]), 24)} "
              f"{_tail(trace.cumulative(index))}")
    if trace.flushed:
        print(f"  {'flush':>5}  {'':<28} {_cell(q(trace.returns[-1]), 24)} "
              f"{_tail(trace.output)}")
    for bad in trace.bad_returns:
        where = "flush()" if bad.step is None else f"feed() of delta {bad.step}"
        print(f"  !! {where} returned {bad.type_name}: {bad.shown}")
    if trace.error is not None:
        print(f"  !! {trace.error.where()} raised {trace.error.summary}")
        print("     " + trace.error.traceback.rstrip().replace("\n", "\n     "))
    print(f"  output: {q(trace.output)}")
    if trace.reasoning:
        print(f"  reasoning channel: {q(trace.reasoning)}")


def _cell(text: str, width: int) -> str:
    """`text` cut or padded to exactly `width` columns, so the step table lines up."""
    return (text if len(text) <= width else text[: width - 2] + "…\"").ljust(width)


def _tail(text: str, width: int = 60) -> str:
    shown = visible(text)
    return f'"{shown}"' if len(shown) <= width else f'…"{shown[-width:]}"'


def print_verdicts(result: ScenarioResult) -> None:
    checks = "1 check" if result.checks_run == 1 else f"{result.checks_run} checks"
    chunkings = "1 chunking" if result.chunkings_run == 1 else f"{result.chunkings_run} chunkings"
    print(f"\nverdict: {result.outcome.value}  ({checks} over {chunkings})")
    if result.reason:
        print(f"  {result.reason}")
    for failure in result.failures:
        step = "at flush()" if failure.step is None else f"at step {failure.step}"
        print(f"  {failure.level} {failure.rule} {failure.check} under {failure.chunking} "
              f"({step})")
        print(f"      {failure.detail}")
        if failure.check == "exception" and failure.got:
            print("      " + failure.got.rstrip().replace("\n", "\n      "))
        print(f"      replay: {failure.replay}")
    if result.holdback is not None:
        hb = result.holdback
        print(f"  hold-back: mode {hb.mode}, most held at a cut {hb.max_held}, most lag behind "
              f"the reference {hb.max_lag_vs_reference}")
    for note in result.notes:
        print(f"  note: {note.splitlines()[0]}")
