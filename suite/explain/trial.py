"""One failure as something to reproduce: a stream, the way it is run, and the test.

A failure in a report names a scenario, a check and the stream label it failed under
(`Evidence.chunking`: a chunking, `trunc@C`, `reuse:POISON`, `char`). A `Trial` turns
that into a `Candidate` (text, delta boundaries, context) and a `Mode` (how the
implementation is run on it: one stream, a second pass over the output, a reused
session, or one-character feeds for hold-back), so that the shrinker can try smaller
candidates and ask of each one question: does it still fail the same check, with the
same first wrong decision?

"The same check" is asked of the conductor that judged the run (`runner.run_scenario`)
on a scenario made of the candidate, its expected output read from the SPEC model. "The
same decision" is `difference.first_effect` on the implementation's output for the
candidate. A truncation failure becomes the cut stream itself, run with the context of
a stream stopped for length: the stream that showed reasoning, judged by the checks of
one output.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from enum import StrEnum

from scrubcheck.adapters import Adapter
from scrubcheck.adapters.drive import Trace, run_rescrub, run_reused, run_stream
from scrubcheck.checks import POISONS
from scrubcheck.checks.names import Check
from scrubcheck.checks.registry import BY_NAME, CHECKS
from scrubcheck.evidence import Evidence
from scrubcheck.explain.difference import NONE, Did, Effect, first_effect
from scrubcheck.explain.pieces import Part, read_pieces
from scrubcheck.model import Context, Scenario
from scrubcheck.results import Outcome
from scrubcheck.runner import RunSettings, run_scenario
from scrubcheck.runner.judge import stream_deltas


class Mode(StrEnum):
    """How the implementation is run on a candidate."""

    STREAM = "stream"  # one session, the candidate's deltas, flush
    RESCRUB = "rescrub"  # and its output scrubbed again (R-IDEM-1)
    REUSE = "reuse"  # after a poison stream on the same session (R-REUSE-1)
    HOLD = "hold"  # one-character feeds, judged for hold-back (R-STREAM-1/2)


#: the checks whose failures are one output against SPEC's: they shrink alike, and a
#: candidate fails "the same check" when any of them fails on it
OUTPUT_CHECKS = frozenset({Check.LEAK, Check.TAG, Check.EXPECTED, Check.TRUNCATION,
                           Check.TYPE, Check.EXCEPTION})


@dataclass(frozen=True)
class Candidate:
    """A stream to try: its text, where its deltas end (sorted; a repeated boundary is
    an empty delta) and its context."""

    text: str
    cuts: tuple[int, ...]
    context: Context

    @classmethod
    def of(cls, deltas: tuple[str, ...], context: Context) -> Candidate:
        cuts, position = [], 0
        for delta in deltas[:-1]:
            position += len(delta)
            cuts.append(position)
        return cls("".join(deltas), tuple(cuts), context)

    @property
    def deltas(self) -> tuple[str, ...]:
        points = (0, *self.cuts, len(self.text))
        return tuple(self.text[a:b] for a, b in zip(points, points[1:], strict=False))

    def without(self, start: int, end: int) -> Candidate:
        """The candidate with text[start:end] removed (boundaries inside move to start)."""
        size = end - start
        # a boundary inside what goes goes with it; one at either edge stays, once
        cuts = [c if c <= start else c - size for c in self.cuts if not start < c < end]
        if start in self.cuts and end in self.cuts and start != end:
            cuts.remove(start)
        return replace(self, text=self.text[:start] + self.text[end:], cuts=tuple(cuts))


@dataclass(frozen=True)
class Trial:
    """What reproduces one failure: the mode, the checks that count, the poison of a
    reuse failure, and the first wrong decision the failing stream shows."""

    mode: Mode
    checks: frozenset[str]
    poison: str = ""

    def label(self, candidate: Candidate) -> str:
        """The stream label the conductor reruns the candidate under."""
        if self.mode is Mode.REUSE:
            return f"reuse:{self.poison}"
        if self.mode is Mode.HOLD:
            return "char"
        return "recorded"


def trial_of(failure: Evidence, scenario: Scenario) -> tuple[Trial, Candidate] | None:
    """The trial and the starting candidate of one failure (None: a check the root-cause
    work does not shrink, e.g. the linear-time check)."""
    context = scenario.context
    deltas = failure.deltas or _rebuilt(scenario, failure.chunking)
    check = _check_of(failure.check)
    if failure.chunking.startswith("reuse:"):  # whatever check saw it: a reused session
        poison = failure.chunking.removeprefix("reuse:")
        if poison in POISONS:
            return (Trial(Mode.REUSE, frozenset({check, Check.REUSE}), poison),
                    Candidate.of(tuple(scenario.deltas), context))
    if failure.detail.startswith(RESCRUBBED):  # robustness of the second pass
        return (Trial(Mode.RESCRUB, frozenset({check, Check.IDEMPOTENCE})),
                Candidate.of(deltas, context))
    if failure.chunking.startswith("trunc@"):
        return Trial(Mode.STREAM, OUTPUT_CHECKS), Candidate.of(deltas, context.truncated())
    if check in OUTPUT_CHECKS:
        return Trial(Mode.STREAM, OUTPUT_CHECKS), Candidate.of(deltas, context)
    if check == Check.INVARIANCE:
        return Trial(Mode.STREAM, frozenset({Check.INVARIANCE})), Candidate.of(deltas, context)
    if check == Check.IDEMPOTENCE:
        return (Trial(Mode.RESCRUB, frozenset({Check.IDEMPOTENCE})),
                Candidate.of(deltas, context))
    if check == Check.HOLDBACK:
        return (Trial(Mode.HOLD, frozenset({Check.HOLDBACK})),
                Candidate.of((scenario.text,), context))
    return None


#: how the runner marks a robustness failure of the second pass (R-IDEM-1's re-scrub)
RESCRUBBED = "re-scrubbing the output: "


def _check_of(name: str) -> str:
    """The check a failure names: a check, or a hunt or fuzz property (the first check
    the registry runs under it)."""
    if name in BY_NAME:
        return name
    return next((str(entry.name) for entry in CHECKS if entry.prop == name), name)


def _rebuilt(scenario: Scenario, label: str) -> tuple[str, ...]:
    """The deltas of a stream label a report did not keep (too long to store): built
    again as the run built them, or the recorded ones for a label of a check's own."""
    try:
        return stream_deltas(scenario, label, 0)
    except (ValueError, KeyError):
        return tuple(scenario.deltas)


