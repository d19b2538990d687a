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
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # what the lazy names below are, for the type checker (kept in step)
    from scrubcheck.hunt.as_scenario import (  # noqa: F401
        finding_scenario,
        finding_yaml,
        findings_file,
    )
    from scrubcheck.hunt.case import Case, build_case  # noqa: F401
    from scrubcheck.hunt.engine import HuntResult, HuntSettings, cases, hunt  # noqa: F401
    from scrubcheck.hunt.finding import Finding  # noqa: F401
    from scrubcheck.hunt.fuzzing import FuzzResult, FuzzSettings, fuzz  # noqa: F401
    from scrubcheck.hunt.properties import first_violation, violations  # noqa: F401
    from scrubcheck.hunt.violation import PROPERTIES, PropertyFailure, Violation  # noqa: F401

_EXPORTS = {
    "Case": "case", "build_case": "case",
    "HuntResult": "engine", "HuntSettings": "engine", "cases": "engine", "hunt": "engine",
    "Finding": "finding",
    "FuzzResult": "fuzzing", "FuzzSettings": "fuzzing", "fuzz": "fuzzing",
    "first_violation": "properties", "violations": "properties",
    "finding_scenario": "as_scenario", "finding_yaml": "as_scenario",
    "findings_file": "as_scenario",
    "PROPERTIES": "violation", "PropertyFailure": "violation", "Violation": "violation",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> object:
    if name not in _EXPORTS:
        raise AttributeError(f"module 'scrubcheck.hunt' has no attribute {name!r}")
    return getattr(importlib.import_module(f"scrubcheck.hunt.{_EXPORTS[name]}"), name)
