"""scrubcheck's reference scrubber: streaming, linear, and the executable form of SPEC.md.

The public face of the package, and the only one the harness (`suite/`) uses:
`make_scrubber(context)` builds one for a stream, `scrub_with_cuts` and
`strip_reasoning` are its batch forms. The harness runs the reference as an
implementation (a client's scrubber, a model server's reasoning parser, the thing
under test); it judges by the SPEC model (`scrubcheck.specmodel`), never by this
package, so a bug here shows up as a failing row rather than a moved yardstick.
The modules behind it (`scrubber`, `spans`, `tables`, `harmony`) are private:
the broken scrubbers reach their bug through `ReferenceScrubber`'s documented
hooks (see `hooks.py`), not through its private attributes.
"""

from __future__ import annotations

from scrubcheck.model import Context

from .scrubber import ReferenceScrubber


def make_scrubber(context: Context | None = None) -> ReferenceScrubber:
    """A fresh reference scrubber for one stream under `context` (SPEC's defaults when
    None): the one constructor the harness calls, so it never spells the keywords."""
    return ReferenceScrubber(**(context or Context()).as_kwargs())


def scrub_with_cuts(text: str, context: Context | None = None) -> tuple[str, list[int]]:
    """Scrub `text` as one stream; also return the output positions where something was removed.

    The cut positions let the harness apply SPEC R-WS-1 (whitespace may differ
    only around removed pieces) to another scrubber's output.
    """
    scrubber = make_scrubber(context)
    visible = scrubber.feed(text) + scrubber.flush()
    return visible, list(scrubber.last_cuts)


def strip_reasoning(text: str, **context: object) -> str:
    """Batch form: the visible answer of a whole response text."""
    # context: the constructor's keywords (a stream's Context.as_kwargs), unchecked here
    scrubber = ReferenceScrubber(**context)  # type: ignore[arg-type]
    return scrubber.feed(text) + scrubber.flush()


__all__ = ["ReferenceScrubber", "make_scrubber", "scrub_with_cuts", "strip_reasoning"]
