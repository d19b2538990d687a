"""What the harness measures a scenario against: a view over the batch model of SPEC.

Three things come from here, all from `scrubcheck.specmodel`, an implementation of
SPEC that shares no code with any scrubber under test (the reference included):
the visible text, where something was removed (the R-WS-1 cut positions, trusted
only when the model reproduces `visible`), and how much output a streaming scrubber
owes after each one-character feed (the hold-back lag of R-STREAM-1/2,
`specmodel/decided.py`).

The lag yardstick used to be the streaming reference run one character at a time.
Measured when it was replaced, over the 4,084 shipped scenarios of up to 64 Ki
characters (every one-character prefix): the reference never lags the model's due
output by more than the longest tag, and the model never asks for more than is
decided (checked against the common prefix of the model's readings of each prefix
under a set of continuations, on the 579 scenarios of a one-in-seven sample under
400 characters). tests/test_specmodel_decided.py keeps both facts.
"""

from __future__ import annotations

import traceback
from dataclasses import dataclass

from scrubcheck.model import Scenario
from scrubcheck.specmodel import read_stream
from scrubcheck.specmodel.decided import decided_ends


@dataclass
class OracleView:
    output: str | None = None
    cuts: list[int] | None = None
    char_ends: list[int] | None = None  # the output due after each 1-char feed
    problem: str | None = None


def oracle_view(scenario: Scenario, *, char_run: bool) -> OracleView:
    reading = read_stream(scenario.text, scenario.context)
    view = OracleView(output=reading.visible, cuts=list(reading.cuts))
    if char_run:
        try:
            view.char_ends = decided_ends(scenario.text, scenario.context)
        except Exception as exc:  # the lag yardstick broke: report, do not guess
            last = traceback.extract_tb(exc.__traceback__)[-1]
            view.problem = f"the SPEC model raised {type(exc).__name__}: {exc} " \
                           f"({last.filename.rsplit('/', 1)[-1]}:{last.lineno})"
    return view
