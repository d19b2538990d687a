"""What the harness measures a scenario against: a view over the batch model of SPEC.

Two things come from here: where something was removed (the R-WS-1 cut positions,
trusted only when the model reproduces `visible`) and how much output a streaming
scrubber may already have emitted after each one-character feed (hold-back lag,
R-STREAM-1/2).

The output and the cuts come from `scrubcheck.specmodel`, an implementation of SPEC
that shares no code with any scrubber under test (the reference included).

The lag stays on the streaming reference: it is a per-prefix property (what a
scrubber could already have decided after each feed), and SPEC R-STREAM-1 defines it
by what must still be held to decide; a batch reading of whole streams cannot say
that without either reading every prefix (quadratic on the long streams) or becoming
a second streaming scrubber. It is a SHOULD-level measurement, and the reference's
agreement with the model on every output (tests/test_specmodel.py) keeps it honest.
If the reference fails, the lag is left out and the runner notes it.
"""

from __future__ import annotations

import traceback
from dataclasses import dataclass

from scrubcheck.model import Scenario
from scrubcheck.specmodel import read_stream


@dataclass
class OracleView:
    output: str | None = None
    cuts: list[int] | None = None
    char_ends: list[int] | None = None  # the reference's output length after each 1-char feed
    problem: str | None = None


def oracle_view(scenario: Scenario, *, char_run: bool) -> OracleView:
    reading = read_stream(scenario.text, scenario.context)
    view = OracleView(output=reading.visible, cuts=list(reading.cuts))
    if char_run:
        try:
            view.char_ends = _reference_char_ends(scenario)
        except Exception as exc:  # the lag yardstick broke: report, do not guess
            last = traceback.extract_tb(exc.__traceback__)[-1]
            view.problem = f"reference scrubber raised {type(exc).__name__}: {exc} " \
                           f"({last.filename.rsplit('/', 1)[-1]}:{last.lineno})"
    return view


def _reference_char_ends(scenario: Scenario) -> list[int]:
    """Cumulative output length of the streaming reference after each one-character feed."""
    from scrubcheck.scrubbers.reference import make_scrubber

    scrubber = make_scrubber(scenario.context)
    ends, total = [], 0
    for char in scenario.text:
        total += len(scrubber.feed(char))
        ends.append(total)
    scrubber.flush()
    return ends
