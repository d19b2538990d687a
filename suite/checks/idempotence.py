"""R-IDEM-1: scrubbing the visible output again, as one delta with the default
context and the same features, returns it unchanged (`adapters.drive.run_rescrub`
makes the re-scrub; this module judges it)."""

from __future__ import annotations

from scrubcheck.adapters.drive import Trace
from scrubcheck.checks.names import Check
from scrubcheck.checks.render import describe_difference
from scrubcheck.evidence import Evidence


def check_idempotence(trace: Trace, output: str) -> Evidence | None:
    """A finding when re-scrubbing `output` (the run `trace`) changed it."""
    if not trace.ok or trace.output == output:
        return None
    return Evidence(
        Check.IDEMPOTENCE, "R-IDEM-1",
        detail="scrubbing the output again (one delta, default context) changed it: "
        + describe_difference(output, trace.output),
        expected=output, got=trace.output,
    )