@dataclass(frozen=True)
class Seen:
    """What one run of a candidate showed: the first wrong decision and the output(s)."""

    effect: Effect
    output: str  # what the user saw (the second pass's, a reused session's second stream's)
    expected: str  # what SPEC makes of the same input
    error: str = ""  # the scrubber raised: its summary


#: what each candidate showed, per worker process: the smallest streams of one bug
#: spell alike (`shrink._plain_letters`), so later failures ask again what earlier ones
#: asked. Bounded: cleared when full.
_SEEN: dict[tuple[int, Trial, Candidate], Seen] = {}
_FAILS: dict[tuple[int, tuple[str, ...], Trial, Candidate], bool] = {}
MEMO = 200_000


def observe(adapter: Adapter, trial: Trial, candidate: Candidate) -> Seen:
    """Run the implementation on `candidate` as `trial` says and read its first wrong
    decision against the SPEC model (asked once per adapter, trial and candidate)."""
    key = (id(adapter), trial, candidate)
    seen = _SEEN.get(key)
    if seen is None:
        if len(_SEEN) > MEMO:
            _SEEN.clear()
        seen = _SEEN[key] = _observe(adapter, trial, candidate)
    return seen


def _observe(adapter: Adapter, trial: Trial, candidate: Candidate) -> Seen:
    context, deltas = candidate.context, candidate.deltas
    if trial.mode is Mode.HOLD:
        trace = run_stream(adapter, context, tuple(candidate.text) or ("",))
        pieces = read_pieces(candidate.text, context)
        wrong = first_effect(pieces, trace.output) if trace.ok else NONE
        # a wrong output is the decision the hold-back check saw, not the holding back
        return _seen(trace, pieces.visible, Effect(Did.HOLDS_BACK) if wrong is NONE else wrong)
    first = run_stream(adapter, context, deltas)
    if trial.mode is Mode.STREAM:
        pieces = read_pieces(candidate.text, context)
        effect = first_effect(pieces, first.output) if first.ok else NONE
        if first.ok and effect is NONE and candidate.cuts:
            # right under its own deltas: a chunking check's difference is the whole
            # stream's (R-CHUNK-1 compares the two)
            whole = run_stream(adapter, context, (candidate.text,))
            if whole.ok and whole.output != first.output:
                return _seen(whole, pieces.visible, first_effect(pieces, whole.output))
        return _seen(first, pieces.visible, effect)
    if not first.ok:
        return _seen(first, "", NONE)
    if trial.mode is Mode.RESCRUB:
        pieces = read_pieces(candidate.text, context)
        wrong = first_effect(pieces, first.output)
        if wrong is not NONE:  # the first pass already went wrong: that is the decision
            return _seen(first, pieces.visible, wrong)
        second = run_rescrub(adapter, context, first.output)
        pieces = read_pieces(first.output, context.for_rescrub())
        effect = first_effect(pieces, second.output) if second.ok else NONE
        if effect.did is not Did.NOTHING:
            effect = replace(effect, did=Did.CHANGES_ON_SECOND_PASS, situation=effect.did.value)
        return _seen(second, first.output, effect)
    poison, again, _ = run_reused(adapter, context, (POISONS[trial.poison][0],), deltas)
    if poison is not None and (poison.error is not None or poison.bad_returns):
        return _seen(poison, "", NONE)  # the poison stream itself is what went wrong
    if again is None:
        return _seen(first, "", NONE)
    # the reused session against a fresh one: a difference is reuse's (the fresh output's
    # own faults are another trial's)
    effect = NONE
    if again.ok and again.output != first.output:
        effect = Effect(Did.DIFFERS_AFTER_REUSE, situation=f"the {trial.poison} stream")
    return _seen(again, first.output, effect)


