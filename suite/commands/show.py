"""`scrubcheck show`: one scenario, one scrubber, everything needed to see a failure.

Without `--chunking`: the scenario, the scrubber's output under every chunking
(grouped by identical output) and all check verdicts. With `--chunking NAME`
(as printed in a replay command: a chunking, `trunc@C` or `reuse:POISON`):
every feed() with what it returned and the cumulative output, flush(), a
splitter's reasoning channel, and the verdicts of that chunking's checks.
Whitespace is shown visibly (· ¶ → ←, escapes for invisible characters).
`scrubcheck show linear-time` repeats the once-per-run R-ROBUST-2 measurement.

The scrubber runs in one isolated worker, as in `scrubcheck run`: `--timeout`
wall-clock seconds, its stdout/stderr captured and shown apart, and a hang or a
crash reported with the stream it was on instead of taking `show` down.
Exit 0 when nothing fails at `--level` (as `scrubcheck run`: must by default, so a
scenario that fails only SHOULD rules exits 0 unless `--level should`), 1 when
something does (TIMEOUT and crashes at every level), 2 on usage errors.
"""

from __future__ import annotations

import argparse
import difflib
import sys
from collections.abc import Callable
from dataclasses import dataclass, field

from scrubcheck.adapters import Adapter, AdapterError, load_adapter
from scrubcheck.adapters.drive import (
    ScrubberError,
    Trace,
    drive,
    open_session,
    run_reused,
    run_stream,
    run_truncated,
)
from scrubcheck.checks import POISONS, visible
from scrubcheck.checks.names import Check
from scrubcheck.chunking import chunking_by_name, chunking_plan
from scrubcheck.claims import UnknownClass, claimed_class, place
from scrubcheck.commands.options import (
    add_claim_options,
    add_corpus_option,
    add_level_option,
    add_memory_limit_option,
    add_scrubber_option,
    add_seed_option,
    add_timeout_option,
    apply_formats,
    usage_for,
)
from scrubcheck.corpus import load_corpus
from scrubcheck.model import Scenario
from scrubcheck.reports.text import delta_list, output_excerpt
from scrubcheck.results import ScenarioResult
from scrubcheck.runner import (
    LINEAR_ID,
    RunSettings,
    load_scrubber,
    run_linear_check,
    run_scenario,
)
from scrubcheck.runner.judge import planned_run, stream_deltas
from scrubcheck.runner.pool import (
    Handler,
    Lost,
    Progress,
    Task,
    WorkerPool,
    name_memory_limit,
)
from scrubcheck.runner.stepnote import StepNoting

NAME = "show"
HELP = "show one scenario and what a scrubber makes of it, step by step"
_usage = usage_for(NAME)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("id", help="scenario id")
    add_scrubber_option(parser)
    parser.add_argument("--chunking", metavar="NAME",
                        help="recorded, whole, char, split@K, fixed-N, tags, random-I, "
                             "recorded+empty, trunc@C or reuse:POISON")
    add_seed_option(parser)
    add_corpus_option(parser)
    add_timeout_option(parser, 60.0, "wall-clock seconds before the scrubber is killed "
                       "(default 60)")
    add_memory_limit_option(parser, "the worker")
    add_level_option(parser, default_text="must, as for `scrubcheck run`")
    add_claim_options(parser)


@dataclass
class Replay:
    """What the worker saw, for the parent to print: the scrubber runs only in the worker."""

    unsupported: str | None = None
    groups: list[tuple[str, str, list[str]]] = field(default_factory=list)  # kind, text, names
    capped: dict[str, int] = field(default_factory=dict)
    title: str | None = None  # with --chunking: the selected stream(s)
    traces: list[tuple[str, Trace]] = field(default_factory=list)
    messages: list[str] = field(default_factory=list)
    result: ScenarioResult | None = None
    captured_output: str | None = None  # filled in by the pool


