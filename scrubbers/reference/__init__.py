"""scrubcheck's reference scrubber: streaming, linear, and the executable form of SPEC.md."""

from __future__ import annotations

from scrubcheck.model import Context

from .scrubber import ReferenceScrubber


def scrub_with_cuts(text: str, context: Context | None = None) -> tuple[str, list[int]]:
    """Scrub `text` as one stream; also return the output positions where something was removed.

    The cut positions let the harness apply SPEC R-WS-1 (whitespace may differ
    only around removed pieces) to another scrubber's output.
    """
    context = context or Context()
    scrubber = ReferenceScrubber(**context.as_kwargs())
    visible = scrubber.feed(text) + scrubber.flush()
    return visible, list(scrubber.last_cuts)


def strip_reasoning(text: str, **context: object) -> str:
    """Batch form: the visible answer of a whole response text."""
    # context: the constructor's keywords (a stream's Context.as_kwargs), unchecked here
    scrubber = ReferenceScrubber(**context)  # type: ignore[arg-type]
    return scrubber.feed(text) + scrubber.flush()


__all__ = ["ReferenceScrubber", "scrub_with_cuts", "strip_reasoning"]
