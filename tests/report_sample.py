"""A hand-built, realistic RunResult for the report writer tests.

It covers every outcome, several areas, a leak found mid-stream, a truncation
leak, a whitespace-only fidelity failure, a SHOULD-only hold-back failure,
capped chunkings, a scrubber-wide check, and scenario text holding NUL, a lone
surrogate, `<script>` and `</think>`: everything a writer could get wrong.

Tests take it as the `sample_run` fixture (tests/conftest.py), a fresh copy each, since
many edit it; a test that needs several copies, or the constants below, imports this
module (pytest puts tests/ on sys.path).
"""

from __future__ import annotations

from scrubcheck.results import Failure, Holdback, Outcome, RunResult, ScenarioResult

SCRUBBER = "mypkg.scrub:ThinkStripper"
SEED = 1234
HOSTILE = "<script>alert('pwned')</script></think>"
TRACEBACK = ('Traceback (most recent call last):\n  File "runner.py", line 9, in <module>\n'
             "KeyError: 'finish_reason'\n")


def replay(scenario: str, chunking: str) -> str:
    return (f"scrubcheck run --scrubber {SCRUBBER} --scenario {scenario} "
            f"--chunking {chunking} --seed {SEED}")


def _passing(scenario_id: str, area: str, rules: list[str], line: int) -> ScenarioResult:
    return ScenarioResult(
        scenario_id=scenario_id, area=area, rules=rules, file=f"corpora/{area}.yaml", line=line,
        description="A passing scenario.", outcome=Outcome.PASS, chunkings_run=40,
        checks_run=200, holdback=Holdback("stream", 7, 0), duration_s=0.05,
    )


