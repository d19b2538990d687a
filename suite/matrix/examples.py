"""The evidence behind each failure class's shortest example, kept in matrix.json.

matrix.json keeps each row's verdicts and failure classes but not what the
implementation printed: that stays in the row's own report.json (10-20 MB each,
not committed). A page that shows a failure class without its output makes the
reader run the command to see the leak; so matrix.json keeps, for each class's
example scenario only, the smallest failing stream, the implementation's output
and where in it the reasoning leaked. The site (`scrubcheck site`) marks the
leaked text from this; a stored row passes it through unchanged.

Long streams are cut, never silently: `deltas_cut` counts the deltas left out and
`got_from` says where the kept piece of the output starts, so the leak's offsets
stay true.
"""

from __future__ import annotations

from scrubcheck.matrix.classes import FailureClass
from scrubcheck.reports.analysis import reproductions
from scrubcheck.reports.html import leaked_span
from scrubcheck.results import RunResult

#: characters of stream and of output kept per example (the smallest failing chunking
#: is usually a few hundred characters; the long-input families are the exception)
KEEP_CHARS = 4000
_CONTEXT = 600  # characters of output kept either side of a leak in a cut output


def class_examples(run: RunResult, classes: list[FailureClass]) -> dict[str, dict]:
    """scenario id -> the evidence of its smallest failing reproduction, for each
    class example that has failures (a lost task has none: its reason says why)."""
    by_id = {r.scenario_id: r for r in run.results}
    examples: dict[str, dict] = {}
    for failure_class in classes:
        result = by_id.get(failure_class.example)
        if result is None or not result.failures or failure_class.example in examples:
            continue
        failure = reproductions(result)[0].failure
        span = leaked_span(failure)
        deltas, cut = _kept_deltas(failure.deltas)
        got, got_from = _kept_output(failure.got, span)
        examples[failure_class.example] = {
            "check": failure.check, "rule": failure.rule, "chunking": failure.chunking,
            "deltas": deltas, "deltas_cut": cut,
            "expected": _clip(failure.expected), "got": got, "got_from": got_from,
            "leak": None if span is None else [span[0] - got_from, span[1] - got_from],
            "detail": _clip(failure.detail), "step": failure.step,
        }
    return examples


def _kept_deltas(deltas: tuple[str, ...]) -> tuple[list[str], int]:
    kept: list[str] = []
    total = 0
    for delta in deltas:
        if total + len(delta) > KEEP_CHARS and kept:
            break
        kept.append(delta[:KEEP_CHARS])
        total += len(delta)
    return kept, len(deltas) - len(kept)


def _kept_output(got: str | None, span: tuple[int, int] | None) -> tuple[str | None, int]:
    if got is None or len(got) <= KEEP_CHARS:
        return got, 0
    start = max((span[0] if span else 0) - _CONTEXT, 0)
    return got[start:start + KEEP_CHARS], start


def _clip(value: str | None) -> str | None:
    if value is None or len(value) <= KEEP_CHARS:
        return value
    return value[:KEEP_CHARS] + f"… ({len(value) - KEEP_CHARS} more characters)"
