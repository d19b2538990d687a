"""The verdict vocabulary of the gateway tools, and each scrubber on a capture.

Two questions share one vocabulary. `gateway check` asks of each scrubber on a
capture whether it leaks the reasoning or loses the answer (`ScrubberJudgement`);
`gateway audit` asks two things of each stream, kept apart so that each word
says one thing: what the gateway did to it (`Action`: information), and what
each kind of client then shows (`ClientOutcome`: the judgement, which decides
the exit code). LEAK, LOSS and ERROR mean the same everywhere in scrubcheck,
so they are spelled once, in `results.Verdict` (`Word` here).

The capture's content deltas go through the scrubber in their recorded
chunking with the stream's context. A leak is any 8-character window of known
reasoning (the structured channel, and what the reference removes inline) in
the output, windows that also occur in the answer excepted, as SPEC section 11
does for the corpus. The answer is kept when the output matches it under the
whitespace rule R-WS-1. A scrubber that cannot receive the stream's context is
UNSUPPORTED (R-CTX-1), and is also run without it, because that is what it
would do behind this gateway: a leak there counts.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from scrubcheck.adapters import Adapter, AdapterError, load_adapter
from scrubcheck.adapters.drive import run_stream
from scrubcheck.checks import LeakDetector, ws_compare
from scrubcheck.checks.reasoning_windows import WINDOW
from scrubcheck.checks.render import around, quoted
from scrubcheck.corpus.overlap import windows
from scrubcheck.gateway.capture import Capture
from scrubcheck.gateway.classify import Analysis
from scrubcheck.model import Context
from scrubcheck.results import Verdict as Word


class Action(StrEnum):
    """What a gateway did to one stream (`gateway audit`): information for its vendor,
    not a judgement; what its clients then see is the `ClientOutcome`."""

    PASSED_THROUGH = "passed-through"
    RECHUNKED = "re-chunked"
    FINISH_CHANGED = "finish-changed"
    SPLIT = "split"
    STRIPPED = "stripped"
    MERGED_WITH_TAGS = "merged-with-tags"
    MERGED_WITHOUT_TAGS = "merged-without-tags"
    CHANGED = "changed"
    CUT = "cut"
    ERROR = "error"

    @property
    def meaning(self) -> str:
        return ACTION_MEANINGS[self]


#: The most telling first: which action a scenario gets from its passes, and report order.
ACTION_ORDER: tuple[Action, ...] = (
    Action.ERROR, Action.CUT, Action.MERGED_WITHOUT_TAGS, Action.MERGED_WITH_TAGS,
    Action.CHANGED, Action.STRIPPED, Action.SPLIT, Action.FINISH_CHANGED, Action.RECHUNKED,
    Action.PASSED_THROUGH)

ACTION_MEANINGS = {
    Action.PASSED_THROUGH: "content, reasoning, finish reason and chunking as the upstream "
                           "sent them",
    Action.RECHUNKED: "the same text on the same channels in other deltas (or channel order)",
    Action.FINISH_CHANGED: "the text as sent, the finish reason changed or dropped",
    Action.SPLIT: "inline reasoning taken out of content and delivered on a reasoning field",
    Action.STRIPPED: "text taken out of content (or the reasoning field dropped), delivered "
                     "nowhere",
    Action.MERGED_WITH_TAGS: "the upstream's reasoning field written into content inside "
                             "delimiters",
    Action.MERGED_WITHOUT_TAGS: "the upstream's reasoning field written into content as "
                                "plain text",
    Action.CHANGED: "content changed otherwise (text replaced or added)",
    Action.CUT: "the stream ended early: a cut connection, or content missing its end",
    Action.ERROR: "an HTTP error, an error event, a malformed stream or a timeout",
}


class ClientOutcome(StrEnum):
    """What one kind of client shows for a stream the gateway delivered: a client that
    shows `content` raw, or one that runs a SPEC-conformant scrubber with the context it
    can know. LEAK, LOSS and ERROR are the run's words (`results.Verdict`)."""

    RIGHT = "right"
    LEAK = Word.LEAK.value
    LOSS = Word.LOSS.value
    ALTERED = "altered"
    ERROR = Word.ERROR.value

    @property
    def failed(self) -> bool:
        """An outcome that makes the audit fail (exit 1): a client does not show the
        right answer."""
        return self is not ClientOutcome.RIGHT

    @property
    def meaning(self) -> str:
        return OUTCOME_MEANINGS[self]


#: Worst first: report order, and which outcome a scenario gets from its passes.
OUTCOME_ORDER: tuple[ClientOutcome, ...] = (
    ClientOutcome.LEAK, ClientOutcome.LOSS, ClientOutcome.ERROR, ClientOutcome.ALTERED,
    ClientOutcome.RIGHT)

OUTCOME_MEANINGS = {
    ClientOutcome.RIGHT: "shows the scenario's expected answer and no reasoning",
    ClientOutcome.LEAK: "shows reasoning: text the SPEC model removes from the upstream's "
                        "stream, or the scenario lists as reasoning",
    ClientOutcome.LOSS: "answer text is missing from what it shows",
    ClientOutcome.ALTERED: "shows the whole answer, no reasoning, and other text changed",
    ClientOutcome.ERROR: "the request failed: it shows an error",
}