def _seen(trace: Trace, expected: str, effect: Effect) -> Seen:
    error = trace.error.summary if trace.error is not None else ""
    if trace.error is not None:  # the exception's type names the decision, not its message
        effect = Effect(Did.RAISES, situation=f"{error.split(':')[0]} in {trace.error.call}()")
    elif trace.bad_returns:
        bad = trace.bad_returns[0]
        effect = Effect(Did.RETURNS_WRONG_TYPE, situation=f"{bad.type_name} from "
                        + ("flush()" if bad.step is None else "feed()"))
    return Seen(effect, trace.output, expected, error)


def as_scenario(template: Scenario, candidate: Candidate) -> Scenario:
    """The candidate as a scenario of the template's: its expected output and its
    reasoning (the leak detector's canaries) read from the SPEC model."""
    pieces = read_pieces(candidate.text, candidate.context)
    reasoning: list[str] = []
    run: list[str] = []
    for char, label in zip(candidate.text, pieces.labels, strict=True):
        if label.part is Part.REASONING:
            run.append(char)
        elif run:
            reasoning.append("".join(run))
            run = []
    if run:
        reasoning.append("".join(run))
    # a canary that also stands in the answer would see a leak in every output
    canaries = tuple(r for r in (r.strip() for r in reasoning)
                     if r and r not in pieces.visible)
    return Scenario(
        id=template.id, area=template.area, rules=template.rules,
        description=f"{template.description} (smallest stream)",
        deltas=candidate.deltas or ("",), reasoning=canaries, context=candidate.context,
        visible=pieces.visible, file=template.file, line=template.line,
    )


Judge = Callable[[Candidate], bool]


def conductor_fails(adapter: Adapter, template: Scenario, trial: Trial,
                    settings: RunSettings) -> Judge:
    """Whether the conductor, rerunning `trial`'s stream label on a candidate, reports a
    failure of one of the trial's checks."""

    def fails(candidate: Candidate) -> bool:
        key = (id(adapter), template.rules, trial, candidate)
        known = _FAILS.get(key)
        if known is None:
            if len(_FAILS) > MEMO:
                _FAILS.clear()
            scenario = as_scenario(template, candidate)
            result = run_scenario(adapter, scenario, settings, only=trial.label(candidate))
            known = _FAILS[key] = result.outcome in (Outcome.FAIL, Outcome.ERROR) and any(
                f.check in trial.checks for f in result.failures)
        return known

    return fails
