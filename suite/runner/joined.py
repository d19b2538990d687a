"""Batch implementations see only the joined text: run each distinct input once.

A batch scrubber or batch splitter (in process: `batch:`/`splitter:` functions,
buffered by the harness; a peer of a batch kind, buffered by its protocol loop)
never sees how the stream was cut: every chunking of a scenario is the same
call `f(text)`, and the harness records `""` for each feed() and the function's
answer at flush(). So the first chunking's run answers for all the others: the
trace of another chunking of the same text is that run's flush answer behind
that chunking's own deltas, exactly what running it would record. Every check
is still judged per chunking on that trace (leak step, tags, expected output,
invariance, hold-back), so verdicts do not change; only the calls are saved,
which for a peer is one round trip per chunking with every delta on the wire.

Reused only from a clean run (flushed, every return a `str`, every feed `""`):
a batch implementation that raised, returned a non-str, or emitted text before
flush (a peer whose program does not buffer) is run on every chunking, so its
failures keep their own steps. What this cannot see is a batch function whose
answer changes from call to call for the same text (randomness, time): R-CHUNK-1
then compares one answer with itself. That is the price of the saving, and such
a function is still caught by idempotence (R-IDEM-1) and by `hunt`.
"""

from __future__ import annotations

from scrubcheck.adapters import Adapter
from scrubcheck.adapters.drive import Trace, run_stream
from scrubcheck.model import Context

#: Off only to prove (in tests) that reusing runs changes no verdict.
ENABLED = True


def sees_joined_text(adapter: Adapter) -> bool:
    """Whether the adapter's scrubber gets the stream only as one joined text."""
    return not adapter.streams


class JoinedTextRuns:
    """`run(deltas)`: run_stream, once per distinct joined text for a batch adapter."""

    def __init__(self, adapter: Adapter, context: Context) -> None:
        self.adapter = adapter
        self.context = context
        self.reuse = ENABLED and sees_joined_text(adapter)
        self.clean: dict[str, Trace] = {}  # joined text -> a clean run of it
        self.saved = 0  # streams answered from an earlier run

    def run(self, deltas: tuple[str, ...]) -> Trace:
        if not self.reuse:
            return run_stream(self.adapter, self.context, deltas)
        text = "".join(deltas)
        earlier = self.clean.get(text)
        if earlier is not None:
            self.saved += 1
            return _behind(earlier, deltas)
        trace = run_stream(self.adapter, self.context, deltas)
        if _clean_batch_run(trace):
            self.clean[text] = trace
        return trace


def _clean_batch_run(trace: Trace) -> bool:
    feeds = trace.returns[:-1]
    return (trace.ok and not trace.bad_returns and len(trace.returns) == len(trace.deltas) + 1
            and not any(feeds))


def _behind(earlier: Trace, deltas: tuple[str, ...]) -> Trace:
    """The trace running `deltas` would record: a "" per feed, then the same flush."""
    answer = earlier.returns[-1]
    return Trace(tuple(deltas), returns=[""] * len(deltas) + [answer],
                 ends=[0] * len(deltas) + [len(answer)], reasoning=earlier.reasoning,
                 flushed=True)
