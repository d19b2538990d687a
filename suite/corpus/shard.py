"""`--shard K/N`: which part of a selection one of N CI jobs (or Dask tasks) runs.

A scenario belongs to shard `1 + H(id) mod N`, where H is a stable hash of its
id (SHA-256, not Python's salted `hash`). That makes the partition:

- deterministic: every machine, every Python, every run puts a scenario in the
  same shard, so N jobs started independently cover the selection exactly once;
- independent of the rest of the corpus: adding or removing a scenario moves
  only itself, so a shard's history (a flaky scenario, a slow one) stays put;
- independent of corpus order and of the other filters: `--area` and `--shard`
  commute.

A hash does not balance cost (one long scenario can make its shard the slowest);
it balances counts, which for this corpus is what matters, and it never needs
the cost of a scenario known in advance.

Checks that run once per run rather than once per scenario (the linear-time
measurement, R-ROBUST-2) belong to shard 1 alone (`Shard.owns_run_checks`).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from dataclasses import dataclass

from scrubcheck.model import Scenario

_FORM = re.compile(r"\s*(\d+)\s*/\s*(\d+)\s*")

@dataclass(frozen=True)
class Shard:
    """Shard `index` of `count` (1-based, as a user writes it: 1/3, 2/3, 3/3)."""

    index: int
    count: int

    def __post_init__(self) -> None:
        if self.count < 1:
            raise ValueError(f"shard {self}: N must be at least 1")
        if not 1 <= self.index <= self.count:
            raise ValueError(f"shard {self}: K must be between 1 and N={self.count}")

    @classmethod
    def parse(cls, text: str) -> Shard:
        """`"2/5"` -> Shard(2, 5); ValueError with a message naming the form otherwise."""
        match = _FORM.fullmatch(text or "")
        if not match:
            raise ValueError(f"--shard {text!r}: expected K/N, e.g. 2/5 (the 2nd of 5 shards)")
        return cls(int(match.group(1)), int(match.group(2)))

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"

    @property
    def owns_run_checks(self) -> bool:
        """Whether the once-per-run checks (linear time) run in this shard: shard 1's."""
        return self.index == 1

    def holds(self, key: str) -> bool:
        """Whether the scenario (or other item) named `key` belongs to this shard."""
        return shard_of(key, self.count) == self.index

    def pick(self, scenarios: Iterable[Scenario]) -> list[Scenario]:
        """This shard's scenarios, in their given order."""
        return [s for s in scenarios if self.holds(s.id)]

    def positions(self, scenarios: Iterable[Scenario]) -> list[int]:
        """Where this shard's scenarios stand in the whole selection (0-based), so that a
        merge can put the shards' results back in the unsharded order."""
        return [i for i, s in enumerate(scenarios) if self.holds(s.id)]


def shard_of(key: str, count: int) -> int:
    """The 1-based shard of `count` that `key` (a scenario id) belongs to."""
    digest = hashlib.sha256(key.encode("utf-8", "surrogatepass")).digest()
    return 1 + int.from_bytes(digest[:8], "big") % count

