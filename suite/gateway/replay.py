"""What the replay server plays: corpus scenarios and captures, looked up by model name.

A client picks a stream by the `model` it asks for:

- a scenario id (`split-open-inside-name`): that scenario;
- `area:NAME` (or a bare area name that is not also an id): the scenarios of
  that corpus area in corpus order, one per request, cycling, so an agent run
  against `area:blocks` meets each of them in turn;
- `capture:NAME`: a capture loaded with `--captures`, chunk for chunk, with
  both reasoning channels as recorded;
- a `scenario` field in the request body (`extra_body={"scenario": ID}` in the
  openai client) overrides the model, for clients whose model name is fixed.

A scenario becomes one chunk per recorded delta (the first also carries
`role: assistant`), then a chunk with an empty delta and the scenario's
`finish_reason`, as OpenAI ends its streams; no finish chunk when the
scenario's finish_reason is null.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from dataclasses import dataclass

from scrubcheck.gateway.capture import Capture, Chunk
from scrubcheck.gateway.wire import context_from_dict
from scrubcheck.model import Context, Scenario


@dataclass(frozen=True)
class Replay:
    """One stream to play: its chunks and, when known, its context (sent as a header)."""

    name: str
    chunks: tuple[Chunk, ...]
    context: Context | None = None
    scenario: str | None = None


def scenario_chunks(scenario: Scenario) -> tuple[Chunk, ...]:
    chunks = [Chunk(content=delta, role="assistant" if index == 0 else None)
              for index, delta in enumerate(scenario.deltas)]
    if not chunks:
        chunks.append(Chunk(role="assistant"))
    if scenario.context.finish_reason is not None:
        chunks.append(Chunk(finish_reason=scenario.context.finish_reason))
    return tuple(chunks)


def scenario_replay(scenario: Scenario) -> Replay:
    return Replay(scenario.id, scenario_chunks(scenario), scenario.context, scenario.id)


def capture_replay(capture: Capture) -> Replay:
    header = capture.context_header
    return Replay(f"capture:{capture.name}", tuple(capture.chunks),
                  context_from_dict(header) if header else None,
                  capture.response.get("scenario"))


class Catalog:
    """Every stream the server can play, by model name; thread-safe area cycling."""

    def __init__(self, scenarios: Iterable[Scenario], captures: Iterable[Capture] = ()) -> None:
        self.scenarios = {s.id: s for s in scenarios}
        self.areas: dict[str, list[str]] = {}
        for s in self.scenarios.values():
            self.areas.setdefault(s.area, []).append(s.id)
        self.captures = {f"capture:{c.name}": c for c in captures}
        self._next: dict[str, int] = {}
        self._lock = threading.Lock()

    def model_ids(self) -> list[str]:
        return ([f"area:{a}" for a in self.areas] + list(self.scenarios)
                + list(self.captures))

    def __contains__(self, model: str) -> bool:
        return self._area(model) is not None or model in self.scenarios \
            or model in self.captures

    def lookup(self, model: str, scenario: str | None = None) -> Replay | None:
        """The stream for a request, or None when neither name is known."""
        if scenario is not None:
            found = self.scenarios.get(scenario)
            return scenario_replay(found) if found else None
        if model in self.scenarios:
            return scenario_replay(self.scenarios[model])
        if model in self.captures:
            return capture_replay(self.captures[model])
        area = self._area(model)
        if area is None:
            return None
        with self._lock:
            index = self._next.get(area, 0)
            self._next[area] = index + 1
        ids = self.areas[area]
        return scenario_replay(self.scenarios[ids[index % len(ids)]])

    def _area(self, model: str) -> str | None:
        name = model[5:] if model.startswith("area:") else model
        if name in self.areas and (model.startswith("area:") or model not in self.scenarios):
            return name
        return None
