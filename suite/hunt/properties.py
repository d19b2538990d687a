"""The properties, each mapped to SPEC rules, checked on one case.

They reuse the harness's checks (trace, leak windows, tag scanner, expected
output under R-WS-1, idempotence, truncation, hold-back); this module only
decides which runs to make and turns each check's evidence into the
property's (`Violation`: the same record, naming the property and the partition
showing it). Runs are made lazily: the caller stops at the
first violation it does not know yet.
"""

from __future__ import annotations

from collections.abc import Iterator

from scrubcheck.adapters import Adapter
from scrubcheck.adapters.drive import (
    Trace,
    run_rescrub,
    run_stream,
    run_truncated,
    truncate_deltas,
)
from scrubcheck.checks import (
    Check,
    LeakDetector,
    check_exception,
    check_idempotence,
    check_leak,
    check_truncation,
    check_types,
    measure_holdback,
)
from scrubcheck.checks.registry import BY_NAME, Subject, output_checks, stream_checks
from scrubcheck.checks.render import around, describe_difference, first_difference
from scrubcheck.evidence import Evidence
from scrubcheck.hunt.case import Case
from scrubcheck.hunt.violation import Violation
from scrubcheck.model import Scenario
from scrubcheck.specmodel import decided_ends
from scrubcheck.vocabulary import fold

Known = frozenset[tuple[str, str]]


def first_violation(
    adapter: Adapter,
    case: Case,
    *,
    against: Adapter | None = None,
    known: Known | set[tuple[str, str]] = frozenset(),
) -> Violation | None:
    """The first violation of `case` whose signature is not in `known`, or None.

    It calls the scrubber in this process, unguarded: `hunt` and `fuzz` call it in a
    sandbox child (`scrubcheck.hunt.sandbox`), which turns a hang or a crash into a
    violation of its own; the fuzz target runs under libFuzzer's -timeout.
    """
    for violation in violations(adapter, case, against=against):
        if violation.signature not in known:
            return violation
    return None


def violations(adapter: Adapter, case: Case, *, against: Adapter | None = None
               ) -> Iterator[Violation]:
    """Every property of `case`, in order: robustness, leak, tags, answer, chunking,
    idempotence, truncation, hold-back, agreement with `against`."""
    context = case.context
    detector = LeakDetector(case.reasoning, case.text)
    runs: dict[tuple[str, ...], Trace] = {}

    def run(deltas: tuple[str, ...]) -> Trace:
        if deltas not in runs:
            runs[deltas] = run_stream(adapter, context, deltas)
        return runs[deltas]

    first = run(case.deltas)
    yield from _robust(first, case.deltas)
    yield from _leak(first, detector, case.deltas)
    if not first.ok:
        return
    subject = _subject(case)
    for entry in output_checks(subject):  # no-tag, answer, ... (checks.registry)
        yield from _from(_foreign(case, first.output, entry.judge(subject, first.output)),
                         case.deltas)
    second = run(case.other)
    yield from _robust(second, case.other)
    yield from _leak(second, detector, case.other)
    if second.ok and second.output != first.output:
        yield _chunking(case, first, second)
    trace = run_rescrub(adapter, context, first.output)
    yield from _robust(trace, (first.output,), "re-scrubbing the output: ")
    yield from _from(check_idempotence(trace, first.output), case.deltas)
    yield from _truncation(adapter, case, detector)
    chars = tuple(case.text)
    if adapter.streams and chars in runs:  # measured where a partition is one char each
        yield from _holdback(case, runs[chars])
    yield from _own_runs(adapter, subject)
    if against is not None:
        yield from _differential(against, case, first.output)


def _own_runs(adapter: Adapter, subject: Subject) -> Iterator[Violation]:
    """Each registry check with stream runs of its own, on the case as a scenario: the
    same planned runs and judgement as in `scrubcheck run` (`checks.registry`)."""
    for entry, planned in stream_checks(subject):
        if entry.prop is None or entry.on_runs is None:
            continue  # not searched by the hunt
        traces = {run.label: run_stream(adapter, run.context, run.deltas) for run in planned}
        for trace in traces.values():
            yield from _robust(trace, trace.deltas)
        clean = {label: trace for label, trace in traces.items() if trace.ok}
        if clean:
            for label, finding in entry.on_runs(subject, clean):
                yield from _from(finding, clean[label].deltas)


