"""A stream's reasoning format, and the SPEC context a client needs for it.

The wire does not say how a gateway delivers reasoning; the stream shows it.
The context is read from the `x-scrubcheck-context` header when a scrubcheck
replay server announced it; otherwise it is inferred from the content:

- `starts_in_reasoning` when the first thing the reference scrubber removes,
  in the default context, is a bare close tag (the template pre-filled the open
  tag, so only `</think>` arrives);
- `inline_answer` when the stream ends inside a block, with `finish_reason:
  stop`, and the block has text after its last line feed (the MiniMax-relay
  shape, where the answer is written inside the unclosed block);
- `features` for every feature whose delimiters occur in the content;
- `finish_reason` as the stream sent it.

A pre-filled stream that never closes its block cannot be told from a plain
answer; it is classified as having no reasoning, as a client would see it.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import StrEnum

from scrubcheck.gateway.capture import Capture
from scrubcheck.gateway.inline import (
    Piece,
    SpecRun,
    detect_features,
    reasoning_parts,
    spec_run,
)
from scrubcheck.gateway.wire import context_from_dict
from scrubcheck.model import Context
from scrubcheck.vocabulary import build_vocabulary, fold


class Format(StrEnum):
    NATIVE = "native"
    INLINE_CLOSED = "inline-closed"
    INLINE_PREFILLED = "inline-prefilled"
    INLINE_UNCLOSED = "inline-unclosed"
    DUPLICATED = "duplicated"
    NONE = "none"


DESCRIPTIONS = {
    Format.NATIVE: "reasoning on the structured channel only "
                   "(reasoning_content / reasoning); content is the answer",
    Format.INLINE_CLOSED: "reasoning inline in content, in closed blocks (<think>…</think>)",
    Format.INLINE_PREFILLED: "reasoning inline in content with only a close tag: the chat "
                             "template pre-filled the open tag",
    Format.INLINE_UNCLOSED: "reasoning inline in an unclosed block, the answer after its "
                            "last line feed",
    Format.DUPLICATED: "reasoning on both channels: the structured field and inline in "
                       "content",
    Format.NONE: "no reasoning on either channel",
}

_RULES = {"starts_in_reasoning": "R-ORPHAN-2", "inline_answer": "R-UNCLOSED-2",
          "finish_reason": "R-UNCLOSED-2", "features": "R-VOCAB-3"}


@dataclass
class Need:
    """One context value a client must pass, the rule behind it, and `without`: the
    context a client that does not know it would use."""

    key: str
    value: object
    rule: str
    without: Context


@dataclass
class Analysis:
    format: Format
    context: Context
    context_source: str
    answer: str  # the visible answer a correct client shows
    cuts: tuple[int, ...]  # where the reference removed something (R-WS-1)
    inline_reasoning: list[str]
    structured_reasoning: str
    needs: list[Need] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def reasoning(self) -> list[str]:
        """Every known reasoning string, for leak detection."""
        out = list(self.inline_reasoning)
        if self.structured_reasoning.strip():
            out.append(self.structured_reasoning)
        return out


def analyse(capture: Capture) -> Analysis:
    """Classify a capture and compute the answer and reasoning to judge scrubbers by."""
    deltas = capture.content_deltas
    finish = capture.finish_reason
    announced = capture.context_header
    audited = capture.audit
    if audited is not None and isinstance(audited.get("client_context"), dict):
        context = context_from_dict(audited["client_context"])
        source = (f"the context gateway audit's client used for scenario "
                  f"{audited.get('scenario')} [{audited.get('shape')}]")
    elif announced is not None:
        context = context_from_dict(announced)
        source = "announced by the server (x-scrubcheck-context)"
    else:
        context = infer_context(deltas, finish)
        source = "inferred from the stream"
    run = spec_run(deltas, context)
    inline = reasoning_parts(run.pieces, context.features)
    structured = capture.structured_reasoning
    unclosed = _unclosed(run, context)
    fmt = _format(bool(structured.strip()), bool(run.pieces) or context.starts_in_reasoning,
                  context, unclosed is not None)
    analysis = Analysis(fmt, context, source, run.output, run.cuts, inline, structured)
    analysis.needs = needs_for(context)
    analysis.notes = _notes(capture, analysis, run, unclosed)
    return analysis


def infer_context(deltas: list[str], finish_reason: str | None) -> Context:
    text = "".join(deltas)
    features = detect_features(text)
    plain = spec_run(deltas, Context(finish_reason=finish_reason, features=features))
    vocabulary = build_vocabulary(features)
    blocks = [p for p in plain.pieces if _opening(p, vocabulary) is not None]
    first = next((p for p in plain.pieces if _kind(p, vocabulary) != "marker"), None)
    prefilled = first is not None and _kind(first, vocabulary) == "close"
    inline_answer = False
    if not prefilled and blocks and finish_reason == "stop":
        last = blocks[-1]
        body = last.text[len(_opening(last, vocabulary) or ""):]
        if last.end == len(text) and not _closes(last, vocabulary) and "\n" in body:
            inline_answer = bool(body.rsplit("\n", 1)[1].strip())
    return Context(starts_in_reasoning=prefilled, inline_answer=inline_answer,
                   finish_reason=finish_reason, features=features)


def _kind(piece: Piece, vocabulary) -> str | None:
    tag = vocabulary.lookup(piece.text.strip().strip("`"))
    return tag.kind if tag is not None else None


def _opening(piece: Piece, vocabulary):
    """The open tag a removed piece starts with (None: it starts with none)."""
    folded = fold(piece.text.lstrip("`"))
    for tag in vocabulary.tags:
        if tag.kind == "open" and folded.startswith(fold(tag.text)):
            return piece.text.lstrip("`")[:len(tag.text)]
    return None


def _closes(piece: Piece, vocabulary) -> bool:
    opening = _opening(piece, vocabulary)
    tag = vocabulary.lookup(opening) if opening else None
    if tag is None:
        return False
    closes = [t for t in vocabulary.tags if t.kind == "close" and t.name == tag.name]
    folded = fold(piece.text.rstrip("`"))
    return any(folded.endswith(fold(c.text)) for c in closes)


def _unclosed(run: SpecRun, context: Context) -> Piece | None:
    """The block still open at the end of the stream, if any (with `inline_answer` the
    recovered answer follows it, so it need not reach the end of the text)."""
    vocabulary = build_vocabulary(context.features)
    open_blocks = [p for p in run.pieces
                   if _opening(p, vocabulary) is not None and not _closes(p, vocabulary)]
    if open_blocks and (open_blocks[-1].end == len(run.text) or context.inline_answer):
        return open_blocks[-1]
    return None


def _format(structured: bool, inline: bool, context: Context, unclosed: bool) -> Format:
    if structured and inline:
        return Format.DUPLICATED
    if structured:
        return Format.NATIVE
    if context.starts_in_reasoning:
        return Format.INLINE_PREFILLED
    if context.inline_answer and unclosed:
        return Format.INLINE_UNCLOSED
    if inline:
        return Format.INLINE_CLOSED
    return Format.NONE


def needs_for(context: Context) -> list[Need]:
    """The context values a client must pass for a stream of `context`, and why."""
    needs = []
    if context.starts_in_reasoning:
        needs.append(Need("starts_in_reasoning", True, _RULES["starts_in_reasoning"],
                          replace(context, starts_in_reasoning=False)))
    if context.inline_answer:
        needs.append(Need("inline_answer", True, _RULES["inline_answer"],
                          replace(context, inline_answer=False)))
        needs.append(Need("finish_reason", context.finish_reason, _RULES["finish_reason"],
                          replace(context, finish_reason=None)))
    if context.features:
        needs.append(Need("features", list(context.features), _RULES["features"],
                          replace(context, features=())))
    return needs


def _notes(capture: Capture, analysis: Analysis, run: SpecRun,
           unclosed: Piece | None) -> list[str]:
    notes = []
    if capture.error is not None:
        notes.append(f"the stream failed ({capture.error.kind}: {capture.error.message}); "
                     "classified on what arrived")
    if unclosed is not None and not analysis.context.inline_answer:
        notes.append(f"the stream ends inside a block (finish_reason "
                     f"{analysis.context.finish_reason}): a client discards it whole "
                     "(R-UNCLOSED-1)")
    if analysis.format is Format.DUPLICATED:
        notes.append("the same reasoning arrives twice: a client that shows the structured "
                     "channel must still scrub content, or it shows the reasoning twice")
    if analysis.format is Format.NATIVE:
        notes.append("a client needs no context: content carries no reasoning")
    if "answer-wrappers" in analysis.context.features:
        notes.append("answer wrapper tags (<answer>, <final>, <output>) occur in content")
    if not analysis.answer.strip():
        notes.append("the visible answer is empty")
    fields = capture.reasoning_fields
    if fields:
        notes.append("structured reasoning field(s): " + ", ".join(fields))
    return notes
