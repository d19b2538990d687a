"""The self-test set: broken scrubbers with one field bug each, and what must catch them.

Each case names a *control* and a *target*. The control is a scenario the
broken scrubber must still pass (what it does right: a lower-case `<think>`
block is removed by the case-sensitive one); the target is the scenario of its
bug, which it must fail with the named rule. A broken scrubber that fails its
control is more broken than it says, and one that passes its target does not
carry its bug: either way "caught" would prove nothing, so both are checked
(`probe`), by the tests and in reports/detection.md.

`benchmarks/detection.py` also measures which mechanism (corpus run, hunt,
fuzz) catches each one and how fast. A bug "is caught" by a mechanism when it
reports one of `rules`.
"""

from __future__ import annotations

from dataclasses import dataclass

from scrubcheck.model import Scenario
from scrubcheck.results import Outcome, ScenarioResult
from scrubcheck.runner import LINEAR_ID, RunSettings, run_corpus
from scrubcheck.spec import LEAK_RULES

FIELD = "docs/field.md#"  # where `source` anchors point


@dataclass(frozen=True)
class Probe:
    """One run of a broken scrubber on one scenario, and the verdict it must get."""

    scenario: str  # a corpus scenario id, or LINEAR_ID for the linear-time check
    expect: str = "PASS"  # PASS; a SPEC rule the run must report; or TIMEOUT / UNSUPPORTED
    chunking: str | None = None  # only this chunking (`scrubcheck show --chunking`)

    @property
    def label(self) -> str:
        return self.scenario + (f" --chunking {self.chunking}" if self.chunking else "")

    def met_by(self, result: ScenarioResult) -> bool:
        if self.expect in Outcome.__members__:
            return result.outcome.value == self.expect
        return any(f.rule == self.expect for f in result.failures)


def verdict_text(result: ScenarioResult) -> str:
    """`PASS`, `FAIL: R-LEAK-1, R-TAG-1`, `TIMEOUT`: what a probe got, in one phrase."""
    rules = ", ".join(sorted({f.rule for f in result.failures}))
    return f"{result.outcome.value}: {rules}" if rules else result.outcome.value


@dataclass(frozen=True)
class BrokenCase:
    #: the broken scrubber's name: its spec comes from the caller's registry (the tests and
    #: benchmarks/detection.py pass scrubcheck.scrubbers.broken.BROKEN), since product
    #: code does not import the test fixtures
    name: str
    bug: str
    source: str  # where the bug is seen in the field: anchors of docs/field.md
    rules: tuple[str, ...]  # reporting any of these counts as catching the bug
    leak: bool  # leak-type: hunt and fuzz must each catch it within 60 s
    control: Probe  # what it still does right: it must pass
    target: Probe  # its bug: it must get `target.expect`


#: the leak rules (`spec.Rule.leak`), in SPEC order: what catches a leak-type bug
LEAK: tuple[str, ...] = LEAK_RULES
#: a stream with two closed blocks and answer text between them, nothing else
TWO_BLOCKS = "blocks-two-blocks-answer-between"


def _field(*anchors: str) -> str:
    return ", ".join(FIELD + a for a in anchors)


