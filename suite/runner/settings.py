"""How a run is configured; one object travels to every worker process."""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass, field

from scrubcheck.chunking import Caps


def default_jobs() -> int:
    """All cores this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


@dataclass(frozen=True)
class RunSettings:
    seed: int = 0
    timeout_s: float = 60.0  # per scenario; a scrubber that hangs is killed and reported TIMEOUT
    level: str = "must"  # "must" or "should": which failures make the run fail
    jobs: int | None = None  # worker processes; None: all cores
    random_count: int = 8
    caps: Caps = field(default_factory=Caps)
    linear_check: bool = True  # the once-per-scrubber R-ROBUST-2 measurement
    linear_timeout_s: float = 60.0  # CPU seconds; it takes a few by design: its own timeout
    corpus_paths: tuple[str, ...] = ()  # repeated in replay commands so they find the scenario

    @property
    def workers(self) -> int:
        return self.jobs if self.jobs and self.jobs > 0 else default_jobs()

    def to_dict(self) -> dict:
        data = asdict(self)
        data["jobs"] = self.workers
        data["corpus_paths"] = list(self.corpus_paths)
        return data
