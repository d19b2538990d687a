"""A capture as a corpus scenario (`gateway import`), so a stream seen in the field
becomes a regression test for every scrubber.

The recorded chunking becomes `deltas`, the reference scrubber's output under
the stream's context becomes `visible`, and the context is kept where it is not
the default. Reasoning strings come from the structured channel where it
carries them (a stream with reasoning on both channels: the lines of the
structured copy that also occur in content), else from what the reference
removes inline. Strings that share an 8-character window with `visible` prove
nothing and are left out (SPEC section 11).
"""

from __future__ import annotations

import re
from typing import Any

import yaml

from scrubcheck.corpus.overlap import overlaps
from scrubcheck.gateway.capture import Capture
from scrubcheck.gateway.classify import DESCRIPTIONS, Analysis, Format
from scrubcheck.model import Context


def slug(text: str) -> str:
    """A corpus id made of `text`: [a-z0-9]+(-[a-z0-9]+)*."""
    value = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    return value or "capture"


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
    candidates = [c for c in dict.fromkeys(candidates) if c in text]
    bad = overlaps(candidates, analysis.answer)
    return [c for i, c in enumerate(candidates) if i not in bad]


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


def _context(ctx: Context) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if ctx.starts_in_reasoning:
        out["starts_in_reasoning"] = True
    if ctx.inline_answer:
        out["inline_answer"] = True
    if ctx.finish_reason != "stop":
        out["finish_reason"] = ctx.finish_reason
    if ctx.features:
        out["features"] = list(ctx.features)
    return out


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
    context = _context(analysis.context)
    if context:
        item["context"] = context
    when = f", {capture.started_at[:10]}" if capture.started_at else ""
    item["source"] = f"gateway capture {capture.name!r} ({model}{when})"
    item["labels"] = ["gateway-capture", f"format-{analysis.format.value}"]
    return item


def scenarios_yaml(items: list[dict[str, Any]]) -> str:
    """Corpus YAML for `items`: block style per scenario, flow style for short lists."""
    chunks = []
    for item in items:
        text = yaml.safe_dump([item], sort_keys=False, allow_unicode=True,
                              default_flow_style=None, width=100)
        chunks.append(text)
    return "\n".join(chunks)
