"""One failing scenario explained: each of its failures shrunk and given a signature.

A scenario fails several checks at once more often than not (a shown block is a leak,
a tag outside code and a wrong answer). Its failures are taken worst first; one whose
trial would start from a stream, mode and first wrong decision already explained for
this scenario is not shrunk again, since it would end where the first one did.

A result that is ERROR or TIMEOUT as a whole (the scrubber raised, hung or crashed) is
not shrunk: it is grouped by its own message, with the numbers and quoted values taken
out, so that "raised at position 3" and "at position 7" read alike.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from scrubcheck.adapters import Adapter
from scrubcheck.checks.names import Check
from scrubcheck.evidence import Evidence
from scrubcheck.explain.difference import Did
from scrubcheck.explain.pieces import read_pieces
from scrubcheck.explain.shrink import shrink
from scrubcheck.explain.signature import Signature, signature_of
from scrubcheck.explain.trial import (
    OUTPUT_CHECKS,
    Candidate,
    Mode,
    Seen,
    Trial,
    conductor_fails,
    observe,
    trial_of,
)
from scrubcheck.model import Context, Scenario
from scrubcheck.results import Outcome, ScenarioResult
from scrubcheck.runner import RunSettings, replay_command


@dataclass(frozen=True)
class Explained:
    """One failure (or one ERROR/TIMEOUT result) with its signature and smallest stream."""

    scenario_id: str
    check: str
    rule: str
    level: str
    leak: bool
    signature: Signature
    deltas: tuple[str, ...] = ()  # the smallest stream
    context: Context = field(default_factory=Context)  # its context
    expected: str = ""
    got: str = ""
    complete: bool = True  # the shrink reached a fixed point within its time
    tries: int = 0
    seconds: float = 0.0
    label: str = ""  # the stream label it was rerun under ('' for ERROR/TIMEOUT)
    shows: str = "other"  # what the smallest stream showed: leak, loss or other
    replay: str = ""  # the command that shows the failure it was shrunk from

    @property
    def size(self) -> int:
        return sum(len(d) for d in self.deltas)


_NUMBER = re.compile(r"\d+")
_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"")
_WHERE = re.compile(r"\s*\([^()]*\.py:\d+[^()]*\)")


def message_shape(text: str) -> str:
    """A message with its numbers, quoted values and source places taken out, and what
    it says of the stream it was on and how to replay it."""
    text = text.split("; replay:")[0]
    text = re.sub(r" (?:while running|under) \S+", "", text)
    text = _WHERE.sub("", text)
    return _NUMBER.sub("N", _QUOTED.sub("…", text)).strip()


_RAISED = re.compile(r"raised (?P<type>[A-Z]\w*(?:\.\w+)*)")
_SITE = re.compile(r"\((?P<site>[^()]*\.\w+:\d+ in [\w<>]+)\)")


def _result_signature(result: ScenarioResult) -> Signature:
    """An ERROR or TIMEOUT result's signature from its own message: an exception by its
    type and the place in the scrubber that raised it (one raise site, one bug, whatever
    the message says of the input); a hang by whether it spun (CPU time used) or
    blocked; anything else by the shape of its message."""
    reason = result.reason or result.outcome.value
    if result.outcome is Outcome.TIMEOUT:
        cpu = re.search(r"\(([\d.]+) s of CPU time used\)", reason)
        wall = re.search(r"within (\d+(?:\.\d+)?) s", reason)
        if cpu and wall:
            spins = float(cpu.group(1)) > 0.5 * float(wall.group(1))
            return Signature(Did.HANGS, piece="it keeps the CPU busy" if spins
                             else "it waits without using the CPU")
        return Signature(Did.HANGS, piece=message_shape(reason.split(";")[0]))
    reason = reason.split(" [same check")[0]
    raised = _RAISED.search(reason)
    if raised:
        site = _SITE.search(reason, raised.end())
        if site:
            return Signature(Did.RAISES, piece=f"{raised.group('type')} at {site.group('site')}")
        message = reason[raised.end():].lstrip(": ")
        return Signature(Did.RAISES, piece=f"{raised.group('type')}: {message_shape(message)}")
    return Signature(Did.ERRORS, piece=message_shape(reason))


def by_message(scenario: Scenario, result: ScenarioResult) -> list[Explained] | None:
    """An ERROR or TIMEOUT result explained by its own message, with no run of the
    scrubber (None: a result whose failures are to be shrunk)."""
    if result.outcome not in (Outcome.TIMEOUT, Outcome.ERROR) or any(
            f.check != Check.EXCEPTION for f in result.failures):
        return None
    return [Explained(result.scenario_id, result.outcome.value, "R-ROBUST-1", "MUST",
                      False, _result_signature(result), deltas=tuple(scenario.deltas),
                      context=scenario.context, complete=False, label=result.outcome.value)]


def explain_scenario(adapter: Adapter, scenario: Scenario, result: ScenarioResult,
                     settings: RunSettings, seconds: float) -> list[Explained]:
    """Every distinct failure of `result` explained, within `seconds` in all."""
    grouped = by_message(scenario, result)
    if grouped is not None:
        return grouped
    deadline = time.monotonic() + seconds
    done: dict[tuple[Trial, Candidate, Did], Explained] = {}
    explained = []
    for failure in sorted(result.failures, key=lambda f: (f.severity, f.check)):
        left = deadline - time.monotonic()
        found = explain_failure(adapter, scenario, failure, settings, max(left, 0.05), done)
        if found is not None:
            explained.append(found)
    return explained


def _as_stream(adapter: Adapter, trial: Trial, candidate: Candidate,
               seen: Seen) -> tuple[Trial, Candidate, Seen] | None:
    """A failure that turned out to be one stream's wrong output, as a stream trial:
    the second pass of an idempotence failure whose first output was right (that
    output, one delta, in the context of re-scrubbing, R-IDEM-1), and a hold-back
    failure whose one-character run came out wrong (its text in one-character deltas).
    None for any other."""
    stream = Trial(Mode.STREAM, OUTPUT_CHECKS)
    if trial.mode is Mode.RESCRUB and seen.effect.did is Did.CHANGES_ON_SECOND_PASS:
        again = Candidate(seen.expected, (), candidate.context.for_rescrub())
    elif trial.mode is Mode.HOLD and seen.effect.did is not Did.HOLDS_BACK:
        again = Candidate(candidate.text, tuple(range(1, len(candidate.text))),
                          candidate.context)
    else:
        return None
    observed = observe(adapter, stream, again)
    if observed.effect.did is Did.NOTHING:
        return None
    return stream, again, observed


def delimiters_of(candidate: Candidate) -> Callable[[int], bool]:
    """Whether the character at an offset is part of delimiter text (removed or kept
    literal): what making the letters plain must leave as it is."""
    labels = read_pieces(candidate.text, candidate.context).labels
    return lambda offset: labels[offset].tag is not None


def explain_failure(adapter: Adapter, scenario: Scenario, failure: Evidence,
                    settings: RunSettings, seconds: float,
                    done: dict[tuple[Trial, Candidate, Did], Explained] | None = None,
                    ) -> Explained | None:
    """One failure shrunk and signed (None: already explained as another of `done`, or a
    check the root-cause work does not shrink)."""
    started = time.monotonic()
    made = trial_of(failure, scenario)
    if made is None:
        return None
    trial, start = made
    first = observe(adapter, trial, start)
    key = (trial, start, first.effect.did)
    if done is not None and key in done:
        return None
    fails = conductor_fails(adapter, scenario, trial, settings)
    target = first.effect.did

    def holds(candidate: Candidate) -> bool:
        if not observe(adapter, trial, candidate).effect.did.same(target):
            return False
        return fails(candidate)

    # the run found `start` failing; asking the conductor again would cost a whole run
    # of a stream that may be a megabyte long
    if target is Did.NOTHING:
        shrunk_candidate, complete, tries = start, False, 1
    else:
        shrunk = shrink(start, holds, seconds, keep=delimiters_of,
                        focus=first.effect.at if first.effect.at >= 0 else None)
        shrunk_candidate, complete, tries = shrunk.candidate, shrunk.complete, shrunk.tries
    seen: Seen = observe(adapter, trial, shrunk_candidate) if tries > 1 else first
    stream = _as_stream(adapter, trial, shrunk_candidate, seen)
    if stream is not None:
        # the decision is one stream's after all: shrink it as such
        trial, shrunk_candidate, seen = stream
        target = seen.effect.did
        fails = conductor_fails(adapter, scenario, trial, settings)
        again = shrink(shrunk_candidate, holds, max(0.5, seconds / 2), keep=delimiters_of)
        shrunk_candidate, tries = again.candidate, tries + again.tries
        complete = complete and again.complete
        seen = observe(adapter, trial, shrunk_candidate)
    signature, exemplar = signature_of(adapter, trial, shrunk_candidate, seen, failure.check)
    if exemplar != shrunk_candidate and (
            conductor_fails(adapter, scenario, trial, settings)(exemplar)):
        shrunk_candidate, seen = exemplar, observe(adapter, trial, exemplar)
    found = Explained(
        scenario.id, failure.check, failure.rule, failure.level, failure.leak, signature,
        deltas=shrunk_candidate.deltas, context=shrunk_candidate.context,
        expected=seen.expected, got=seen.output, complete=complete, tries=tries,
        seconds=round(time.monotonic() - started, 3), label=trial.label(shrunk_candidate),
        shows=seen.effect.did.kind,
        replay=replay_command(scenario.id, adapter.spec, failure.chunking or "recorded",
                              settings.seed, settings.corpus_paths,
                              scenario.context.conformance_class),
    )
    if done is not None:
        done[key] = found
    return found
