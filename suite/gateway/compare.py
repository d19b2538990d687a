"""What the upstream sent against what the gateway's client received: the audit's two answers.

The upstream stream is known exactly (the replay server plays it from the
scenario), so a received capture is judged by comparing the two, and two
questions are kept apart:

**What the gateway did** (`Action`, information): content and reasoning as
sent (`passed-through`, or `re-chunked` when only the deltas or the order of
the channels differ, `finish-changed` when only the finish reason does);
inline reasoning taken out of content onto a reasoning field (`split`) or
delivered nowhere (`stripped`); the native reasoning field written into
content inside delimiters (`merged-with-tags`) or as plain text
(`merged-without-tags`); content that ends early (`cut`); other changes
(`changed`); a failed request (`error`).

**What each kind of client shows** (`ClientOutcome`, the judgement): a client
that shows `content` raw, and a client that runs the reference scrubber (SPEC
made executable) on the received content, in the received chunking, with the
context it can know: the deployment's settings (the scenario's context:
delimiters, pre-filled templates, the inline-answer convention, which a vendor
documents) and the finish reason it received. A client whose content comes
without inline reasoning knows it (its model server parses reasoning: the
native shape; its gateway splits or strips; or reasoning arrived on the
structured channel before any content) and scrubs with that vocabulary's
defaults (SPEC R-IDEM-1's context), since a pre-filled-template flag would hide
a clean answer. Each client shows the right answer, a LEAK (text the SPEC
model removes from the upstream's stream, or the scenario lists as reasoning;
windows of any expected answer excepted), a LOSS (answer text missing), the
answer with other text changed (`altered`), or an ERROR.

Text is compared as a client decodes it: each chunk is a JSON string, and a
JSON reader joins the two halves of a surrogate pair sent side by side, so a
gateway that re-chunks the halves of a pair into one delta changes nothing a
client sees; what was sent and what is expected are read the same way
(`as_completion`, `json_text`).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from scrubcheck.checks import LeakDetector
from scrubcheck.checks.expected import check_expected
from scrubcheck.checks.render import describe_difference, quoted
from scrubcheck.checks.whitespace import WHITESPACE
from scrubcheck.explain.transport import json_text
from scrubcheck.gateway.capture import Capture, Chunk
from scrubcheck.gateway.inline import detect_features, reasoning_parts, spec_run
from scrubcheck.gateway.upstream import Shape, shape_chunks
from scrubcheck.gateway.verdicts import Action, ClientOutcome, leak_detector
from scrubcheck.model import Context, Scenario
from scrubcheck.scrubbers.reference import make_scrubber

A, C = Action, ClientOutcome


@dataclass(frozen=True)
class Expectation:
    """What a client of a scenario should see, computed once for all its passes."""

    scenario: Scenario
    cuts: list[int] | None  # R-WS-1 removal points in `visible`, when the SPEC model gives it
    detector: LeakDetector  # the scenario's reasoning and what the SPEC model removes from
    # its stream, minus windows of any expected output
    reasoning: str  # what the native shape sends on the structured channel


@dataclass(frozen=True)
class Sent:
    """What the upstream sent for one scenario in one shape."""

    shape: Shape
    chunks: tuple[Chunk, ...]
    content: str
    reasoning: str
    finish_reason: str | None


def expectation(scenario: Scenario) -> Expectation:
    """What clients of `scenario` should see, judged by the SPEC model alone
    (`inline.spec_run`, the batch model of scrubcheck.specmodel that `gateway check` also
    reads), never by the reference scrubber: the reference is one of the clients judged.
    What must stay hidden is what the corpus lists as reasoning and what the SPEC model
    removes from the stream (a client showing text from inside a block leaks it, listed or
    not); the R-WS-1 removal points are the SPEC model's."""
    model = spec_run(list(scenario.deltas), scenario.context)
    answers = [*(scenario.expected_outputs or ()), model.output]
    removed = reasoning_parts(model.pieces, scenario.context.features)
    detector = leak_detector([*scenario.reasoning, *removed], "\n".join(answers))
    # the removal points are trusted only where the SPEC model gives `visible` itself
    cuts = list(model.cuts) if model.output == scenario.visible else None
    return Expectation(scenario, cuts, detector, sent(scenario, Shape.NATIVE).reasoning)


def sent(scenario: Scenario, shape: Shape) -> Sent:
    stream = Capture(name=scenario.id, chunks=list(shape_chunks(scenario, shape)))
    return Sent(shape, tuple(stream.chunks), stream.content, stream.structured_reasoning,
                stream.finish_reason)




