"""A time limit for one case, so a scrubber that hangs becomes a finding, not a stuck hunt.

Uses SIGALRM, so it only works in the main thread of a Unix process; elsewhere
(and inside the atheris child, where libFuzzer owns SIGALRM and its -timeout
does this job) it is a no-op.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager


class Hang(BaseException):  # noqa: N818 - not an error of ours; BaseException so no
    """The scrubber did not return in time."""  # scrubber's `except Exception` eats it


@contextmanager
def time_limit(seconds: float | None) -> Iterator[None]:
    usable = (seconds and hasattr(signal, "setitimer")
              and threading.current_thread() is threading.main_thread())
    if not usable:
        yield
        return

    def _expire(signum: int, frame: object) -> None:
        raise Hang(f"no answer within {seconds:g} s")

    previous = signal.signal(signal.SIGALRM, _expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
