"""What the upstream sent against what the gateway's client received: the gateway verdict.

The upstream stream is known exactly (the replay server plays it from the
scenario), so a received capture is judged by comparing the two:

- content as sent, reasoning as sent: `passed-through` (the order of the
  channels and the finish reason must be kept too);
- inline shape, content changed to the expected answer (R-WS-1 allowance at
  the removal points) with the reasoning on the structured channel: `split`;
- otherwise the client's view decides: `LEAK` when content shows reasoning the
  upstream did not put there (native shape), or that the reference scrubber a
  client runs does not remove (inline shape); `LOSS` when answer text is missing;
  `altered` for any other change, and for a changed finish reason or channel
  order on a stream that is otherwise fine;
- a failed stream (HTTP error, error event, malformed, cut, timeout): `ERROR`.

The client's view is the reference scrubber run on the received content, in
the received chunking, with the context a client can know: the deployment's
settings (the scenario's context: delimiters, pre-filled templates, the
inline-answer convention, which a vendor documents) and the finish reason it
received. A client whose content comes without inline reasoning knows it (its
model server parses reasoning: the native shape; its gateway splits: the
verdict `split`; or reasoning arrived on the structured channel before any
content) and scrubs with that vocabulary's defaults (SPEC R-IDEM-1's context),
since a pre-filled-template flag would hide a clean answer. The client shows
the right answer when that view has no reasoning and is the scenario's expected
output.

A non-streamed answer is one JSON string, and a JSON reader joins the two
halves of a surrogate pair sent side by side; what was sent and what is
expected are read the same way before they are compared (`as_completion`).
"""

from __future__ import annotations

import dataclasses
import json
import re
from dataclasses import dataclass, field

from scrubcheck.checks import LeakDetector
from scrubcheck.checks.expected import check_expected
from scrubcheck.checks.render import describe_difference, quoted
from scrubcheck.checks.whitespace import WHITESPACE
from scrubcheck.gateway.capture import Capture, Chunk
from scrubcheck.gateway.upstream import Shape, shape_chunks
from scrubcheck.gateway.verdicts import GatewayVerdict, leak_detector
from scrubcheck.model import Context, Scenario
from scrubcheck.scrubbers.reference import ReferenceScrubber, scrub_with_cuts

V = GatewayVerdict


@dataclass(frozen=True)
class Expectation:
    """What a client of a scenario should see, computed once for all its passes."""

    scenario: Scenario
    cuts: list[int] | None  # R-WS-1 removal points in `visible`, when the reference gives it
    detector: LeakDetector  # the scenario's reasoning, minus windows of any expected output
    # (the corpus's list of what must stay hidden, as `scrubcheck run` judges leaks)
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
    output, cuts = scrub_with_cuts(scenario.text, scenario.context)
    answers = [*(scenario.expected_outputs or ()), output]
    detector = leak_detector(list(scenario.reasoning), "\n".join(answers))
    return Expectation(scenario, cuts if output == scenario.visible else None, detector,
                       sent(scenario, Shape.NATIVE).reasoning)


def sent(scenario: Scenario, shape: Shape) -> Sent:
    stream = Capture(name=scenario.id, chunks=list(shape_chunks(scenario, shape)))
    return Sent(shape, tuple(stream.chunks), stream.content, stream.structured_reasoning,
                stream.finish_reason)


def json_text(text: str) -> str:
    """`text` as a JSON reader receives it: the two halves of a surrogate pair side by side
    in one string arrive as the one character they encode (escapes are all a server can
    send for a lone surrogate, and a reader joins adjacent ones)."""
    return json.loads(json.dumps(text)) if _SURROGATE.search(text) else text


_SURROGATE = re.compile("[\ud800-\udfff]")


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
    """What a client with the reference scrubber shows for a received stream."""

    context: Context
    output: str
    right: bool
    detail: str  # "shows …": what is wrong with it, or "shows the expected answer"


@dataclass
class Judgement:
    verdict: GatewayVerdict
    detail: str
    client: ClientView | None  # None when the stream failed
    notes: list[str] = field(default_factory=list)


def reasoning_first(capture: Capture) -> bool:
    """Whether reasoning arrived on the structured channel before any content."""
    for chunk in capture.chunks:
        if chunk.content:
            return False
        if (chunk.structured_reasoning or "").strip():
            return True
    return False


def client_view(expect: Expectation, capture: Capture, parsed: bool) -> ClientView:
    """The reference scrubber on the received content with the context a client can
    know: `parsed` when its content comes without inline reasoning (see the module text)."""
    base = expect.scenario.context.for_rescrub() if parsed else expect.scenario.context
    context = dataclasses.replace(base, finish_reason=capture.finish_reason)
    scrubber = ReferenceScrubber(**context.as_kwargs())
    output = "".join(scrubber.feed(d) for d in capture.content_deltas) + scrubber.flush()
    leak = expect.detector.first_leak(output)
    if leak is not None:
        return ClientView(context, output, False, f"shows reasoning {quoted(leak.text, 60)} "
                                                  f"at index {leak.start}")
    mismatch = check_expected(expect.scenario, output, expect.cuts)
    if mismatch is not None:
        return ClientView(context, output, False, f"shows {quoted(output, 80)}: "
                                                  f"{mismatch.detail}")
    return ClientView(context, output, True, "shows the expected answer")


