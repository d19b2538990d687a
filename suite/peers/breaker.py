"""When to stop asking a misbehaving peer: a circuit breaker per run.

Without it, a peer that answers garbage is killed and restarted for every
stream of every scenario (hundreds per scenario: 260 s for the 27 `blocks`
scenarios against 1 s for a working peer), and a peer whose requests time out
costs its timeout for every one of them. The breaker bounds that:

- **Stop** after FAILURES_TO_TRIP (3) failed requests in a row of the same
  kind (the process died, a request timed out, an answer that is not JSON, an
  answer to another request, a request rejected as wrong): the third one's
  stream fails with a `PeerGivenUp` reason naming the kind, the last failure
  and the peer's stderr. Three, so that one unlucky crash or a slow start is
  not mistaken for a broken peer.
- **After a stop**, the next request is a single try: if it fails too, that
  is the next stop at once (the peer has answered nothing since).
- **Give up** after SCENARIOS_TO_GIVE_UP (5) stops in a row: every later
  request fails at once, without starting the peer, with one reason naming
  the peer, the failure kind and the last lines of its stderr. Five, so that
  a peer that crashes on one family of inputs (a few neighbouring scenarios)
  keeps the rest of its results.

Any good answer to a scrubbing request (`run`, `feed`, `time`, ... but not the
`hello` that follows every restart) resets both counts: a peer that works now
and then is never given up. A scrubber that raises inside the peer is a good
answer (the protocol worked); the checks judge it, not the breaker.

So a peer that fails every request costs at most 3 + 4 = 7 failed requests
(7 timeouts for a peer that hangs) in a whole run. The breaker never raises
out of a stream: a stop is the stream's error (`peer() raised PeerGivenUp:
...`), so every caller (`run`, `show`, `hunt`, the gateway checks) goes on.

The counts belong to the adapter (`load_adapter` keeps one per spec and
process), in memory its forked copies share: the runner's workers are forked
from the process that loaded the adapter, so a stop in one worker counts for
all of them, and a worker killed and replaced by the runner (its scenario
timed out) keeps counting where the last one stopped. Closing the adapter
starts the counts afresh.
"""

from __future__ import annotations

import ctypes
import multiprocessing
from dataclasses import dataclass

FAILURES_TO_TRIP = 3  # N: failed requests of one kind in a row that stop a scenario
SCENARIOS_TO_GIVE_UP = 5  # M: stops (scenarios stopped) in a row that end the peer's run
STDERR_LINES = 5  # lines of the peer's stderr quoted when the run gives up
_REASON_BYTES = 4096


class PeerGivenUp(Exception):
    """The breaker's verdict on a request: a stop (`scope` "stop") or the run's end
    (`scope` "run"). Its message is the whole reason, ready for a report."""

    PREFIX = "PeerGivenUp: "  # how a stream error from the breaker begins (the runner looks)

    def __init__(self, reason: str, scope: str) -> None:
        super().__init__(reason)
        self.reason = reason
        self.scope = scope

    def describe(self) -> str:
        return self.PREFIX + self.reason


@dataclass(frozen=True)
class Failure:
    """One failed request, as the breaker needs it."""

    kind: str  # one of the PeerFailure kinds (scrubcheck.peers.process)
    message: str  # what happened, in words
    stderr_tail: str = ""


class _Shared:
    """The run's counts, in memory that forked workers share."""

    def __init__(self) -> None:
        context = multiprocessing.get_context("fork")
        self.lock = context.Lock()
        self.streak = context.RawValue(ctypes.c_int, 0)  # failures in a row, of `kind`
        self.stopped = context.RawValue(ctypes.c_int, 0)  # scenarios stopped in a row
        self.kind = context.RawArray(ctypes.c_char, 64)
        self.given_up = context.RawArray(ctypes.c_char, _REASON_BYTES)  # empty: not given up


class Breaker:
    """The circuit breaker of one peer in one run (see the module docstring)."""

    def __init__(self, peer: str) -> None:
        self.peer = peer
        self.shared = _Shared()

    def reset(self) -> None:
        """Forget everything: the next request starts a new run."""
        self.shared = _Shared()

    def given_up(self) -> PeerGivenUp | None:
        """The run's end, once the breaker has given up on the peer (send nothing then)."""
        reason = self.shared.given_up.value
        return PeerGivenUp(reason.decode("utf-8", "replace"), "run") if reason else None

    def succeeded(self) -> None:
        """A good answer: the peer works, both counts start again."""
        shared = self.shared
        if shared.streak.value or shared.stopped.value:
            with shared.lock:
                shared.streak.value = 0
                shared.stopped.value = 0

    def failed(self, failure: Failure) -> PeerGivenUp | None:
        """Count a failed request; the stop or the end of the run it makes, if any."""
        shared = self.shared
        kind = failure.kind.encode()[:63]
        with shared.lock:
            if shared.given_up.value:
                return self.given_up()
            if shared.kind.value == kind:
                shared.streak.value += 1
            else:
                shared.kind.value, shared.streak.value = kind, 1
            streak, stopped = shared.streak.value, shared.stopped.value
            if streak < (1 if stopped else FAILURES_TO_TRIP):
                return None
            shared.stopped.value = stopped = stopped + 1
            shared.streak.value = 0
            if stopped >= SCENARIOS_TO_GIVE_UP:
                reason = self._give_up_reason(failure, stopped)
                shared.given_up.value = _clip(reason)
                return PeerGivenUp(reason, "run")
        return PeerGivenUp(self._stop_reason(failure, streak, stopped), "stop")

    def _stop_reason(self, failure: Failure, streak: int, stopped: int) -> str:
        why = (f"{streak} requests in a row failed the same way ({failure.kind})" if stopped == 1
               else f"failed again ({failure.kind}) on the one try after {stopped - 1} "
               "stop(s) in a row")
        return (f"peer {self.peer} stopped: {why}; last: {failure.message}; the next request "
                f"is one try (after {SCENARIOS_TO_GIVE_UP} stops in a row the run gives up on "
                f"the peer); {_stderr(failure.stderr_tail, STDERR_LINES)}")

    def _give_up_reason(self, failure: Failure, stopped: int) -> str:
        return (f"peer {self.peer} given up for the rest of the run after {stopped} stops in a "
                f"row ({failure.kind}); last: {failure.message}; the peer is not started "
                f"again; {_stderr(failure.stderr_tail, STDERR_LINES)}")


def _stderr(tail: str, lines: int) -> str:
    kept = [line for line in tail.strip().splitlines() if line.strip()][-lines:]
    if not kept:
        return "peer stderr: empty"
    return "peer stderr (last lines): " + " | ".join(line.strip()[:300] for line in kept)


def _clip(reason: str) -> bytes:
    data = reason.encode("utf-8")
    if len(data) < _REASON_BYTES:
        return data
    return data[: _REASON_BYTES - 4].decode("utf-8", "ignore").encode("utf-8") + b"..."