def _truncation(adapter: Adapter, case: Case, detector: LeakDetector) -> Iterator[Violation]:
    """R-TRUNC-1 at the case's cut, unless the cut stream needs a context the scrubber
    cannot receive (a cut right after a backtick needs finish_reason, R-CODE-6)."""
    if adapter.unsupported_reason(case.context.truncated(), case.text[: case.cut]):
        return
    truncated = run_truncated(adapter, case.context, case.deltas, case.cut)
    finding = check_truncation(truncated, case.context, truncate_deltas(case.deltas, case.cut),
                               case.cut, detector)
    yield from _robust(truncated, truncated.deltas, f"cut at {case.cut}: ")
    yield from _from(finding, case.deltas, f"stream cut at input position {case.cut}: ")


def _from(finding: Evidence | None, deltas: tuple[str, ...], prefix: str = ""
          ) -> Iterator[Violation]:
    """A check's evidence as its property's: named by the registry, on `deltas`."""
    if finding is not None:
        yield Violation(_property(finding.check), finding.rule, level=finding.level,
                        detail=prefix + finding.detail, deltas=tuple(deltas), got=finding.got)


def _property(check: str) -> str:
    prop = BY_NAME[check].prop
    assert prop is not None, f"check {check} is no hunt property"
    return prop


def _robust(trace: Trace, deltas: tuple[str, ...], prefix: str = "") -> Iterator[Violation]:
    for finding in (check_exception(trace), check_types(trace)):
        yield from _from(finding, deltas, prefix)


def _leak(trace: Trace, detector: LeakDetector, deltas: tuple[str, ...]) -> Iterator[Violation]:
    if detector:
        yield from _from(check_leak(trace, detector), deltas)


def _subject(case: Case) -> Subject:
    """The case as the output checks see it: a scenario expecting `case.expected`."""
    scenario = Scenario(id="generated", area="hunt", rules=case.rules or ("R-FID-1",),
                        description="", deltas=case.deltas, reasoning=case.reasoning,
                        context=case.context, visible=case.expected)
    return Subject(scenario, case.context.vocabulary(), case.cuts)


def _foreign(case: Case, output: str, finding: Evidence | None) -> Evidence | None:
    """An answer that differs only by a delimiter of a feature the stream does not
    enable is judged under R-VOCAB-4 (SHOULD), not as a lost answer."""
    if finding is None or finding.check != Check.EXPECTED or case.expected is None:
        return finding
    foreign = case.stream.foreign if case.stream is not None else ()
    if foreign and _without(case.expected, foreign) == _without(output, foreign):
        return finding.amended(
            rule="R-VOCAB-4", level="SHOULD",
            prefix="a delimiter of a feature this stream does not enable was removed "
                   f"({', '.join(foreign)}): ")
    return finding


def _without(text: str, delimiters: tuple[str, ...]) -> str:
    folded = fold(text)
    for delimiter in delimiters:
        key = fold(delimiter)
        while key in folded:
            at = folded.find(key)
            text, folded = text[:at] + text[at + len(key):], folded[:at] + folded[at + len(key):]
    return text


def _chunking(case: Case, first: Trace, second: Trace) -> Violation:
    """Record the partition that parts from the expected output (or the finer one)."""
    shown = second if case.expected is not None and first.output == case.expected else first
    if case.expected is None and len(second.deltas) > len(first.deltas):
        shown = second
    base = first if shown is second else second
    return Violation(
        _property(Check.INVARIANCE), "R-CHUNK-1",
        detail=f"{len(shown.deltas)} deltas and {len(base.deltas)} deltas of the same text give "
        f"different outputs: {describe_difference(base.output, shown.output)}",
        deltas=shown.deltas, got=shown.output,
    )


def _holdback(case: Case, trace: Trace) -> Iterator[Violation]:
    """R-STREAM-1/2: the one-character run's output against what SPEC makes due, per feed."""
    if not trace.ok:
        return
    ends = decided_ends("".join(trace.deltas), case.context)
    max_len = case.context.vocabulary().max_len
    _, finding = measure_holdback(True, trace, ends, [], max_len)
    yield from _from(finding, case.deltas)


def _differential(against: Adapter, case: Case, output: str) -> Iterator[Violation]:
    other = run_stream(against, case.context, case.deltas)
    if not other.ok or other.output == output:
        return
    squeeze = str.maketrans("", "", " \t\r\n")
    rule = "R-WS-1" if output.translate(squeeze) == other.output.translate(squeeze) else "R-FID-1"
    index = first_difference(other.output, output) or 0
    yield Violation("differential", rule,
                    detail=f"the outputs part at index {index}: {against.spec} gives "
                    f"{around(other.output, index)}, this scrubber gives {around(output, index)}",
                    deltas=case.deltas, got=output, other_output=other.output)
