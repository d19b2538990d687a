"""What a property reports: the rule broken, in words, and the evidence to replay it.

A `PropertyFailure` is the exception Hypothesis and the fuzzer see. Its class
is specific to the (property, rule) pair, so Hypothesis shrinks each distinct
failure on its own and OSS-Fuzz buckets crashes by it.
"""

from __future__ import annotations

from dataclasses import dataclass

from scrubcheck.spec import RULES

#: property -> what it checks, for descriptions and the command's help
PROPERTIES: dict[str, str] = {
    "robust": "feed() and flush() return str and never raise (R-ROBUST-1)",
    "timeout": "every call returns within --timeout seconds of wall-clock time (R-ROBUST-1)",
    "crash": "the scrubber never ends the process it runs in (a segfault, os._exit: "
             "R-ROBUST-1)",
    "no-leak": "no canary of the reasoning shows at any point of the stream (R-LEAK-1)",
    "no-tag": "no tag of the active vocabulary outside code in the output (R-TAG-1)",
    "answer": "the answer comes out exactly as the stream's structure says (R-FID-1, R-WS-1)",
    "chunking": "two partitions of the stream give the same output (R-CHUNK-1)",
    "idempotence": "scrubbing the output again changes nothing (R-IDEM-1)",
    "truncation": "the stream cut at a random point leaks nothing (R-TRUNC-1)",
    "holdback": "decided text comes out without delay (R-STREAM-1/2, SHOULD)",
    "differential": "the scrubber agrees with the --against scrubber",
    "linear": "time grows linearly with the stream (R-ROBUST-2)",
}


@dataclass
class Violation:
    property: str
    rule: str
    detail: str
    deltas: tuple[str, ...]  # the partition that shows it (what a scenario records)
    level: str = ""
    got: str | None = None
    other_output: str | None = None  # the --against scrubber's output (differential)

    def __post_init__(self) -> None:
        self.level = self.level or RULES[self.rule].level

    @property
    def signature(self) -> tuple[str, str]:
        """What makes two violations the same failure."""
        return self.property, self.rule

    def error(self) -> PropertyFailure:
        return failure_class(self.property, self.rule)(self)


class PropertyFailure(AssertionError):
    """A property does not hold; `violation` says which and how."""

    def __init__(self, violation: Violation) -> None:
        super().__init__(f"{violation.rule} ({violation.property}): {violation.detail}")
        self.violation = violation
        self.case: object = None  # set by whoever built the case


_CLASSES: dict[tuple[str, str], type[PropertyFailure]] = {}


def failure_class(prop: str, rule: str) -> type[PropertyFailure]:
    key = (prop, rule)
    if key not in _CLASSES:
        name = "".join(p.capitalize() for p in f"{prop}-{rule}".replace("-", " ").split())
        _CLASSES[key] = type(name, (PropertyFailure,), {"__module__": __name__})
    return _CLASSES[key]
