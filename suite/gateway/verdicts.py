"""The verdict vocabulary of the gateway tools, and each scrubber on a capture.

Two questions share one vocabulary. `gateway check` asks of each scrubber on a
capture whether it leaks the reasoning or loses the answer (`Verdict`);
`gateway audit` asks what a gateway did to a stream (`GatewayVerdict`). LEAK,
LOSS and ERROR mean the same in both and in the rest of scrubcheck, so they are
spelled once, in `results.Verdict` (`Word` here); the other words describe a gateway only.

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
from scrubcheck.checks import LeakDetector, run_stream, ws_compare
from scrubcheck.checks.reasoning_windows import WINDOW
from scrubcheck.checks.render import around, quoted
from scrubcheck.corpus.overlap import windows
from scrubcheck.gateway.capture import Capture
from scrubcheck.gateway.classify import Analysis
from scrubcheck.model import Context
from scrubcheck.results import Verdict as Word


class GatewayVerdict(StrEnum):
    """What a gateway did to one stream, as its client receives it (`gateway audit`)."""

    SPLIT = "split"
    PASSED_THROUGH = "passed-through"
    LEAK = Word.LEAK.value
    LOSS = Word.LOSS.value
    ALTERED = "altered"
    ERROR = Word.ERROR.value

    @property
    def failed(self) -> bool:
        """A verdict that makes the audit fail (exit 1): the gateway broke the stream."""
        return self not in (GatewayVerdict.SPLIT, GatewayVerdict.PASSED_THROUGH)

    @property
    def meaning(self) -> str:
        return GATEWAY_MEANINGS[self]


#: Worst first: the order of reports, and which verdict a scenario gets from its passes.
GATEWAY_ORDER: tuple[GatewayVerdict, ...] = (
    GatewayVerdict.LEAK, GatewayVerdict.LOSS, GatewayVerdict.ERROR, GatewayVerdict.ALTERED,
    GatewayVerdict.PASSED_THROUGH, GatewayVerdict.SPLIT)

GATEWAY_MEANINGS = {
    GatewayVerdict.SPLIT: "the gateway moved the reasoning to the structured channel and "
                          "content is the expected answer",
    GatewayVerdict.PASSED_THROUGH: "content and reasoning arrive as the upstream sent them: "
                                   "clients need a scrubber with the context named",
    GatewayVerdict.LEAK: "content shows reasoning the upstream did not put there, or that a "
                         "client's scrubber cannot remove (e.g. the structured channel merged "
                         "into content)",
    GatewayVerdict.LOSS: "answer text is missing from what the client receives",
    GatewayVerdict.ALTERED: "the finish reason, the order of the channels, or the text changed "
                            "otherwise",
    GatewayVerdict.ERROR: "an HTTP error, an error event, a malformed or cut stream, or a "
                          "timeout",
}

LEAK, LOSS, ERROR = Word.LEAK, Word.LOSS, Word.ERROR


def worst(verdicts: list[GatewayVerdict]) -> GatewayVerdict:
    return min(verdicts, key=GATEWAY_ORDER.index)


@dataclass
class Verdict:
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


def judge_all(capture: Capture, analysis: Analysis, specs: list[str]) -> list[Verdict]:
    detector = leak_detector(analysis.reasoning, analysis.answer)
    verdicts = []
    for spec in specs:
        try:
            adapter = load_adapter(spec)
        except AdapterError as exc:
            verdicts.append(Verdict(spec, "?", ERROR, f"cannot load: {_short(str(exc))}"))
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
          detector: LeakDetector) -> Verdict:
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
        return Verdict(adapter.spec, adapter.kind, ERROR, _short(what))
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
    return Verdict(adapter.spec, adapter.kind, status, detail, leaks=leak is not None)


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
