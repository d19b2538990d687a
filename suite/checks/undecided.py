"""R-SKIP-2: nothing of a pre-filled block that may be the answer shows before it is decided.

With `may_skip_reasoning`, the pre-filled block is reasoning if a close tag comes
later, and answer text only if the stream then stops. A scrubber that emits it
early is right on streams that never close and leaks on those that do. The
truncation runs catch it on every stream: a stream cut before the close ends with
`finish_reason: length`, so nothing may show. What the cut stream may show comes
from the SPEC model (`scrubcheck.specmodel`), the yardstick of every output check,
so that the reference scrubber is judged by it like any other implementation.
"""

from __future__ import annotations

from scrubcheck.adapters.drive import Trace
from scrubcheck.checks.names import Check
from scrubcheck.checks.render import around, quoted
from scrubcheck.evidence import Evidence
from scrubcheck.model import Context
from scrubcheck.specmodel import read_stream


def undecided_applies(context: Context) -> bool:
    """Whether streams of this context have a pre-filled block that may be the answer."""
    return context.may_skip_reasoning and context.starts_in_reasoning


def check_undecided(context: Context, text: str, trace: Trace) -> Evidence | None:
    """A finding when the cut stream `text` (run with `context.truncated()`) showed text
    although SPEC shows nothing for it: its pre-filled block had not been decided."""
    if not undecided_applies(context) or not trace.output:
        return None
    if read_stream(text, context.truncated()).visible != "":
        return None
    step = trace.step_at(1)
    when = "at flush()" if step is None else f"after feed() of delta {step}"
    return Evidence(
        Check.TRUNCATION, "R-SKIP-2",
        detail=f"the stream was cut inside its pre-filled block (may_skip_reasoning, then "
        f"finish_reason length), yet {quoted(trace.output, 60)} showed {when}: "
        f"{around(trace.output, 0)}; that text stays undecided until a close or the end",
        expected="", got=trace.output, step=step,
    )
