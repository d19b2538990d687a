"""A deadline on the monotonic clock: how scrubcheck waits for something with a time limit.

A peer's answer, the hunt sandbox's answer, a gateway's first 200 and the shrinker's
budget each wait with a limit. Each used to add `time.monotonic() + seconds` and
subtract the time left by hand, some with None for "no limit" and some without; one
class now says what the time left is, when it has passed and how long a blocking wait
(select, poll) may take.
"""

from __future__ import annotations

import math
import time


class Deadline:
    """`seconds` from now on the monotonic clock (None: no limit)."""

    __slots__ = ("end",)

    def __init__(self, seconds: float | None) -> None:
        self.end = None if seconds is None else time.monotonic() + seconds

    def left(self) -> float:
        """Seconds left: 0.0 once passed, math.inf without a limit."""
        if self.end is None:
            return math.inf
        return max(0.0, self.end - time.monotonic())

    def passed(self) -> bool:
        return self.end is not None and time.monotonic() >= self.end

    def wait_s(self) -> float | None:
        """How long a blocking wait may take: the seconds left, or None without a limit
        (as select and poll spell "wait as long as it takes")."""
        return None if self.end is None else self.left()
