"""Which SPEC rules a generated stream exercises, from the shapes its builder used."""

from __future__ import annotations

from scrubcheck.generate.stream_model import RenderedStream
from scrubcheck.model import Context
from scrubcheck.spec import RULES
from scrubcheck.vocabulary import build_vocabulary, fold

#: builder label -> the SPEC rules a stream with that shape exercises
LABEL_RULES: dict[str, tuple[str, ...]] = {
    "block": ("R-BLOCK-1",),
    "tool-ends-block": ("R-BLOCK-1", "R-BLOCK-5"),
    "empty-block": ("R-BLOCK-3",),
    "open-in-block": ("R-BLOCK-2",),
    "nested": ("R-BLOCK-2", "R-ORPHAN-1"),
    "other-close": ("R-BLOCK-4",),
    "foreign-in-block": ("R-BLOCK-4",),
    "case": ("R-VOCAB-1",),
    "lookalike": ("R-VOCAB-2",),
    "features": ("R-VOCAB-3",),
    "span": ("R-CODE-1",),
    "fence": ("R-CODE-2",),
    "bypass": ("R-CODE-3",),
    "code-in-block": ("R-CODE-5",),
    "code-7": ("R-CODE-7",),
    "unclosed": ("R-UNCLOSED-1",),
    "inline-recovered": ("R-UNCLOSED-2",),
    "last-line": ("R-UNCLOSED-3",),
    "partial-end": ("R-UNCLOSED-4",),
    "orphan": ("R-ORPHAN-1",),
    "prefill": ("R-ORPHAN-2",),
    "splice": ("R-TAG-1",),
    "unicode": ("R-ROBUST-1",),
    "harmony": ("R-HARMONY-1",),
    "harmony-visible": ("R-HARMONY-2",),
    "harmony-hidden": ("R-HARMONY-2",),
    "harmony-tool": ("R-HARMONY-2",),
    "skipped": ("R-SKIP-1",),
    "may-skip": ("R-SKIP-2",),
    "custom": ("R-CUSTOM-1",),
    "held-partial": ("R-TAG-1", "R-BLOCK-1"),
    "crowd": ("R-CODE-1", "R-CODE-3"),
    "cut-in-span": ("R-CODE-5", "R-CODE-6", "R-TRUNC-1"),
    "fence-indent": ("R-CODE-2",),
    "fence-not-closed": ("R-CODE-2",),
    "not-a-fence": ("R-CODE-2", "R-BLOCK-1"),
}


def shape_rules(stream: RenderedStream) -> tuple[str, ...]:
    """The rules `stream` exercises, in SPEC order (R-CTX-1 for a non-default context,
    R-VOCAB-4 when a delimiter of a feature it does not enable stands in the answer)."""
    found = {r for label in stream.labels for r in LABEL_RULES.get(label, ())}
    if stream.context.required_keys(stream.text):
        found.add("R-CTX-1")
    if stream.context.inline_answer and "unclosed" in stream.labels:
        found.add("R-UNCLOSED-2" if stream.context.finish_reason == "stop" else "R-UNCLOSED-3")
    if stream.foreign:
        found.add("R-VOCAB-4")
    ctx = stream.context
    if ctx.may_skip_reasoning and "prefill" in stream.labels and ctx.finish_reason != "stop":
        found.add("R-SKIP-3")
    if ctx.delimiters and _shares_a_text(ctx):
        found.add("R-CUSTOM-2")
    if sum(1 for role, _ in stream.pieces if role == "tag") > 2:
        found.add("R-BLOCK-3")
    return tuple(r for r in RULES if r in found)


def _shares_a_text(context: Context) -> bool:
    """Whether a caller's delimiter is also a delimiter without it (R-CUSTOM-2)."""
    known = build_vocabulary(context.features).by_folded
    return any(fold(t) in known for d in context.delimiters for t in (d.open, d.close, d.marker)
               if t)
