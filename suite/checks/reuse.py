"""R-REUSE-1: after flush() a scrubber object starts the next stream clean.

One session (one scrubber object) gets a poison stream that ends in a state a
careless scrubber keeps, is flushed, and then gets the scenario's recorded
deltas: the second stream's output must equal a fresh session's. Adapters open
a fresh scrubber object per stream by design; this check still drives
flush()-then-feed on one and the same object (`adapters.drive.run_reused`
makes the two streams; this module judges the second).
"""

from __future__ import annotations

from scrubcheck.adapters.drive import Trace
from scrubcheck.checks.names import Check
from scrubcheck.checks.render import describe_difference
from scrubcheck.evidence import Evidence

#: Poison streams: name -> (text, the state it leaves behind).
POISONS: dict[str, tuple[str, str]] = {
    "unclosed-block": (
        "Sure.<think>poison planning text that must stay hidden\n</thi",
        "an unclosed block with a held partial close tag",
    ),
    "unclosed-partial-open": (
        "Sure.<think>poison planning text\n<thi",
        "an unclosed block ending in a partial open tag",
    ),
    "held-partial-tag": ("Fine, here it is <thi", "a held partial open tag"),
    "open-fence": (
        "Example:\n```text\nliteral <think> inside a fence that never closes\n",
        "a code fence that never closed",
    ),
}


def check_reuse(second: Trace, fresh_output: str, poison: str) -> Evidence | None:
    if not second.ok or second.output == fresh_output:
        return None
    return Evidence(
        Check.REUSE, "R-REUSE-1",
        detail=f"after a flushed stream that ended with {POISONS[poison][1]} "
        f"({POISONS[poison][0]!r}), the same object scrubs the recorded deltas "
        "differently from a fresh one: " + describe_difference(fresh_output, second.output),
        expected=fresh_output, got=second.output,
    )