def run(args: argparse.Namespace) -> int:
    if args.timeout <= 0:
        return _usage("--timeout must be positive")
    failed = apply_formats(args, NAME)
    if failed is not None:
        return failed
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
        adapter = load_scrubber(args.scrubber, timeout_s=args.timeout,
                                memory_limit=args.memory_limit)
    except AdapterError as exc:
        return _usage(f"cannot load scrubber: {exc}")
    if args.chunking and not _known_selector(scenario, args.chunking, args.seed):
        return _usage(f"unknown chunking {args.chunking!r} (see --help)")
    try:  # SPEC section 12: the scenario as the claimed class judges it
        placed = place(scenario, claimed_class(adapter.claims, args.claim))
    except UnknownClass as exc:
        return _usage(exc.args[0])
    if placed.scenario is None:
        print_scenario(scenario)
        print(f"\nBEYOND CLAIM for {adapter.spec}: {placed.beyond}; nothing was run "
              "(--claim generic judges it)")
        return 0
    scenario = placed.scenario

    print_scenario(scenario)
    print(f"\nscrubber: {adapter.spec} ({adapter.kind})")
    settings = RunSettings(seed=args.seed, timeout_s=args.timeout,
                           corpus_paths=tuple(str(p) for p in args.corpus or ()),
                           memory_limit=args.memory_limit)

    def make_handler():
        worker_adapter = load_adapter(args.scrubber)

        def handle(task: Task, note: Progress) -> Replay:
            assert task.scenario is not None
            return replay(worker_adapter, task.scenario, args.chunking, settings, note)

        return handle

    outcome = _in_worker(Task(0, scenario, args.timeout), make_handler, args.memory_limit)
    if isinstance(outcome, Lost):
        return print_lost(outcome, scenario, args.seed)
    if isinstance(outcome, str):
        print(f"\nERROR: harness error in the worker:\n{outcome}")
        return 1
    if outcome.unsupported is None:
        if args.chunking:
            print_steps(outcome)
        else:
            print_outputs(outcome)
    assert outcome.result is not None
    print_verdicts(outcome.result)
    print_captured(outcome.captured_output)
    return 1 if outcome.result.fails_at(args.level) else 0


def _in_worker(task: Task, make_handler: Callable[[], Handler[Replay]],
               memory_limit: int | None) -> Replay | str | Lost:
    """Run one task in an isolated worker: its payload, a harness traceback, or Lost."""
    got: list[Replay | str | Lost] = []
    with WorkerPool(1, make_handler, memory_limit=memory_limit) as pool:
        pool.run([task], lambda _, payload: got.append(payload),
                 lambda _, lost: got.append(lost))
    return got[0]


def replay(
    adapter: Adapter, scenario: Scenario, chunking: str | None, settings: RunSettings,
    note: Progress,
) -> Replay:
    """Run the scenario (in the worker) and keep what `show` prints."""
    noting = StepNoting(adapter, note)
    # StepNoting stands in for the Adapter by delegation (__getattr__), not by subclassing
    adapter, note = noting, noting.note  # type: ignore[assignment]
    vocabulary = scenario.context.vocabulary()
    seen = Replay(unsupported=adapter.unsupported_reason(scenario.context))
    if seen.unsupported is None:
        if chunking:
            _selected_traces(adapter, scenario, chunking, settings.seed, vocabulary, seen, note)
        else:
            _collect_outputs(adapter, scenario, settings.seed, vocabulary, seen, note)
    seen.result = run_scenario(adapter, scenario, settings, only=chunking, progress=note)
    name_memory_limit(seen.result, settings.memory_limit)
    return seen


def show_linear(args: argparse.Namespace) -> int:
    """The R-ROBUST-2 measurement for one scrubber, with its numbers."""
    try:
        adapter = load_scrubber(args.scrubber, timeout_s=args.timeout,
                                memory_limit=args.memory_limit)
    except AdapterError as exc:
        return _usage(f"cannot load scrubber: {exc}")
    print(f"linear-time check (R-ROBUST-2) of {adapter.spec} ({adapter.kind}), "
          f"at most {args.timeout:g} s")

    def make_handler():
        worker_adapter = load_adapter(args.scrubber)

        def handle(task: Task, note: Progress) -> ScenarioResult:
            note(LINEAR_ID)
            return run_linear_check(worker_adapter, budget_s=task.timeout_s)

        return handle

    outcome = _in_worker(Task(-1, None, args.timeout), make_handler, args.memory_limit)
    if isinstance(outcome, Lost):
        return print_lost(outcome, None, args.seed)
    if isinstance(outcome, str):
        print(f"\nERROR: harness error in the worker:\n{outcome}")
        return 1
    assert isinstance(outcome, ScenarioResult)
    for key, value in outcome.metrics.items():
        print(f"  {key}: {value:g}")
    print_verdicts(outcome)
    print_captured(outcome.captured_output)
    return 1 if outcome.fails_at(args.level) else 0


def print_lost(lost: Lost, scenario: Scenario | None, seed: int) -> int:
    """A worker that hung or died: the reason, the stream it was on, what it printed."""
    kind = "TIMEOUT" if lost.kind == "timeout" else "ERROR"
    where = f" while running {lost.label}" if lost.label else ""
    killed = "; the worker was killed" if lost.kind == "timeout" else ""
    print(f"\n{kind}: {lost.detail}{where}{killed}")
    stream = (lost.label or "").partition(" at ")[0]
    if scenario is not None and stream and stream != "setup":
        own = planned_run(scenario, stream)
        try:
            deltas = own.deltas if own is not None else stream_deltas(scenario, stream, seed)
        except ValueError:
            deltas = None
        if deltas is not None:
            print(f"  stream {stream} ({len(deltas)} deltas): {delta_list(list(deltas))}")
    print_captured(lost.output)
    return 1


