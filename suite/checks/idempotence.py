"""R-IDEM-1: scrubbing the visible output again, as one delta with the default
context and the same features, returns it unchanged."""

from __future__ import annotations

from scrubcheck.adapters import Adapter
from scrubcheck.checks.names import Check
from scrubcheck.checks.render import describe_difference
from scrubcheck.checks.trace import Trace, run_stream
from scrubcheck.evidence import Evidence
from scrubcheck.model import Context


def check_idempotence(
    adapter: Adapter, context: Context, output: str
) -> tuple[Trace, Evidence | None]:
    """Re-scrub `output` in a fresh session; the trace shows what happened."""
    trace = run_stream(adapter, context.for_rescrub(), (output,))
    if not trace.ok or trace.output == output:
        return trace, None
    return trace, Evidence(
        Check.IDEMPOTENCE, "R-IDEM-1",
        detail="scrubbing the output again (one delta, default context) changed it: "
        + describe_difference(output, trace.output),
        expected=output, got=trace.output,
    )
