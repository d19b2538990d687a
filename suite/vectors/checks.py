"""Which checks a vector consumer judges from the data alone, and which need the harness.

A consumer in another language has the vectors and its own scrubber; it has no
worker processes, no per-scenario wall clock and no time measurement it could
compare across machines. So the checks split in two: those whose verdict follows
from running the scrubber over the vector's streams and comparing with the
vector's data (`DATA_CHECKS`), and those that need the harness around the
scrubber (`HARNESS_CHECKS`, each with the reason). The manifest carries both
lists, docs/vectors.md explains them, and a consumer's report names the checks it
ran (settings.vector_checks), so no reader takes a consumer's PASS for more than it is.
"""

from __future__ import annotations

from scrubcheck.checks.names import Check

#: check -> what the consumer does, in words (docs/vectors.md says it at length).
DATA_CHECKS: dict[str, str] = {
    Check.EXCEPTION: "feed() and flush() do not raise (R-ROBUST-1); the scenario is ERROR",
    Check.TYPE: "feed() and flush() return strings (R-ROBUST-1)",
    Check.LEAK: "no 8-character window of a reasoning canary in the output after any call "
                "(R-LEAK-1)",
    Check.TRUNCATION: "each truncation cut leaks no window live at the cut (R-TRUNC-1) and "
                      "shows nothing where the vector says the cut is undecided (R-SKIP-2)",
    Check.TAG: "no tag of the vocabulary in the output (R-TAG-1), judged where the data "
               "decides it: an output with no backtick and no tilde, or an expected output",
    Check.EXPECTED: "the output equals `visible` up to R-WS-1 at the removal points, or one "
                    "of `acceptable` (R-FID-1, R-WS-1)",
    Check.INVARIANCE: "every chunking gives the output of `whole` (R-CHUNK-1)",
    Check.IDEMPOTENCE: "the output scrubbed again as one delta is unchanged (R-IDEM-1)",
    Check.REUSE: "one object, after a flushed poison stream, scrubs the recorded deltas as a "
                 "fresh one does (R-REUSE-1); only for scrubbers that are objects",
}

#: check -> why a consumer cannot judge it from the vectors.
HARNESS_CHECKS: dict[str, str] = {
    Check.LINEAR: "R-ROBUST-2 compares the scrubber's time over growing streams, measured in "
                  "isolated workers with a budget (scrubcheck run)",
    Check.HOLDBACK: "R-STREAM-1/2 (SHOULD) compare the output after each one-character feed "
                    "with what SPEC makes due by then (the SPEC model's per-feed lengths); "
                    "format 1 does not carry those lengths",
    "timeout": "a hang is a TIMEOUT only under the harness's per-scenario wall clock",
    "isolation": "a crash, os._exit or memory exhaustion costs one scenario only in the "
                 "harness's forked workers (--memory-limit)",
}
