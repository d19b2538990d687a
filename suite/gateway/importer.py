"""A capture as a corpus scenario (`gateway import`), so a stream seen in the field
becomes a regression test for every scrubber.

The recorded chunking becomes `deltas`, the reference scrubber's output under
the stream's context becomes `visible`, and the context is kept where it is not
the default. Reasoning strings come from the structured channel where it
carries them (a stream with reasoning on both channels: the lines of the
structured copy that also occur in content), else from what the reference
removes inline. Strings that share an 8-character window with `visible` prove
nothing and are left out (SPEC section 11).

Only a complete stream is imported: a capture that failed (cut, error event,
HTTP error, malformed data) or simply stopped, without a finish_reason or
`data: [DONE]`, would pin the half that happened to arrive as the expected
answer, and every scrubber would then be judged against it.
"""

from __future__ import annotations

import re
from functools import partial
from typing import Any

from scrubcheck.corpus.overlap import overlaps
from scrubcheck.corpus.streams import slug as corpus_slug
from scrubcheck.corpus.yamlwriter import context_entry
from scrubcheck.gateway.capture import Capture
from scrubcheck.gateway.classify import DESCRIPTIONS, Analysis, Format


def refusal(capture: Capture) -> str | None:
    """Why `capture` cannot become a scenario, in words; None when it can."""
    if capture.error is not None:
        return f"the stream failed ({capture.error.kind}: {capture.error.message})"
    if not capture.done and capture.finish_reason is None:
        return ("the stream ended without a finish_reason or data: [DONE], so it may have "
                "been cut")
    if not capture.content_deltas:
        return "nothing arrived on the content channel, so there is nothing to replay"
    return None


#: A corpus id made of `text` (a capture's or a model's name): the corpus's slug, and
#: "capture" when nothing of `text` is left.
slug = partial(corpus_slug, fallback="capture")


def scenario_reasoning(capture: Capture, analysis: Analysis) -> list[str]:
    text = capture.content
    structured = analysis.structured_reasoning.strip()
    candidates: list[str] = []
    if structured and structured in text:
        candidates = [structured]
    elif structured:
        candidates = [line.strip() for line in structured.splitlines()
                      if line.strip() and line.strip() in text]
    if not candidates:
        candidates = list(analysis.inline_reasoning)
    kept: list[str] = []
    for candidate in candidates:
        kept.extend(_provable(candidate, analysis.answer))
    return [c for c in dict.fromkeys(kept) if c in text]


def _provable(reasoning: str, answer: str) -> list[str]:
    """`reasoning` whole if it shares no window with the answer, else those of its lines
    and then clauses that share none (SPEC section 11: only those prove a leak)."""
    if not overlaps([reasoning], answer):
        return [reasoning]
    lines = [line.strip() for line in reasoning.splitlines() if line.strip()]
    if len(lines) > 1:
        return [part for line in lines for part in _provable(line, answer)]
    clauses = [c for c in _CLAUSE.split(reasoning) if len(c) >= 8]
    if len(clauses) <= 1:
        return []
    return [c for c in clauses if not overlaps([c], answer)]


_CLAUSE = re.compile(r"(?<=[.;:,!?])\s+")


def scenario_rules(analysis: Analysis) -> list[str]:
    ctx = analysis.context
    rules: list[str] = []
    if analysis.format in (Format.INLINE_CLOSED, Format.DUPLICATED) \
            and not ctx.starts_in_reasoning:
        rules.append("R-BLOCK-1")
    if ctx.starts_in_reasoning:
        rules.append("R-ORPHAN-2")
    if ctx.inline_answer:
        rules.append("R-UNCLOSED-2")
    if any("R-UNCLOSED-1" in note for note in analysis.notes):
        rules.append("R-UNCLOSED-1")
    if ctx.features:
        rules.append("R-VOCAB-3")
    if analysis.inline_reasoning:
        rules.append("R-LEAK-1")
    else:
        rules.append("R-FID-1")
    if ctx.required_keys():
        rules.append("R-CTX-1")
    return rules


def scenario_item(capture: Capture, analysis: Analysis, scenario_id: str) -> dict[str, Any]:
    """One corpus list item for the capture, in the key order of corpora/README.md."""
    model = capture.model or "an unnamed model"
    item: dict[str, Any] = {
        "id": scenario_id,
        "rules": scenario_rules(analysis),
        "description": f"Recorded from {model} through a gateway ({analysis.format.value}: "
                       f"{DESCRIPTIONS[analysis.format]}).",
        "deltas": capture.content_deltas,
        "visible": analysis.answer,
        "reasoning": scenario_reasoning(capture, analysis),
    }
    context = context_entry(analysis.context)
    if context:
        item["context"] = context
    when = f", {capture.started_at[:10]}" if capture.started_at else ""
    item["source"] = f"gateway capture {capture.name!r} ({model}{when})"
    item["labels"] = ["gateway-capture", f"format-{analysis.format.value}"]
    return item

