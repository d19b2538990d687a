"""How far a run has got, on stderr: a bar on a terminal, short lines in a log.

A CI log is not a terminal, and a run that prints nothing for minutes looks
hung; so when stderr is not a TTY a line is printed at each tenth of the
scenarios and at least every LOG_EVERY_S seconds while anything runs.
"""

from __future__ import annotations

import sys
import time
from collections import Counter
from typing import TextIO

from scrubcheck.results import Outcome, ScenarioResult

LOG_EVERY_S = 15.0
LOG_STEPS = 10  # a line at each tenth of the scenarios


class RunProgress:
    def __init__(self, total: int, timeout_s: float, stream: TextIO | None = None) -> None:
        self.total = total
        self.timeout_s = timeout_s
        self.stream = stream or sys.stderr
        self.finished = 0
        self.counts: Counter = Counter()
        self.began = self.last_line = time.monotonic()
        self.step = 0
        self.phase = "scenarios"
        self.bar = self._bar() if self.stream.isatty() else None

    def _bar(self):
        from tqdm import tqdm

        tqdm.monitor_interval = 0  # no monitor thread: workers are forked
        return tqdm(total=self.total, unit="scenario", file=self.stream, dynamic_ncols=True,
                    desc="scenarios")

    def _line(self, text: str) -> None:
        elapsed = time.monotonic() - self.began
        print(f"scrubcheck: {text} ({elapsed:.0f} s elapsed)", file=self.stream, flush=True)
        self.last_line = time.monotonic()

    def _tally(self) -> str:
        problems = ", ".join(f"{self.counts[o]} {o.value}" for o in
                             (Outcome.FAIL, Outcome.ERROR, Outcome.TIMEOUT) if self.counts[o])
        percent = 100 * self.finished // max(self.total, 1)
        return (f"{self.finished}/{self.total} scenarios done ({percent}%)"
                + (f": {problems}" if problems else ""))

    def _phase(self, name: str, line: str) -> None:
        self.phase = name
        if self.bar is not None:
            self.bar.set_description(name)
        else:
            self._line(line)

    def linear_started(self) -> None:
        self._phase("linear-time check",
                    f"linear-time check (R-ROBUST-2), at most {self.timeout_s:g} s")

    def scenarios_started(self) -> None:
        self._phase("scenarios",
                    f"running {self.total} scenarios, at most {self.timeout_s:g} s each")

    def done(self, result: ScenarioResult, linear: bool = False) -> None:
        if linear:
            if self.bar is None:
                self._line(f"linear-time check: {result.outcome.value}")
            return
        self.finished += 1
        self.counts[result.outcome] += 1
        if self.bar is not None:
            self.bar.update(1)
            if result.outcome is not Outcome.PASS:
                self.bar.set_postfix_str(
                    f"{result.outcome.value.lower()}: {result.scenario_id}"[:40])
            return
        step = LOG_STEPS * self.finished // max(self.total, 1)
        if step > self.step:
            self.step = step
            self._line(self._tally())

    def tick(self) -> None:
        """Called while waiting: a line when the log has been quiet too long."""
        if self.bar is None and time.monotonic() - self.last_line >= LOG_EVERY_S:
            self._line(self._tally() if self.phase == "scenarios"
                       else f"{self.phase} still running")

    def close(self, interrupted: bool = False) -> None:
        if self.bar is not None:
            self.bar.close()
        if interrupted:
            print(f"scrubcheck: interrupted after {self._tally()}", file=self.stream,
                  flush=True)
