"""The text `gateway check` prints: per capture, the format, the context a client
needs and why, and a table of scrubber verdicts."""

from __future__ import annotations

from tabulate import tabulate

from scrubcheck.checks.render import quoted
from scrubcheck.gateway.capture import Capture
from scrubcheck.gateway.classify import DESCRIPTIONS, Analysis
from scrubcheck.gateway.verdicts import ScrubberJudgement, effect_without, leak_detector


def _context_words(analysis: Analysis) -> str:
    ctx = analysis.context
    words = []
    if ctx.starts_in_reasoning:
        words.append("starts_in_reasoning=true")
    if ctx.inline_answer:
        words.append("inline_answer=true")
    words.append(f"finish_reason={ctx.finish_reason or 'null'}")
    if ctx.features:
        words.append("features=[" + ", ".join(ctx.features) + "]")
    return ", ".join(words)


def _stream_words(capture: Capture) -> str:
    parts = [f"{len(capture.chunks)} chunks (content {len(capture.content_deltas)}, "
             f"reasoning {len(capture.reasoning_deltas)})",
             f"finish_reason {capture.finish_reason or 'none'}",
             "[DONE] received" if capture.done else "no [DONE]"]
    if capture.duration_s is not None:
        parts.append(f"{capture.duration_s:.2f} s")
    return ", ".join(parts)


def render_capture(label: str, capture: Capture, analysis: Analysis,
                   verdicts: list[ScrubberJudgement]) -> str:
    lines = [f"== {label}: {capture.name} =="]
    requested = capture.request.get("model")
    model = capture.response.get("model") or requested or "?"
    extra = f" (requested {requested})" if requested and requested != model else ""
    lines.append(f"model:    {model}{extra}")
    lines.append(f"stream:   {_stream_words(capture)}")
    lines.append(f"format:   {analysis.format.value}: {DESCRIPTIONS[analysis.format]}")
    lines.append(f"context:  {_context_words(analysis)} ({analysis.context_source})")
    if analysis.needs:
        detector = leak_detector(analysis.reasoning, analysis.answer)
        lines.append("a client needs:")
        for need in analysis.needs:
            value = "true" if need.value is True else need.value
            effect = effect_without(capture, analysis, need.without, detector)
            lines.append(f"  {need.key}={value} ({need.rule}); without it: {effect}")
    else:
        lines.append("a client needs: the default context only")
    inline = analysis.inline_reasoning
    lines.append(f"reasoning: {len(inline)} inline string(s), {sum(map(len, inline))} chars; "
                 f"structured {len(analysis.structured_reasoning)} chars; answer "
                 f"{quoted(analysis.answer, 60)}")
    for note in analysis.notes:
        lines.append(f"note:     {note}")
    rows = [(v.scrubber, v.kind, v.status, v.detail) for v in verdicts]
    lines.append("")
    lines.append(tabulate(rows, headers=("scrubber", "kind", "verdict", "detail"),
                          maxcolwidths=[None, None, 24, 70]))
    return "\n".join(lines)
