"""any_backtick_guard: a backtick run is closed by the next run of any length.

Field bug modelled: a code guard that tracks "inside backticks" as a toggle.
In ``` ``<think>`secret</think> after ``` the runs have unequal lengths, so no
span forms and the open tag is a tag (SPEC R-CODE-3); this guard pairs `` with
` and keeps the block as literal code, showing the reasoning
(docs/field.md#fm-code: guard bypass with unequal backtick runs). Everything
else is the reference scrubber.
"""

from __future__ import annotations

from bisect import bisect_left

from scrubcheck.scrubbers.reference import ReferenceScrubber
from scrubcheck.scrubbers.reference.hooks import BACKTICK_RUN, LineIndex, Quirks


class _AnyRunIndex(LineIndex):
    def __init__(self, line: str, *, cut: bool = False) -> None:
        super().__init__(line, cut=cut)
        self.ends = [m.end() for m in BACKTICK_RUN.finditer(line)]

    def run_end_from(self, length: int, offset: int, *, closes_at_cut: bool = True
                     ) -> int | None:
        k = bisect_left(self.starts, offset)  # the bug: any later run closes the span
        if k == len(self.starts) or (not closes_at_cut and self.starts[k] == self.cut_run):
            return None  # the cut's run of unknown length, as the reference reads it
        return self.ends[k]


def _any_run_index(line: str, index: LineIndex) -> LineIndex:
    return _AnyRunIndex(line, cut=index.cut_run is not None)


class AnyBacktickGuardScrubber(ReferenceScrubber):
    quirks = Quirks(line_index=_any_run_index)
