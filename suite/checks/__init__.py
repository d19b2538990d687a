"""Checks: one small module per SPEC rule family, each reading `Trace`s.

The checks never run a scrubber: `adapters.drive` makes every stream they read.

    robust.py       R-ROBUST-1 (str returns, no exceptions)
    leak.py/leaks.py  R-LEAK-1 windows; also R-TRUNC-1 with a cut position
    expected.py     R-FID-1 / R-WS-1 (whitespace.py is the comparer)
    tags.py         R-TAG-1
    invariance.py   R-CHUNK-1
    idempotence.py  R-IDEM-1
    truncation.py   R-TRUNC-1
    undecided.py    R-SKIP-2 (a may-skip pre-fill shows nothing before it is decided)
    reuse.py        R-REUSE-1
    holdback.py     R-STREAM-1 / R-STREAM-2 (SHOULD)
    linear.py       R-ROBUST-2, once per scrubber
    names.py        the checks' names; registry.py: each check once, what it judges

Each check returns a `scrubcheck.evidence.Evidence` (None: the rule holds).
"""

from scrubcheck.checks.expected import check_expected
from scrubcheck.checks.holdback import measure_holdback
from scrubcheck.checks.idempotence import check_idempotence
from scrubcheck.checks.invariance import StreamOutput, check_invariance
from scrubcheck.checks.leaks import check_leak, leak_finding
from scrubcheck.checks.linear import measure_linearity
from scrubcheck.checks.names import Check, Scope
from scrubcheck.checks.reasoning_windows import Leak, LeakDetector
from scrubcheck.checks.render import visible
from scrubcheck.checks.reuse import POISONS, check_reuse
from scrubcheck.checks.robust import check_exception, check_types
from scrubcheck.checks.tags import check_tags
from scrubcheck.checks.truncation import check_truncation, held_at_flush
from scrubcheck.checks.whitespace import ws_compare

__all__ = [
    "POISONS",
    "Check",
    "Leak",
    "LeakDetector",
    "Scope",
    "StreamOutput",
    "check_exception",
    "check_expected",
    "check_idempotence",
    "check_invariance",
    "check_leak",
    "check_reuse",
    "check_tags",
    "check_truncation",
    "check_types",
    "held_at_flush",
    "leak_finding",
    "measure_holdback",
    "measure_linearity",
    "visible",
    "ws_compare",
]
