"""hangs: loops forever on a '<' followed by a space, as in 'a < b'.

Field bug modelled: a hand-written scan for the next '<' forgets to advance
past a '<' that cannot start a tag, so a comparison in the answer text spins
the stream worker at 100% CPU. The harness must kill it at the per-scenario
timeout, report TIMEOUT and carry on with the rest of the run.
"""

from __future__ import annotations

from scrubcheck.scrubbers.broken._simple import SimpleScrubber


class HangsScrubber(SimpleScrubber):
    def feed(self, delta: str) -> str:
        position = delta.find("<")
        while position != -1:
            if delta[position + 1 : position + 2] == " ":
                continue  # the bug: `position` is not advanced
            position = delta.find("<", position + 1)
        return super().feed(delta)
