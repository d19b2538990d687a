"""The self-test set: broken scrubbers with one field bug each, and what must catch them.

`benchmarks/detection.py` measures which mechanism (corpus run, hunt, fuzz)
catches each one and how fast; the detection tests check the leak-type ones
quickly. A bug "is caught" by a mechanism when it reports one of `rules`.
"""

from __future__ import annotations

from dataclasses import dataclass

from scrubcheck.scrubbers.broken import BROKEN


@dataclass(frozen=True)
class BrokenCase:
    name: str  # key of scrubcheck.scrubbers.broken.BROKEN
    bug: str
    source: str  # where the bug was seen (FIELD.md / PEERS.md)
    rules: tuple[str, ...]  # reporting any of these counts as catching the bug
    leak: bool  # leak-type: hunt and fuzz must each catch it within 60 s

    @property
    def spec(self) -> str:
        return BROKEN[self.name]


LEAK = ("R-LEAK-1", "R-TRUNC-1")

SELF_TEST: tuple[BrokenCase, ...] = (
    BrokenCase("stateless", "per-delta stateless: the batch regex runs on each delta",
               "FIELD.md 1, 14", LEAK, True),
    BrokenCase("short_holdback", "short hold-back: keeps at most 7 characters of a partial tag",
               "FIELD.md 1; PEERS.md SGLang qwen3", LEAK, True),
    BrokenCase("case_sensitive", "case-sensitive: <THINK>, <Thought> are not tags",
               "FIELD.md 5; PEERS.md (only hermes folds case)", LEAK, True),
    BrokenCase("flush_last_line", "newline recovery without signal: last line of an unclosed "
               "block shown for every stream", "FIELD.md 3", LEAK, True),
    BrokenCase("flush_leaks_tail", "flush leaking an unclosed block: its last 23 characters",
               "PEERS.md hermes CLI display filter", LEAK, True),
    BrokenCase("prefill_ignored", "orphan-close prefix kept under pre-fill",
               "FIELD.md 2, 9; PEERS.md hermes", LEAK, True),
    BrokenCase("any_backtick_guard", "code guard bypassed by unequal backticks",
               "FIELD.md 7; PEERS.md protoAgent", LEAK, True),
    BrokenCase("splice_blind", "spliced tag emitted: the partial before a removed piece is "
               "released", "FIELD.md 1; SPEC R-TAG-1", LEAK + ("R-TAG-1",), True),
    BrokenCase("quadratic_rescan", "quadratic re-scan: re-scrubs the whole buffer per delta",
               "FIELD.md 15 (long streams)", ("R-ROBUST-2",), False),
    BrokenCase("buffers_all", "buffers everything until flush", "FIELD.md 14",
               ("R-STREAM-2", "R-STREAM-1"), False),
    BrokenCase("raises", "raises on odd unicode (a lone surrogate)", "FIELD.md 15",
               ("R-ROBUST-1",), False),
    BrokenCase("drops_blank_deltas", "loses whitespace-only deltas", "FIELD.md 13",
               ("R-WS-1", "R-FID-1", "R-CHUNK-1"), False),
)

#: The other bundled broken scrubbers (each must be caught by at least one mechanism).
EXTRA: tuple[BrokenCase, ...] = (
    BrokenCase("passthrough", "no scrubbing on the streaming path", "FIELD.md 14", LEAK, True),
    BrokenCase("tags_only", "deletes the tags, keeps the reasoning between them",
               "FIELD.md 8", LEAK, True),
    BrokenCase("hangs", "loops forever on '< ' in the answer", "FIELD.md 15",
               ("R-ROBUST-1", "TIMEOUT"), False),
    BrokenCase("no_context", "cannot be told about a pre-filled open (UNSUPPORTED streams)",
               "FIELD.md 2", ("R-FID-1", "R-LEAK-1"), False),
    BrokenCase("returns_bytes", "flush() returns bytes", "FIELD.md 14", ("R-ROBUST-1",), False),
)
