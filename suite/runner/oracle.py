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
If the reference fails, the lag is left out and the runner notes it. Measured: the
model's nearest per-prefix reading (the common prefix of a cut stream's reading under
finish_reason length and the whole stream's output) gives the reference's emitted
length on 381,560 of 384,552 one-character prefixes of the 2,217 shipped scenarios
under 600 characters, but differs on 168 of them (by up to 96 characters), so it
would change lag verdicts; it is not the yardstick until a streaming reading of SPEC
("decided after this prefix") exists.
"""

from __future__ import annotations

import traceback
from dataclasses import dataclass

from scrubcheck.model import Context, Scenario
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
            view.char_ends = reference_char_ends(scenario.context, scenario.text)
        except Exception as exc:  # the lag yardstick broke: report, do not guess
            last = traceback.extract_tb(exc.__traceback__)[-1]
            view.problem = f"reference scrubber raised {type(exc).__name__}: {exc} " \
                           f"({last.filename.rsplit('/', 1)[-1]}:{last.lineno})"
    return view


def reference_char_ends(context: Context, text: str) -> list[int]:
    """Cumulative output length of the streaming reference after each one-character feed
    (the lag yardstick of `run` and of the hunt's holdback property, kept in one place)."""
    from scrubcheck.scrubbers.reference import make_scrubber

    scrubber = make_scrubber(context)
    ends, total = [], 0
    for char in text:
        total += len(scrubber.feed(char))
        ends.append(total)
    scrubber.flush()
    return ends
