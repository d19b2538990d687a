"""The per-scenario failure text: what an implementer reads to fix one bug.

Shared by the Markdown and HTML reports, the JUnit failure bodies and the
pytest plugin's failure message, so that a failure reads the same everywhere:
the smallest failing chunking, its deltas, expected versus got with whitespace
visible and the difference marked, the detail, and the replay command.
"""

from __future__ import annotations

from ..results import ScenarioResult
from .analysis import Reproduction, reproductions, scenario_headline, scenario_title
from .first_difference import diff_view
from .text import delta_list, output_excerpt, plural, xml_safe

LABEL_WIDTH = 10  # "expected: " and friends line up
MAX_CHUNKING_NAMES = 8


def _label(name: str) -> str:
    return f"{name}:".ljust(LABEL_WIDTH)


def where(step: int | None) -> str:
    """When a failure showed: after which feed() call, or at flush()."""
    if step is None:
        return "at flush()"
    return f"after feed(deltas[{step}])"


def chunking_names(names: tuple[str, ...] | list[str]) -> str:
    """A short list of chunking names, the rest counted."""
    shown = ", ".join(names[:MAX_CHUNKING_NAMES])
    rest = len(names) - MAX_CHUNKING_NAMES
    return shown + (f" and {rest} more" if rest > 0 else "")


def repro_heading(repro: Reproduction) -> str:
    """`leak · R-LEAK-1 (MUST): 25 failing chunkings (char, split@3, ...)`."""
    count = repro.failing
    plural = "chunking" if count == 1 else "chunkings"
    names = chunking_names(repro.chunkings)
    if repro.similar:
        names += f" and {repro.similar} similar"
    return f"{repro.label}: {count} failing {plural} ({names})"


def repro_lines(repro: Reproduction, same_deltas_as: str | None = None) -> list[str]:
    """Aligned `label: value` lines describing the smallest failing chunking.

    Everything is printable and one line per field (except a multi-line detail,
    whose continuation lines are indented), so the block can go verbatim into a
    code block, a <pre> or a terminal. `same_deltas_as` names an earlier block
    with the very same deltas, which are then not repeated.
    """
    failure = repro.failure
    view = diff_view(failure.expected, failure.got)
    n = len(failure.deltas)
    deltas = f"as in {same_deltas_as}" if same_deltas_as else delta_list(failure.deltas)
    lines = [
        _label("chunking") + f"{failure.chunking} ({plural(n, 'delta')}), "
        + f"failed {where(failure.step)}",
        _label("deltas") + deltas,
    ]
    if view.expected is not None:
        lines.append(_label("expected") + view.expected)
    if view.got is not None:
        lines.append(_label("got") + view.got)
    if view.caret:
        lines.append(" " * LABEL_WIDTH + view.caret)
    if view.note:
        lines.append(" " * LABEL_WIDTH + view.note)
    if failure.detail:
        detail = xml_safe(failure.detail).splitlines() or [""]
        lines.append(_label("detail") + detail[0])
        lines.extend(" " * LABEL_WIDTH + line for line in detail[1:])
    return lines


def numbered_reproductions(result: ScenarioResult) -> list[tuple[int, Reproduction, str | None]]:
    """(number, reproduction, earlier block with the same deltas or None), worst first."""
    seen: dict[tuple[str, ...], str] = {}
    numbered = []
    for index, repro in enumerate(reproductions(result), 1):
        key = tuple(repro.failure.deltas)
        numbered.append((index, repro, seen.get(key)))
        seen.setdefault(key, f"[{index}]")
    return numbered


def replay_command(repro: Reproduction) -> str:
    """The one-line command that reruns exactly this failure."""
    return xml_safe(repro.failure.replay.strip()) or "(the runner recorded no replay command)"


def capped_note(result: ScenarioResult) -> str | None:
    """Which chunking variants were not run (never silent: a pass is then partial)."""
    if not result.capped:
        return None
    parts = ", ".join(f"{family}: {count}" for family, count in sorted(result.capped.items()))
    return ("chunking variants not run (long input, or a restriction the scrubber "
            f"declares: {parts})")


def result_notes(result: ScenarioResult) -> list[str]:
    """Every caveat on how a scenario was checked: caps, adapted checks."""
    notes = [xml_safe(n) for n in result.notes]
    capped = capped_note(result)
    return [capped, *notes] if capped else notes


def holdback_text(result: ScenarioResult) -> str:
    hb = result.holdback
    if hb is None:
        return "not measured"
    return (f"{hb.mode} mode, at most {hb.max_held} characters held, "
            f"up to {hb.max_lag_vs_reference} behind the output due")


def metrics_text(result: ScenarioResult) -> str | None:
    if not result.metrics:
        return None
    return ", ".join(f"{k} = {v:g}" for k, v in sorted(result.metrics.items()))


def scenario_text(result: ScenarioResult) -> str:
    """The whole failure story of one scenario as plain text (pytest, JUnit)."""
    lines = [
        f"{scenario_title(result)}: {scenario_headline(result)}",
        f"  {result.file}:{result.line} · rules {', '.join(result.rules)} · "
        f"{result.chunkings_run} chunkings, {result.checks_run} checks",
    ]
    if result.description:
        lines += ["  " + line for line in xml_safe(result.description).strip().splitlines()]
    for note in result_notes(result):
        first, *rest = note.strip().splitlines() or [""]
        lines.append(f"  note: {first}")
        lines += [f"        {line}" for line in rest]
    metrics = metrics_text(result)
    if metrics:
        lines.append(f"  metrics: {metrics}")
    if result.holdback is not None:
        lines.append(f"  hold-back: {holdback_text(result)}")
    for index, repro, same in numbered_reproductions(result):
        lines.append("")
        lines.append(f"[{index}] {repro_heading(repro)}")
        lines += ["  " + line for line in repro_lines(repro, same)]
        lines.append("  " + _label("replay") + replay_command(repro))
    if result.captured_output:
        lines += ["", "scrubber output (stdout/stderr, captured):"]
        lines += [f"  | {line}" for line in output_excerpt(result.captured_output)]
    return "\n".join(lines)