def judge(expect: Expectation, upstream: Sent, capture: Capture, *,
          streamed: bool = True) -> Judgement:
    """The verdict on one received stream (or non-streamed completion), and what a
    client of it shows."""
    if capture.error is not None:
        return Judgement(V.ERROR, f"{capture.error.kind}: {capture.error.message}", None)
    if not streamed:
        expect, upstream = as_completion(expect, upstream)
    notes: list[str] = []
    native = upstream.shape is Shape.NATIVE
    verdict: GatewayVerdict | None
    if capture.content == upstream.content:
        verdict, detail = _unchanged(upstream, capture, streamed, notes)
    elif native:
        verdict, detail = _changed_native(expect, upstream, capture)
    else:
        verdict, detail = _split(expect, capture)
    client = client_view(expect, capture, native or verdict is V.SPLIT
                         or reasoning_first(capture))
    if verdict is None:  # inline, content changed, not split: what the client shows decides
        verdict, detail = _changed_inline(expect, upstream, capture, client)
    judgement = Judgement(verdict, detail, client, notes)
    finish = capture.finish_reason
    if finish != upstream.finish_reason:
        change = (f"finish_reason {upstream.finish_reason or 'none'} arrived as "
                  f"{finish or 'none'}")
        if judgement.verdict.failed:
            judgement.notes.append(change)
        else:
            judgement.detail = f"{change} (otherwise {judgement.verdict}: {judgement.detail})"
            judgement.verdict = V.ALTERED
    if streamed and not judgement.verdict.failed:
        sent_count, got_count = _count(upstream.chunks), len(capture.content_deltas)
        if sent_count != got_count:
            judgement.notes.append(f"rechunked: {sent_count} content deltas sent, "
                                   f"{got_count} received")
    return judgement


def _count(chunks: tuple[Chunk, ...]) -> int:
    return sum(1 for c in chunks if c.content is not None)


def channel_order(chunks: list[Chunk] | tuple[Chunk, ...]) -> list[str]:
    """The channels in the order text arrives on them, runs collapsed
    (`['reasoning', 'content']`); in a chunk with both, reasoning counts first."""
    runs: list[str] = []
    for chunk in chunks:
        for name, text in (("reasoning", chunk.structured_reasoning), ("content", chunk.content)):
            if text and (not runs or runs[-1] != name):
                runs.append(name)
    return runs


def _unchanged(upstream: Sent, capture: Capture, streamed: bool,
               notes: list[str]) -> tuple[GatewayVerdict, str]:
    reasoning = capture.structured_reasoning
    if upstream.shape is Shape.INLINE:
        if reasoning.strip():
            notes.append("the structured channel also carries reasoning, which content still "
                         "holds inline: a client showing both shows it twice")
        return V.PASSED_THROUGH, "content as the upstream sent it"
    if reasoning != upstream.reasoning:
        if not reasoning:
            return V.ALTERED, "the structured reasoning was dropped (content unchanged)"
        return V.ALTERED, ("the structured reasoning changed (content unchanged): "
                           + describe_difference(upstream.reasoning, reasoning))
    if streamed:
        sent_order, got_order = channel_order(upstream.chunks), channel_order(capture.chunks)
        if sent_order != got_order:
            return V.ALTERED, (f"the channels arrive in another order: sent "
                               f"{' → '.join(sent_order)}, received {' → '.join(got_order)}")
    return V.PASSED_THROUGH, "content and the structured reasoning as the upstream sent them"


def _split(expect: Expectation,
           capture: Capture) -> tuple[GatewayVerdict, str] | tuple[None, str]:
    """`split` when the inline reasoning left content for the structured channel and the
    expected answer remains; (None, "") when content changed otherwise."""
    content = capture.content
    if check_expected(expect.scenario, content, expect.cuts) is not None \
            or expect.detector.first_leak(content) is not None:
        return None, ""
    if expect.reasoning.strip() and not capture.structured_reasoning.strip():
        return V.ALTERED, ("the reasoning was removed from content but not delivered on "
                           "the structured channel")
    fields = ", ".join(capture.reasoning_fields) or "no reasoning field"
    return V.SPLIT, f"content is the expected answer; reasoning on {fields}"


def _changed_inline(expect: Expectation, upstream: Sent, capture: Capture,
                    client: ClientView) -> tuple[GatewayVerdict, str]:
    content = capture.content
    leak = expect.detector.first_leak(client.output)
    if leak is not None:
        return V.LEAK, (f"content changed and shows reasoning the reference scrubber does not "
                        f"remove: {quoted(leak.text, 60)} (a client's output at index "
                        f"{leak.start}); received content vs sent: "
                        + describe_difference(upstream.content, content))
    missing = _missing(expect.scenario.expected_outputs or (), client.output)
    if missing is not None:
        return V.LOSS, f"answer text is missing from what a client shows: {missing}"
    return V.ALTERED, (f"content changed: {describe_difference(upstream.content, content)}; "
                       f"a client's scrubber {'still' if client.right else 'then'} "
                       f"{client.detail}")


def _changed_native(expect: Expectation, upstream: Sent,
                    capture: Capture) -> tuple[GatewayVerdict, str]:
    content = capture.content
    leak = expect.detector.first_leak(content)
    if leak is not None:
        return V.LEAK, (f"content shows reasoning the upstream sent on the structured channel: "
                        f"{quoted(leak.text, 60)} at index {leak.start}")
    missing = _missing((upstream.content,), content)
    if missing is not None:
        return V.LOSS, f"answer text is missing from content: {missing}"
    return V.ALTERED, f"content changed: {describe_difference(upstream.content, content)}"


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