def print_captured(captured: str | None) -> None:
    """The scrubber's own stdout/stderr, apart from scrubcheck's (escapes made visible)."""
    if not captured:
        return
    print("\nthe scrubber's stdout/stderr (captured; control characters escaped):")
    for line in output_excerpt(captured, head=10, tail=20):
        print(f"  | {line}")


def _known_selector(scenario: Scenario, name: str, seed: int) -> bool:
    if planned_run(scenario, name) is not None:
        return True
    if name.startswith("trunc@"):
        return name[6:].isdigit() and int(name[6:]) <= len(scenario.text)
    if name.startswith("reuse:"):
        return name[6:] in POISONS
    try:
        chunking_by_name(scenario, scenario.context.vocabulary(), name, seed)
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


def _collect_outputs(
    adapter: Adapter, scenario: Scenario, seed: int, vocabulary, seen: Replay, note: Progress
) -> None:
    """Every chunking's output, grouped so that a chunking-dependent scrubber stands out."""
    plan = chunking_plan(scenario, vocabulary, seed)
    groups: dict[tuple[str, str], list[str]] = {}
    cache: dict[tuple[str, ...], Trace] = {}
    for chunking in plan.chunkings:
        if chunking.deltas not in cache:
            note(chunking.name)
            cache[chunking.deltas] = run_stream(adapter, scenario.context, chunking.deltas)
        trace = cache[chunking.deltas]
        if trace.ok:
            key = ("output", trace.output)
        else:
            error = trace.error
            key = ("error", f"{error.where()} raised {error.summary}" if error else "no flush")
        groups.setdefault(key, []).append(chunking.name)
    seen.groups = [(kind, text, names) for (kind, text), names in groups.items()]
    seen.capped = dict(plan.capped)


def print_outputs(seen: Replay) -> None:
    groups, count = seen.groups, sum(len(names) for _, _, names in seen.groups)
    distinct = "one output" if len(groups) == 1 else f"{len(groups)} different outputs"
    print(f"\noutputs under {count} chunkings ({distinct}):")
    for kind, text, names in groups:
        shown = ", ".join(names[:12]) + (f", … ({len(names) - 12} more)" if len(names) > 12
                                        else "")
        print(f"  {q(text) if kind == 'output' else '!! ' + text}")
        print(f"      from {len(names)}: {shown}")
    for family, capped in seen.capped.items():
        print(f"  (long input: {capped} {family} variants not run)")


def _selected_traces(
    adapter: Adapter, scenario: Scenario, name: str, seed: int, vocabulary, seen: Replay,
    note: Progress,
) -> None:
    """The trace(s) of a chunking, trunc@C or reuse:P selector."""
    note(name)
    own = planned_run(scenario, name)
    if own is not None:  # a run a registry check plans for itself
        seen.title = f"run {name}, planned by a check of its own"
        seen.traces = [("stream", run_stream(adapter, own.context, own.deltas))]
        return
    if name.startswith("trunc@"):
        cut = int(name[6:])
        seen.title = (f"recorded deltas cut at input position {cut}, flushed with "
                      "finish_reason=length")
        seen.traces = [("stream", run_truncated(adapter, scenario.context,
                                                tuple(scenario.deltas), cut))]
        return
    if name.startswith("reuse:"):
        poison = name[6:]
        first, second, error = run_reused(adapter, scenario.context, (POISONS[poison][0],),
                                          tuple(scenario.deltas))
        if error is not None:
            seen.messages.append(f"open() raised {error.summary}")
        seen.title = (f"one scrubber object: the poison stream ({POISONS[poison][1]}), flush, "
                      "then the recorded deltas")
        if first is not None and second is not None:
            seen.traces = [("poison stream", first), ("stream", second)]
        elif first is not None:
            seen.traces = [("stream", first)]
        return
    chunking = chunking_by_name(scenario, vocabulary, name, seed)
    seen.title = f"chunking {name}"
    session = open_session(adapter, scenario.context)
    if isinstance(session, ScrubberError):
        seen.messages.append(f"open() raised {session.summary}")
        return
    seen.traces = [("stream", drive(session, chunking.deltas))]


def print_steps(seen: Replay) -> None:
    for message in seen.messages:
        print(message)
    print(f"\n{seen.title}:")
    for label, trace in seen.traces:
        if len(seen.traces) > 1:
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
        if failure.check == Check.EXCEPTION and failure.got:
            print("      " + failure.got.rstrip().replace("\n", "\n      "))
        print(f"      replay: {failure.replay}")
    if result.holdback is not None:
        hb = result.holdback
        print(f"  hold-back: mode {hb.mode}, most held at a cut {hb.max_held}, most lag behind "
              f"the output due {hb.max_lag_vs_reference}")
    for note in result.notes:
        print(f"  note: {note.splitlines()[0]}")
