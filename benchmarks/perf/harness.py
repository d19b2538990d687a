"""A full `scrubcheck run` of the reference, against the time spent inside the scrubber.

The run is the real one (`scrubcheck.runner.run_corpus`: worker processes, the
whole chunking matrix, every check, the linear-time check), with the reference
adapter's `open` wrapped so that every stream's session adds the time spent in
the scrubber's constructor, `feed` and `flush` to a per-worker slot of shared
memory. harness ratio = wall time of the run / time inside the scrubber (the
same clock, the same run). The same run with 1 and 2 worker processes gives the
speed-up of `--jobs`.
"""

from __future__ import annotations

import multiprocessing
import os
import time
from dataclasses import dataclass

from scrubcheck.adapters import load_adapter
from scrubcheck.model import Scenario
from scrubcheck.runner import RunSettings, run_corpus

SLOTS = 256


@dataclass
class HarnessRun:
    jobs: int
    scenarios: int
    chunkings: int
    checks: int
    passed: int
    wall_s: float
    cpu_s: float  # this process and its workers
    scrubber_s: float

    @property
    def ratio(self) -> float:
        return self.wall_s / max(self.scrubber_s, 1e-9)


class _Clock:
    """Per-process accumulation of scrubber time into a shared array (one writer per slot)."""

    def __init__(self) -> None:
        self.slots = multiprocessing.RawArray("d", SLOTS)
        self.next = multiprocessing.Value("i", 0)
        self.pid = -1
        self.slot = 0
        self.pending = 0.0

    def add(self, seconds: float) -> None:
        self.pending += seconds

    def settle(self) -> None:
        if self.pid != os.getpid():  # first use in this (forked) process: take a slot
            with self.next.get_lock():
                self.slot = self.next.value % SLOTS
                self.next.value += 1
            self.pid = os.getpid()
        self.slots[self.slot] += self.pending
        self.pending = 0.0

    def reset(self) -> None:
        for i in range(SLOTS):
            self.slots[i] = 0.0
        self.pending = 0.0

    def total(self) -> float:
        return sum(self.slots) + self.pending


class _TimedSession:
    """Only what the runner uses of a session; no `run_batch`, no `time_stream`."""

    def __init__(self, session, clock: _Clock) -> None:  # type: ignore[no-untyped-def]
        self._session = session
        self._clock = clock
        self.reasoning = session.reasoning

    def feed(self, delta: str) -> object:
        start = time.perf_counter()
        try:
            return self._session.feed(delta)
        finally:
            self._clock.pending += time.perf_counter() - start

    def flush(self) -> object:
        start = time.perf_counter()
        try:
            return self._session.flush()
        finally:
            self._clock.pending += time.perf_counter() - start
            self._clock.settle()


def _timed_open(adapter, clock: _Clock):  # type: ignore[no-untyped-def]
    original = adapter.open

    def open_timed(context):  # type: ignore[no-untyped-def]
        clock.settle()
        start = time.perf_counter()
        try:
            session = original(context)
        finally:
            clock.pending += time.perf_counter() - start
        return _TimedSession(session, clock)

    return original, open_timed


def measure(
    scenarios: list[Scenario], jobs: int, random_count: int = 8, spec: str = "reference",
    clock: _Clock | None = None, linear_check: bool = True,
) -> HarnessRun:
    """One run of `spec` over `scenarios` with `jobs` workers, its scrubber time counted."""
    clock = clock or _Clock()
    clock.reset()
    adapter = load_adapter(spec)  # cached: the forked workers load this same object
    original, timed = _timed_open(adapter, clock)
    adapter.open = timed  # type: ignore[method-assign]
    before = os.times()
    started = time.perf_counter()
    try:
        run = run_corpus(spec, scenarios, RunSettings(jobs=jobs, random_count=random_count,
                                                      linear_check=linear_check))
    finally:
        adapter.open = original  # type: ignore[method-assign]
    wall = time.perf_counter() - started
    after = os.times()
    cpu = sum(after[:4]) - sum(before[:4])
    rows = run.results
    counts = run.counts()
    return HarnessRun(
        jobs=jobs, scenarios=len(rows), chunkings=sum(r.chunkings_run for r in rows),
        checks=sum(r.checks_run for r in [*rows, *run.scrubber_checks]),
        passed=counts.get("PASS", 0), wall_s=wall, cpu_s=cpu, scrubber_s=clock.total(),
    )
