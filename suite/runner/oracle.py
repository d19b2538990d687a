"""What the reference scrubber says about a scenario: the harness's yardstick.

Used for two things only: where something was removed (the R-WS-1 cut
positions, trusted only when the reference reproduces `visible`) and how much
output the reference had emitted after each one-character feed (hold-back lag,
R-STREAM-1/2). If the reference fails, both are left out and the runner notes it.
"""

from __future__ import annotations

import traceback
from dataclasses import dataclass

from scrubcheck.model import Scenario


@dataclass
class ReferenceView:
    output: str | None = None
    cuts: list[int] | None = None
    char_ends: list[int] | None = None  # cumulative output length after each 1-char feed
    problem: str | None = None


def reference_view(scenario: Scenario, *, char_run: bool) -> ReferenceView:
    view = ReferenceView()
    try:
        from scrubcheck.scrubbers.reference import ReferenceScrubber, scrub_with_cuts

        view.output, view.cuts = scrub_with_cuts(scenario.text, scenario.context)
        if char_run:
            scrubber = ReferenceScrubber(**scenario.context.as_kwargs())
            ends, total = [], 0
            for char in scenario.text:
                total += len(scrubber.feed(char))
                ends.append(total)
            scrubber.flush()
            view.char_ends = ends
    except Exception as exc:  # the yardstick broke: report, do not guess
        last = traceback.extract_tb(exc.__traceback__)[-1]
        view.problem = f"reference scrubber raised {type(exc).__name__}: {exc} " \
                       f"({last.filename.rsplit('/', 1)[-1]}:{last.lineno})"
    return view