def as_completion(expect: Expectation, upstream: Sent) -> tuple[Expectation, Sent]:
    """The expectation and the upstream stream of the non-streaming answer, whose content
    is one JSON string (see json_text); the same objects when that changes nothing."""
    content, reasoning = json_text(upstream.content), json_text(upstream.reasoning)
    if (content, reasoning) != (upstream.content, upstream.reasoning):
        upstream = dataclasses.replace(upstream, content=content, reasoning=reasoning)
    scenario = expect.scenario
    visible = None if scenario.visible is None else json_text(scenario.visible)
    acceptable = None if scenario.acceptable is None else tuple(
        json_text(a) for a in scenario.acceptable)
    if (visible, acceptable) != (scenario.visible, scenario.acceptable):
        scenario = dataclasses.replace(scenario, visible=visible, acceptable=acceptable)
        expect = dataclasses.replace(expect, scenario=scenario, cuts=None)  # positions moved
    return expect, upstream


@dataclass
class ClientView:
    """What one kind of client shows for a received stream."""

    context: Context | None  # the scrubber's context (None: the raw client, no scrubber)
    output: str
    outcome: ClientOutcome
    detail: str  # "shows …": what is wrong with it, or "shows the expected answer"

    @property
    def right(self) -> bool:
        return self.outcome is C.RIGHT


@dataclass
class Judgement:
    action: Action
    detail: str  # what the gateway did, in words
    raw: ClientView | None  # None when the request failed
    scrubbed: ClientView | None
    notes: list[str] = field(default_factory=list)

    @property
    def outcomes(self) -> tuple[ClientOutcome, ClientOutcome]:
        """(raw client, scrubbing client)."""
        return (self.raw.outcome if self.raw else C.ERROR,
                self.scrubbed.outcome if self.scrubbed else C.ERROR)


def reasoning_first(capture: Capture) -> bool:
    """Whether reasoning arrived on the structured channel before any content."""
    for chunk in capture.chunks:
        if chunk.content:
            return False
        if (chunk.structured_reasoning or "").strip():
            return True
    return False


def outcome(expect: Expectation, output: str) -> tuple[ClientOutcome, str]:
    """What a client showing `output` sees: one judgement for the audit's two clients and
    for `gateway check` on an audit's capture."""
    output = json_text(output)
    leak = expect.detector.first_leak(output)
    if leak is not None:
        return C.LEAK, f"shows reasoning {quoted(leak.text, 60)} at index {leak.start}"
    mismatch = check_expected(expect.scenario, output, expect.cuts)
    if mismatch is None:
        return C.RIGHT, "shows the expected answer"
    missing = _missing(expect.scenario.expected_outputs or (), output)
    if missing is not None:
        return C.LOSS, f"shows {quoted(output, 80)}: answer text is missing: {missing}"
    return C.ALTERED, f"shows {quoted(output, 80)}: {mismatch.detail}"


def client_context(expect: Expectation, finish_reason: str | None, parsed: bool) -> Context:
    """The context a scrubbing client can know (see the module text)."""
    base = expect.scenario.context.for_rescrub() if parsed else expect.scenario.context
    return dataclasses.replace(base, finish_reason=finish_reason)


def client_view(expect: Expectation, capture: Capture, parsed: bool) -> ClientView:
    """The reference scrubber on the received content with the context a client can
    know: `parsed` when its content comes without inline reasoning (see the module text)."""
    context = client_context(expect, capture.finish_reason, parsed)
    scrubber = make_scrubber(context)  # the client's scrubber: an implementation, not a judge
    output = "".join(scrubber.feed(d) for d in capture.content_deltas) + scrubber.flush()
    return ClientView(context, output, *outcome(expect, output))


def raw_view(expect: Expectation, capture: Capture) -> ClientView:
    return ClientView(None, capture.content, *outcome(expect, capture.content))


def judge(expect: Expectation, upstream: Sent, capture: Capture, *,
          streamed: bool = True) -> Judgement:
    """What the gateway did to one received stream (or non-streamed completion), and
    what each kind of client shows of it."""
    expect, upstream = as_completion(expect, upstream)
    if capture.error is not None:
        action = A.CUT if capture.error.kind == "cut" else A.ERROR
        return Judgement(action, f"{capture.error.kind}: {capture.error.message}", None, None)
    notes: list[str] = []
    native = upstream.shape is Shape.NATIVE
    content = json_text(capture.content)
    if content == upstream.content:
        action, detail = _unchanged(upstream, capture, streamed, notes)
    elif native:
        action, detail = _changed_native(expect, upstream, content)
    else:
        action, detail = _changed_inline(expect, upstream, capture, content)
    finish = capture.finish_reason
    if finish != upstream.finish_reason:
        change = (f"finish_reason {upstream.finish_reason or 'none'} arrived as "
                  f"{finish or 'none'}")
        if action in (A.PASSED_THROUGH, A.RECHUNKED):
            if action is A.RECHUNKED:
                notes.append(detail)
            action, detail = A.FINISH_CHANGED, change
        else:
            notes.append(change)
    parsed = native or action in (A.SPLIT, A.STRIPPED) or reasoning_first(capture)
    return Judgement(action, detail, raw_view(expect, capture),
                     client_view(expect, capture, parsed), notes)


