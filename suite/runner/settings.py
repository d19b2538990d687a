"""How a run is configured; one object travels to every worker process."""

from __future__ import annotations

import os
import re
from dataclasses import asdict, dataclass, field

from scrubcheck.chunking import Caps
from scrubcheck.corpus.shard import Shard


def default_jobs() -> int:
    """All cores this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


@dataclass(frozen=True)
class RunSettings:
    """Everything a run is configured with; recorded in every report (`to_dict`)."""

    seed: int = 0  # seeds the random chunkings and samples
    # Wall-clock seconds per scenario, and for the once-per-run linear-time check as a
    # whole: a scrubber that has not finished is killed and reported TIMEOUT (with the CPU
    # seconds it used). The linear-time check sizes its measurement to fit.
    timeout_s: float = 60.0
    level: str = "must"  # "must" or "should": which failures make the run fail
    jobs: int | None = None  # worker processes; None: all cores
    random_count: int = 8  # seeded random chunkings per scenario
    caps: Caps = field(default_factory=Caps)  # limits on chunking variants for long inputs
    linear_check: bool = True  # the once-per-scrubber R-ROBUST-2 measurement
    corpus_paths: tuple[str, ...] = ()  # repeated in replay commands so they find the scenario
    # Bytes of memory each worker process may allocate (None: no limit); hitting it is an
    # ERROR naming the limit. Processes a worker starts (peers) inherit it.
    memory_limit: int | None = None
    # "K/N": this run is one shard of a larger one (scrubcheck.corpus.shard), merged later by
    # `scrubcheck merge`; the once-per-run checks then run in shard 1 only. None: not sharded.
    shard: str | None = None
    # SPEC section 12: the conformance class judged; scenarios beyond it are BEYOND CLAIM.
    # None: the class the implementation claims (run_corpus resolves it once loaded).
    conformance_class: str | None = None

    @property
    def workers(self) -> int:
        return self.jobs if self.jobs and self.jobs > 0 else default_jobs()

    @property
    def runs_linear_check(self) -> bool:
        """Whether this run measures linear time: asked for, and not a shard other than 1."""
        return self.linear_check and (self.shard is None or Shard.parse(self.shard).owns_run_checks)

    def to_dict(self) -> dict:
        data = asdict(self)
        data["jobs"] = self.workers
        data["corpus_paths"] = list(self.corpus_paths)
        return data


_UNITS = {"": 1, "K": 1024, "M": 1024**2, "G": 1024**3, "T": 1024**4}


def parse_size(text: str) -> int:
    """`512M`, `2G`, `1.5GiB`, `1048576` -> bytes (binary units); ValueError otherwise."""
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([KMGT]?)(?:i?B)?\s*", text, re.IGNORECASE)
    if not match:
        raise ValueError(f"not a size: {text!r} (use e.g. 512M or 2G)")
    size = int(float(match.group(1)) * _UNITS[match.group(2).upper()])
    if size <= 0:
        raise ValueError(f"a size must be positive: {text!r}")
    return size


def format_size(size: int) -> str:
    """Bytes in the largest binary unit that keeps it readable: `512 MiB`, `2 GiB`."""
    for unit in ("T", "G", "M", "K"):
        if size >= _UNITS[unit]:
            return f"{size / _UNITS[unit]:g} {unit}iB"
    return f"{size} bytes"
