"""What a property reports: the rule broken, as an `Evidence` record, and the exception.

A property is a check of the registry (`checks.registry`, under its `prop`
name) or one of the harness's own below. Its evidence's `check` is the
property's name. A `PropertyFailure` is the exception Hypothesis and the fuzzer
see. Its class is specific to the (property, rule) pair, so Hypothesis shrinks
each distinct failure on its own and OSS-Fuzz buckets crashes by it.
"""

from __future__ import annotations

from scrubcheck.checks.registry import CHECK_PROPERTIES
from scrubcheck.evidence import Evidence

#: The properties only the hunt and the fuzzer have: no check of the runner makes them.
HARNESS_PROPERTIES: dict[str, str] = {
    "timeout": "every call returns within --timeout seconds of wall-clock time (R-ROBUST-1)",
    "crash": "the scrubber never ends the process it runs in (a segfault, os._exit: "
             "R-ROBUST-1)",
    "differential": "the scrubber agrees with the --against scrubber",
}
#: property -> what it checks, for descriptions and the command's help
PROPERTIES: dict[str, str] = {**CHECK_PROPERTIES, **HARNESS_PROPERTIES}

#: A property's finding: the shared evidence record, `check` naming the property
#: (the name `scrubcheck.hunt` has always exported).
Violation = Evidence


def property_failure(violation: Evidence) -> PropertyFailure:
    """The exception that reports `violation` (its class: the property and the rule)."""
    return failure_class(violation.check, violation.rule)(violation)


class PropertyFailure(AssertionError):
    """A property does not hold; `violation` says which and how."""

    def __init__(self, violation: Evidence) -> None:
        super().__init__(f"{violation.rule} ({violation.check}): {violation.detail}")
        self.violation = violation
        self.case: object = None  # set by whoever built the case


_CLASSES: dict[tuple[str, str], type[PropertyFailure]] = {}


def failure_class(prop: str, rule: str) -> type[PropertyFailure]:
    key = (prop, rule)
    if key not in _CLASSES:
        name = "".join(p.capitalize() for p in f"{prop}-{rule}".replace("-", " ").split())
        _CLASSES[key] = type(name, (PropertyFailure,), {"__module__": __name__})
    return _CLASSES[key]