def _unchanged(upstream: Sent, capture: Capture, streamed: bool,
               notes: list[str]) -> tuple[Action, str]:
    reasoning = json_text(capture.structured_reasoning)
    if upstream.shape is Shape.INLINE:
        if reasoning.strip():
            notes.append("the structured channel also carries reasoning, which content still "
                         "holds inline: a client showing both shows it twice")
    elif reasoning != upstream.reasoning:
        if not reasoning:
            return A.STRIPPED, "the reasoning field was dropped (content unchanged)"
        return A.CHANGED, ("the structured reasoning changed (content unchanged): "
                           + describe_difference(upstream.reasoning, reasoning))
    if streamed:
        sent_order, got_order = channel_order(upstream.chunks), channel_order(capture.chunks)
        if sent_order != got_order:
            return A.RECHUNKED, (f"the channels arrive in another order: sent "
                                 f"{' → '.join(sent_order)}, received {' → '.join(got_order)}")
        sent_deltas = [json_text(c.content) for c in upstream.chunks if c.content is not None]
        got_deltas = [json_text(d) for d in capture.content_deltas]
        if sent_deltas != got_deltas:
            return A.RECHUNKED, (f"the same content in other deltas: {len(sent_deltas)} "
                                 f"content deltas sent, {len(got_deltas)} received"
                                 + ("" if len(sent_deltas) != len(got_deltas)
                                    else ", their boundaries moved"))
    return A.PASSED_THROUGH, ("content as the upstream sent it" if upstream.shape is
                              Shape.INLINE else "content and the structured reasoning as "
                              "the upstream sent them")


def _changed_native(expect: Expectation, upstream: Sent, content: str) -> tuple[Action, str]:
    """Content of a native stream changed: the reasoning merged in (with or without
    delimiters a scrubber knows), the answer cut short, or another change."""
    difference = describe_difference(upstream.content, content)
    if upstream.reasoning.strip() and (expect.detector.first_leak(content) is not None
                                       or upstream.reasoning.strip() in content):
        tagged = spec_run([content], Context(features=detect_features(content))).pieces
        if tagged and not spec_run([upstream.content], Context(
                features=detect_features(upstream.content))).pieces:
            return A.MERGED_WITH_TAGS, f"the reasoning field written into content in " \
                                       f"delimiters: {difference}"
        return A.MERGED_WITHOUT_TAGS, f"the reasoning field written into content as " \
                                      f"plain text: {difference}"
    if upstream.content.startswith(content):
        return A.CUT, (f"content ends early: {len(content)} of {len(upstream.content)} "
                       "characters arrived")
    return A.CHANGED, f"content changed: {difference}"


def _changed_inline(expect: Expectation, upstream: Sent, capture: Capture,
                    content: str) -> tuple[Action, str]:
    """Content of an inline stream changed: reasoning moved to a field (split) or dropped
    (stripped), the stream cut short, or another change."""
    difference = describe_difference(upstream.content, content)
    if capture.structured_reasoning.strip():
        fields = ", ".join(capture.reasoning_fields)
        return A.SPLIT, f"reasoning on {fields}; content changed: {difference}"
    if check_expected(expect.scenario, content, expect.cuts) is None:
        return A.STRIPPED, ("the reasoning taken out of content and delivered nowhere; "
                            "content is the expected answer")
    if upstream.content.startswith(content):
        return A.CUT, (f"content ends early: {len(content)} of {len(upstream.content)} "
                       "characters arrived")
    rest = iter(upstream.content)
    if all(char in rest for char in content):
        return A.STRIPPED, (f"{len(upstream.content) - len(content)} characters taken out "
                            f"of content, delivered nowhere: {difference}")
    return A.CHANGED, f"content changed: {difference}"


def channel_order(chunks: list[Chunk] | tuple[Chunk, ...]) -> list[str]:
    """The channels in the order text arrives on them, runs collapsed
    (`['reasoning', 'content']`); in a chunk with both, reasoning counts first."""
    runs: list[str] = []
    for chunk in chunks:
        for name, text in (("reasoning", chunk.structured_reasoning), ("content", chunk.content)):
            if text and (not runs or runs[-1] != name):
                runs.append(name)
    return runs


def _squeeze(text: str) -> str:
    return "".join(c for c in text if c not in WHITESPACE)


def _missing(answers: tuple[str, ...], got: str) -> str | None:
    """None when every non-whitespace character of some expected answer is in `got`, in
    order (text was added or whitespace changed, nothing lost); else where they part."""
    if not answers:
        return None
    have = _squeeze(got)
    for answer in answers:
        rest = iter(have)
        if all(char in rest for char in _squeeze(answer)):
            return None
    return describe_difference(answers[0], got)
