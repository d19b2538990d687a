"""The linear-time measurement (R-ROBUST-2) as a process of its own, for `scrubcheck fuzz`.

    python -m scrubcheck.hunt.linearjob SPEC   ->  one JSON line: metrics and finding

The fuzz parent starts it next to the fuzzing jobs and goes on triaging their
findings; the measurement is a ratio of CPU times in this one process, so the
jobs running beside it do not skew it.
"""

from __future__ import annotations

import json
import sys


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    from scrubcheck.adapters import load_adapter
    from scrubcheck.checks.linear import measure_linearity

    measured = measure_linearity(load_adapter(argv[0]))
    finding = measured.finding
    print(json.dumps({"metrics": measured.metrics,
                      "rule": finding.rule if finding else None,
                      "detail": finding.detail if finding else None}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
