"""What every layer that starts a child process needs to say about it and do to it.

The runner's worker pool, the peer programs, the gateways, the hunt's sandbox and the
Dask probes each start children. Before this module the peers imported the runner
for `exit_text` (a lower layer looking up) and two copies of `die_with_parent`
differed in how they found libc; now each of them imports this one home.
"""

from __future__ import annotations

import signal


def exit_text(code: int | None) -> str:
    """A child process's exit status in words (signals by name)."""
    if code is None:
        return "exit status unknown"
    if code < 0:
        try:
            return f"killed by signal {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit code {code}"


def die_with_parent() -> None:  # pragma: no cover - runs in the child (after fork)
    """Linux: SIGKILL this process when its parent dies, even by SIGKILL, so that a
    hanging scrubber, peer or gateway never outlives the run that started it. Call it
    in the child: as `preexec_fn` or first thing after a fork. Elsewhere a no-op."""
    try:
        import ctypes

        # CDLL(None): the symbols already loaded, so glibc and musl alike
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except Exception:
        pass