SELF_TEST: tuple[BrokenCase, ...] = (
    BrokenCase("stateless", "per-delta stateless: the batch regex runs on each delta",
               _field("fm-split-tags", "fm-stream-vs-final"), LEAK, True,
               Probe(TWO_BLOCKS, chunking="whole"),
               Probe("split-sglang-qwen3-hi-thi", "R-LEAK-1")),
    BrokenCase("short_holdback", "short hold-back: keeps at most 7 characters of a partial tag",
               _field("fm-split-tags"), LEAK, True,
               Probe("split-sglang-qwen3-hi-thi"),
               Probe("split-reasoning-name-mid-line", "R-LEAK-1")),
    BrokenCase("case_sensitive", "case-sensitive: <THINK>, <Thought> are not tags",
               _field("fm-case"), LEAK, True,
               Probe(TWO_BLOCKS),
               Probe("gen-case-think-upper-open", "R-LEAK-1")),
    BrokenCase("flush_last_line", "newline recovery without signal: last line of an unclosed "
               "block shown for every stream", _field("fm-unclosed"), LEAK, True,
               Probe("unclosed-finish-stop-whole-stream"),
               Probe("unclosed-finish-length", "R-LEAK-1")),
    BrokenCase("flush_leaks_tail", "flush leaking an unclosed block: its last 23 characters",
               _field("fm-unclosed"), LEAK, True,
               Probe(TWO_BLOCKS, chunking="char"),
               Probe("unclosed-finish-length", "R-LEAK-1")),
    BrokenCase("prefill_ignored", "orphan-close prefix kept under pre-fill",
               _field("fm-prefill", "fm-orphan"), LEAK, True,
               Probe("orphan-stale-close-default-context-keeps-text"),
               Probe("orphan-stale-close-prefill-context-hides-text", "R-LEAK-1")),
    BrokenCase("any_backtick_guard", "code guard bypassed by unequal backticks",
               _field("fm-code"), LEAK, True,
               Probe("code-span-then-real-block-same-line"),
               Probe("code-unequal-runs-no-guard", "R-LEAK-1")),
    BrokenCase("splice_blind", "spliced tag emitted: the partial before a removed piece is "
               "released", _field("fm-split-tags"), LEAK + ("R-TAG-1",), True,
               Probe("split-open-right-after-lt"),
               Probe("blocks-splice-forms-open", "R-LEAK-1")),
    BrokenCase("quadratic_rescan", "quadratic re-scan: re-scrubs the whole buffer per delta",
               _field("fm-robustness"), ("R-ROBUST-2",), False,
               Probe(TWO_BLOCKS),
               Probe(LINEAR_ID, "R-ROBUST-2")),
    BrokenCase("buffers_all", "buffers everything until flush", _field("fm-stream-vs-final"),
               ("R-STREAM-2", "R-STREAM-1"), False,
               Probe("ws-space-only-answer"),
               Probe(TWO_BLOCKS, "R-STREAM-2")),
    BrokenCase("raises", "raises on odd unicode (a lone surrogate)", _field("fm-unicode"),
               ("R-ROBUST-1",), False,
               Probe(TWO_BLOCKS),
               Probe("unicode-lone-surrogate-in-answer", "R-ROBUST-1")),
    BrokenCase("drops_blank_deltas", "loses whitespace-only deltas", _field("fm-whitespace"),
               ("R-WS-1", "R-FID-1", "R-CHUNK-1"), False,
               Probe("unicode-empty-deltas-inside-split-tags"),
               Probe("ws-whitespace-only-deltas", "R-WS-1")),
)

#: The other bundled broken scrubbers (each must be caught by at least one mechanism).
EXTRA: tuple[BrokenCase, ...] = (
    BrokenCase("passthrough", "no scrubbing on the streaming path",
               _field("fm-stream-vs-final"), LEAK, True,
               Probe("field-granite-prose-markers-literal"),
               Probe(TWO_BLOCKS, "R-LEAK-1")),
    BrokenCase("tags_only", "deletes the tags, keeps the reasoning between them",
               _field("fm-tags-only"), LEAK, True,
               Probe("orphan-close-no-context-mid-text"),
               Probe(TWO_BLOCKS, "R-LEAK-1")),
    BrokenCase("hangs", "loops forever on '< ' in the answer", _field("fm-robustness"),
               ("R-ROBUST-1", "TIMEOUT"), False,
               Probe(TWO_BLOCKS),
               Probe("split-less-than-at-delta-ends", "TIMEOUT")),
    BrokenCase("no_context", "cannot be told about a pre-filled open (UNSUPPORTED streams)",
               _field("fm-prefill"), ("UNSUPPORTED",), False,
               Probe(TWO_BLOCKS),
               Probe("orphan-prefill-basic", "UNSUPPORTED")),
    BrokenCase("returns_bytes", "flush() returns what it held back as bytes",
               _field("fm-robustness"), ("R-ROBUST-1",), False,
               Probe(TWO_BLOCKS, chunking="char"),
               Probe("split-partial-open-at-end-of-stream", "R-ROBUST-1")),
)

ALL_CASES: tuple[BrokenCase, ...] = (*SELF_TEST, *EXTRA)


#: seconds the linear-time check may take: it measures for a while by design
LINEAR_TIMEOUT_S = 120.0


def probe(spec: str, check: Probe, scenarios: dict[str, Scenario],
          timeout_s: float = 20.0) -> ScenarioResult:
    """Run one probe through the real runner: a worker process, killed after `timeout_s`
    seconds (a TIMEOUT); for LINEAR_ID the linear-time check, with LINEAR_TIMEOUT_S."""
    linear = check.scenario == LINEAR_ID
    chosen = [] if linear else [scenarios[check.scenario]]
    settings = RunSettings(seed=1, jobs=1, random_count=2, linear_check=linear,
                           timeout_s=LINEAR_TIMEOUT_S if linear else timeout_s)
    run = run_corpus(spec, chosen, settings, only=check.chunking)
    return run.scrubber_checks[0] if linear else run.results[0]
