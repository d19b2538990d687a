"""The two shapes a scenario is played in upstream of a gateway, and how a request names one.

A gateway sits between a model server and its clients, and model servers send
reasoning in one of two ways; a gateway must be judged on both:

- **inline**: the scenario as recorded, reasoning in `content` with its
  delimiters, as a server without a reasoning parser sends it (what
  `gateway serve` has always played);
- **native**: reasoning on `reasoning_content` and the answer in `content`, as a
  server whose reasoning parser split the stream. It is derived from the
  scenario: what the reference scrubber emits after each delta is that delta's
  `content` (the reference plays the server's reasoning parser here, an
  implementation, and a streaming one, which the batch SPEC model is not: its
  hold-back gives a chunking that follows the recorded one); each of the
  scenario's reasoning strings is sent as `reasoning_content` after the delta in
  which it ends. The audit does not trust this stream: what a client must see is
  judged by the SPEC model (`compare.expectation`), so a reference bug here shows
  as a wrong answer upstream, not as a moved yardstick.

A request names the shape with a suffix on the scenario name, `ID` (inline) or
`ID:native`, because a gateway forwards the model name to its upstream where it
may drop a header or a body field. A gateway may also put its provider prefix
in front (`openai/ID`, `acme:ID`); the part after the last `/`, and after a
first `:`, is tried as well.
"""

from __future__ import annotations

import dataclasses
from enum import StrEnum
from functools import lru_cache

from scrubcheck.gateway.capture import Chunk
from scrubcheck.gateway.replay import Catalog, Replay, scenario_chunks
from scrubcheck.model import Context, Scenario
from scrubcheck.scrubbers.reference import make_scrubber


class Shape(StrEnum):
    INLINE = "inline"
    NATIVE = "native"


SHAPE_DESCRIPTIONS = {
    Shape.INLINE: "reasoning inline in content with its delimiters (a model server without "
                  "a reasoning parser)",
    Shape.NATIVE: "reasoning on reasoning_content, the answer in content (a model server "
                  "with a reasoning parser)",
}
SEPARATOR = ":"


def selector(scenario_id: str, shape: Shape) -> str:
    """The name that asks the replay server for `scenario_id` in `shape`."""
    return scenario_id if shape is Shape.INLINE else f"{scenario_id}{SEPARATOR}{shape.value}"


def parse_selector(name: str) -> tuple[str, Shape]:
    """(base name, shape) of a requested name; a name without a shape suffix is inline."""
    base, sep, suffix = name.rpartition(SEPARATOR)
    if sep and base and suffix in Shape.__members__.values():
        return base, Shape(suffix)
    return name, Shape.INLINE


def _candidates(name: str) -> list[str]:
    """The name as sent, then without a gateway's provider prefix: `openai/ID` -> `ID`,
    and `acme:ID` -> `ID` (a `:` prefix, which some gateways use; a shape suffix is
    taken off later, so `acme:ID:native` -> `ID:native`)."""
    names = [name]
    if "/" in name and name.rsplit("/", 1)[1]:
        name = name.rsplit("/", 1)[1]
        names.append(name)
    prefix, sep, rest = name.partition(SEPARATOR)
    if sep and prefix and rest and prefix not in Shape.__members__.values():
        names.append(rest)
    return names


def resolve(catalog: Catalog, model: str, chosen: str | None = None) -> Replay | None:
    """The stream a request asks for: `chosen` (the request's `scenario` field or
    scenario header) when given, else the model; None when nothing matches. A
    capture has no native shape: asking for one is a miss."""
    def find(name: str) -> Replay | None:
        return catalog.lookup(model, name) if chosen is not None else catalog.lookup(name)

    for name in _candidates(chosen if chosen is not None else model):
        replay = find(name)  # a name as it is first: a capture may be called `x:native`
        if replay is not None:
            return replay
        base, shape = parse_selector(name)
        replay = find(base) if shape is not Shape.INLINE else None
        if replay is None:
            continue
        scenario = catalog.scenarios.get(replay.scenario or "")
        if scenario is None or replay.name != scenario.id:
            return None
        return shape_replay(scenario, shape)
    return None


def shape_replay(scenario: Scenario, shape: Shape) -> Replay:
    """What the replay server plays for `scenario` in `shape`, with the context it
    announces (the native stream's content is the answer: no flags, same vocabulary)."""
    return Replay(selector(scenario.id, shape), shape_chunks(scenario, shape),
                  shape_context(scenario, shape), scenario.id)


def shape_context(scenario: Scenario, shape: Shape) -> Context:
    if shape is Shape.INLINE:
        return scenario.context
    return dataclasses.replace(scenario.context.for_rescrub(),
                               finish_reason=scenario.context.finish_reason)


def shape_chunks(scenario: Scenario, shape: Shape) -> tuple[Chunk, ...]:
    return scenario_chunks(scenario) if shape is Shape.INLINE else native_chunks(scenario)


@lru_cache(maxsize=256)
def native_chunks(scenario: Scenario) -> tuple[Chunk, ...]:
    """The scenario as a server with a reasoning parser streams it (see the module text).
    Cached: an audit asks for each stream twice (streaming and not), and the longest
    scenarios cost the reference tens of milliseconds."""
    context = scenario.context
    scrubber = make_scrubber(context)
    outputs = [scrubber.feed(delta) for delta in scenario.deltas]
    outputs[-1:] = [outputs[-1] + scrubber.flush()] if outputs else [scrubber.flush()]
    pending = _reasoning_ends(scenario)
    chunks: list[Chunk] = []
    end = 0
    for index, output in enumerate(outputs):
        end += len(scenario.deltas[index]) if index < len(scenario.deltas) else 0
        last = index == len(outputs) - 1
        while pending and (pending[0][0] <= end or last):
            chunks.append(Chunk(reasoning_content=pending.pop(0)[1]))
        if output:
            chunks.append(Chunk(content=output))
    if chunks:
        chunks[0] = dataclasses.replace(chunks[0], role="assistant")
    else:
        chunks.append(Chunk(role="assistant"))
    if context.finish_reason is not None:
        chunks.append(Chunk(finish_reason=context.finish_reason))
    return tuple(chunks)


def _reasoning_ends(scenario: Scenario) -> list[tuple[int, str]]:
    """The scenario's reasoning strings (the corpus's own list of what must stay hidden),
    each with the text position where it ends, in stream order; a string not found in the
    text (the corpus normalises some) goes first."""
    text, at, found = scenario.text, 0, []
    for reasoning in scenario.reasoning:
        if not reasoning.strip():
            continue
        start = text.find(reasoning, at)
        if start < 0:
            start = text.find(reasoning)
        end = start + len(reasoning) if start >= 0 else 0
        at = max(at, end)
        found.append((end, reasoning))
    return sorted(found, key=lambda item: item[0])