#: The two kinds of client, as reports name them.
RAW, SCRUBBED = "raw", "scrubbed"
CLIENTS = {RAW: "a client that shows content raw",
           SCRUBBED: "a client that runs a SPEC-conformant scrubber (the reference) with the "
                     "context it can know"}


def worst_action(actions: list[Action]) -> Action:
    return min(actions, key=ACTION_ORDER.index)


def worst_outcome(outcomes: list[ClientOutcome]) -> ClientOutcome:
    return min(outcomes, key=OUTCOME_ORDER.index)


LEAK, LOSS, ERROR = Word.LEAK, Word.LOSS, Word.ERROR


@dataclass
class ScrubberJudgement:
    """What `gateway check` found one scrubber does with a capture: its status spells
    the run's words (`results.Verdict`), but it is a judgement of one scrubber on one
    capture, not a verdict of its own, hence the name."""

    scrubber: str
    kind: str  # stream | batch | splitter | ?
    status: str  # ok | LEAK | LOSS | LEAK+LOSS | ERROR | UNSUPPORTED+…
    detail: str
    leaks: bool = False


def leak_detector(reasoning: list[str], answer: str) -> LeakDetector:
    """A detector for `reasoning`, minus every window that also occurs in `answer`
    (those prove nothing); a string shorter than a window counts unless in the answer."""
    answer_windows = windows(answer)
    fragments: list[str] = []
    for text in reasoning:
        if len(text) < WINDOW:
            if text.strip() and text not in answer:
                fragments.append(text)
            continue
        start = None
        for i in range(len(text) - WINDOW + 1):
            good = text[i:i + WINDOW] not in answer_windows
            if good and start is None:
                start = i
            elif not good and start is not None:
                fragments.append(text[start:i + WINDOW - 1])
                start = None
        if start is not None:
            fragments.append(text[start:])
    return LeakDetector(fragments)


def judge_all(capture: Capture, analysis: Analysis, specs: list[str]) -> list[ScrubberJudgement]:
    detector = leak_detector(analysis.reasoning, analysis.answer)
    verdicts = []
    for spec in specs:
        try:
            adapter = load_adapter(spec)
        except AdapterError as exc:
            verdicts.append(ScrubberJudgement(spec, "?", ERROR, f"cannot load: {_short(str(exc))}"))
            continue
        verdicts.append(judge(adapter, capture, analysis, detector))
    return verdicts


def _short(message: str, limit: int = 240) -> str:
    """A table cell of an error: its first and last lines (a peer's traceback ends in
    the exception), at most `limit` characters."""
    lines = [line.strip() for line in message.splitlines() if line.strip()]
    text = lines[0] if len(lines) <= 1 else f"{lines[0]} … {lines[-1]}"
    return text if len(text) <= limit else text[:limit - 1] + "…"


def judge(adapter: Adapter, capture: Capture, analysis: Analysis,
          detector: LeakDetector) -> ScrubberJudgement:
    context = analysis.context
    unsupported = adapter.unsupported_reason(context)
    if unsupported is not None:
        context = Context(
            starts_in_reasoning=context.starts_in_reasoning,
            inline_answer=context.inline_answer, finish_reason=context.finish_reason,
            features=tuple(f for f in context.features if f in adapter.supported_features))
    trace = run_stream(adapter, context, capture.content_deltas)
    if not trace.ok:
        what = (f"{trace.error.where()} raised {trace.error.summary}" if trace.error
                else "did not finish")
        return ScrubberJudgement(adapter.spec, adapter.kind, ERROR, _short(what))
    output = trace.output
    leak = detector.first_leak(output)
    mismatch = ws_compare(analysis.answer, output, list(analysis.cuts))
    problems, details = [], []
    if leak is not None:
        problems.append(LEAK)
        details.append(f"shows reasoning {quoted(leak.text, 60)} at output index {leak.start}")
    if mismatch is not None:
        problems.append(LOSS)
        details.append(f"answer not preserved: {mismatch.reason} at answer index "
                       f"{mismatch.expected_index}: expected "
                       f"{around(analysis.answer, mismatch.expected_index, 16)}, got "
                       f"{around(output, mismatch.got_index, 16)}")
    status = "+".join(problems) or "ok"
    detail = "; ".join(details) or "no reasoning shown, answer preserved"
    if unsupported is not None:
        status = f"UNSUPPORTED ({status} without it)"
        detail = f"{unsupported}; run without that context: {detail}"
    return ScrubberJudgement(adapter.spec, adapter.kind, status, detail, leaks=leak is not None)


def effect_without(capture: Capture, analysis: Analysis, without: Context,
                   detector: LeakDetector) -> str:
    """What a client that lacks one context value shows for this stream (the reference
    scrubber given `without`): the reason a vendor must document that value."""
    trace = run_stream(load_adapter("reference"), without, capture.content_deltas)
    leak = detector.first_leak(trace.output)
    if leak is not None:
        return f"a client shows reasoning {quoted(leak.text, 50)}"
    if ws_compare(analysis.answer, trace.output, list(analysis.cuts)) is not None:
        return f"a client shows {quoted(trace.output, 50)} instead of the answer"
    return "no visible difference for this stream"