def sample_run() -> RunResult:
    """Ten scenarios in five areas and one scrubber-wide check."""
    ws_deltas = ["A<think>plan the reply</think>\n\nB", " and C"]
    ws_fail = ScenarioResult(
        scenario_id="back-to-back-newlines", area="blocks", rules=["R-BLOCK-3", "R-WS-1"],
        file="corpora/blocks.yaml", line=31,
        description="A block between two paragraphs keeps the blank line.",
        outcome=Outcome.FAIL, chunkings_run=60, checks_run=300, duration_s=0.08,
        failures=[
            Failure("expected", "R-WS-1", "MUST", "char", list("".join(ws_deltas)),
                    "blank line after the removed block was dropped",
                    expected="A\n\nB and C", got="A\nB and C", step=None,
                    replay=replay("back-to-back-newlines", "char"), similar=4),
            Failure("expected", "R-WS-1", "MUST", "split@31", ["A<think>plan the reply</think>",
                                                             "\n\nB and C"],
                    "blank line after the removed block was dropped",
                    expected="A\n\nB and C", got="A\nB and C", step=None,
                    replay=replay("back-to-back-newlines", "split@31")),
        ],
    )
    leak_deltas = ["```py\nx = 1\n```\n<think>", "the secret plan is here", "</think>Done."]
    leak_fail = ScenarioResult(
        scenario_id="fence-closes-then-block", area="code", rules=["R-CODE-2", "R-BLOCK-1"],
        file="corpora/code.yaml", line=88,
        description="After a closed fence, `<think>` opens a block again.",
        outcome=Outcome.FAIL, chunkings_run=120, checks_run=700, duration_s=0.3,
        failures=[
            Failure("leak", "R-LEAK-1", "MUST", "char", list("".join(leak_deltas)),
                    "reasoning window 'the secr' visible",
                    got="```py\nx = 1\n```\nthe secr", step=30,
                    replay=replay("fence-closes-then-block", "char"), similar=11),
            Failure("leak", "R-LEAK-1", "MUST", "recorded", leak_deltas,
                    "reasoning window 'the secr' visible",
                    got="```py\nx = 1\n```\nthe secret plan is here", step=1,
                    replay=replay("fence-closes-then-block", "recorded")),
            Failure("expected", "R-CODE-2", "MUST", "whole", ["".join(leak_deltas)],
                    "output differs from the expected text",
                    expected="```py\nx = 1\n```\nDone.",
                    got="```py\nx = 1\n```\nthe secret plan is hereDone.", step=None,
                    replay=replay("fence-closes-then-block", "whole")),
        ],
    )
    batch_fail = ScenarioResult(
        scenario_id="emit-decided-text", area="streaming", rules=["R-STREAM-2"],
        file="corpora/streaming.yaml", line=5,
        description="Decided text is emitted by the feed() that decided it.",
        outcome=Outcome.FAIL, chunkings_run=3, checks_run=12,
        holdback=Holdback("batch", 42, 42), duration_s=0.01,
        failures=[Failure("holdback", "R-STREAM-2", "SHOULD", "char", list("Hello there"),
                          "nothing emitted before flush()", step=None,
                          replay=replay("emit-decided-text", "char"))],
    )
    trunc_text = "ok\x00<think>hidden \udc80 musing</think>end"
    trunc_fail = ScenarioResult(
        scenario_id="nul-and-surrogate", area="robust", rules=["R-ROBUST-1", "R-TRUNC-1"],
        file="corpora/robust.yaml", line=12,
        description=f"NUL and a lone surrogate around a block; hostile text {HOSTILE}.",
        outcome=Outcome.FAIL, chunkings_run=500, checks_run=2600, duration_s=1.2,
        capped={"every-split": 1200, "random": 16},
        notes=["idempotence was checked on the first 4096 characters only"],
        failures=[Failure("truncation", "R-TRUNC-1", "MUST", "cut@18", [trunc_text[:18]],
                          f"cut stream showed reasoning {HOSTILE}",
                          got="ok\x00hidden \udc80", step=None,
                          replay=replay("nul-and-surrogate", "cut@18"))],
    )
    results = [
        _passing("split-open-inside-name", "blocks", ["R-BLOCK-1", "R-CHUNK-1"], 3),
        ws_fail,
        _passing("inline-span-guards", "code", ["R-CODE-1"], 10),
        leak_fail,
        batch_fail,
        trunc_fail,
        ScenarioResult(
            scenario_id="length-no-recovery", area="unclosed", rules=["R-UNCLOSED-3"],
            file="corpora/unclosed.yaml", line=40, description="No recovery on length.",
            outcome=Outcome.ERROR, reason="harness error: KeyError('finish_reason')",
            notes=[TRACEBACK],
        ),
        ScenarioResult(
            scenario_id="stop-recovery-long", area="unclosed", rules=["R-UNCLOSED-2"],
            file="corpora/unclosed.yaml", line=52, description="Recovery after a long block.",
            outcome=Outcome.TIMEOUT, reason="exceeded the 10 s scenario time limit",
        ),
        ScenarioResult(
            scenario_id="harmony-analysis", area="features", rules=["R-VOCAB-3"],
            file="corpora/features.yaml", line=7, description="Harmony analysis channel.",
            outcome=Outcome.UNSUPPORTED,
            reason="scrubber does not support feature 'harmony'",
        ),
        ScenarioResult(
            scenario_id="bracket-think", area="features", rules=["R-VOCAB-3"],
            file="corpora/features.yaml", line=19, description="[THINK] blocks.",
            outcome=Outcome.UNSUPPORTED,
            reason="scrubber does not support feature 'bracket'",
        ),
        ScenarioResult(
            scenario_id="kimi-triangles", area="features", rules=["R-VOCAB-3", "R-VOCAB-4"],
            file="corpora/features.yaml", line=30, description="Kimi delimiters.",
            outcome=Outcome.SKIPPED, reason="excluded by --exclude-label slow",
        ),
    ]
    linear = ScenarioResult(
        scenario_id="linear-time", area="scrubber", rules=["R-ROBUST-2"], file="<harness>",
        line=0, description="1 MB in one-character deltas runs in linear time.",
        outcome=Outcome.PASS, chunkings_run=2, checks_run=1, duration_s=3.5,
        metrics={"time_ratio_2x": 2.1},
    )
    return RunResult(
        scrubber=SCRUBBER, scrubber_kind="stream", supported_features=["namespaced"],
        accepted_context=["starts_in_reasoning", "finish_reason"], spec_version="1.0.0",
        scrubcheck_version="0.1.0", started_at="2026-11-30T05:00:00+00:00", duration_s=6.25,
        settings={"seed": SEED, "level": "must"}, results=results,
        scrubber_checks=[linear],
    )
