"""Hunting bugs the corpus misses: Hypothesis properties, atheris fuzzing, findings as scenarios.

    from scrubcheck.hunt import hunt, HuntSettings, finding_yaml
    result = hunt("mypkg:MyScrubber", HuntSettings(seconds=30, seed=1))
    for finding in result.findings:
        print(finding_yaml(finding))

Names are imported on first use, so that a fuzzing process (which needs the
properties, not Hypothesis) starts quickly.
"""

from __future__ import annotations

import importlib

_EXPORTS = {
    "Case": "case", "build_case": "case",
    "HuntResult": "engine", "HuntSettings": "engine", "cases": "engine", "hunt": "engine",
    "Finding": "finding",
    "FuzzResult": "fuzzing", "FuzzSettings": "fuzzing", "fuzz": "fuzzing",
    "first_violation": "properties", "violations": "properties",
    "finding_scenario": "scenario", "finding_yaml": "scenario", "findings_file": "scenario",
    "PROPERTIES": "violation", "PropertyFailure": "violation", "Violation": "violation",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> object:
    if name not in _EXPORTS:
        raise AttributeError(f"module 'scrubcheck.hunt' has no attribute {name!r}")
    return getattr(importlib.import_module(f"scrubcheck.hunt.{_EXPORTS[name]}"), name)
