"""The fuzz target: bytes -> case -> properties, raising on the first unknown violation.

Used three ways: by atheris in `scrubcheck fuzz`'s child processes, by the
OSS-Fuzz/ClusterFuzzLite script in fuzz/, and to replay a saved crash input.
Each property raises from its own function (one made per property of
`hunt.violation.PROPERTIES`), so OSS-Fuzz, which buckets crashes
by their top stack frames, files one issue per property rather than one in all.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable
from pathlib import Path
from types import FunctionType
from typing import cast

from scrubcheck.adapters import Adapter
from scrubcheck.generate import Profile
from scrubcheck.hunt.case import Case
from scrubcheck.hunt.fuzzinput import Decoded, decode
from scrubcheck.hunt.properties import first_violation
from scrubcheck.hunt.violation import PROPERTIES, PropertyFailure, Violation, property_failure
from scrubcheck.model import GENERIC


class FuzzTarget:
    """Crashes on the first violation not in `known` (what OSS-Fuzz needs). With `collect`
    set it instead writes the input there as `crash-<sha1>`, learns the signature and goes
    on fuzzing: `scrubcheck fuzz` then finds every distinct failure without restarts."""

    def __init__(self, adapter: Adapter, against: Adapter | None = None,
                 known: Iterable[tuple[str, str]] = (), max_items: int = 8,
                 collect: Path | None = None, conformance_class: str = GENERIC) -> None:
        self.adapter = adapter
        self.against = against
        self.known = set(known)
        self.collect = collect
        self.profile = Profile.of(adapter, *([against] if against else []), max_items=max_items,
                                  conformance_class=conformance_class)

    def decode(self, data: bytes) -> Decoded:
        return decode(data, self.profile)

    def check(self, case: Case, known: set[tuple[str, str]] | None = None) -> Violation | None:
        return first_violation(self.adapter, case, against=self.against,
                               known=self.known if known is None else known)

    def __call__(self, data: bytes) -> None:
        case = self.decode(data).case
        if case is None:
            return
        violation = self.check(case)
        if violation is None:
            return
        if self.collect is not None:
            self.known.add(violation.signature)
            name = "crash-" + hashlib.sha1(data).hexdigest()
            partial = self.collect / f".{name}.part"
            partial.write_bytes(data)
            partial.replace(self.collect / name)
            return
        error = property_failure(violation)
        error.case = case
        _RAISERS.get(violation.check, _other)(error)


def _raiser(prop: str) -> Callable[[PropertyFailure], None]:
    """A function named `_<property>` that raises its argument: the top stack frame
    OSS-Fuzz buckets a crash by names the property."""
    def _raise(error: PropertyFailure) -> None:
        raise error

    name = "_" + prop.replace("-", "_")
    code = _raise.__code__.replace(co_name=name, co_qualname=name)
    return cast(Callable[[PropertyFailure], None],
                FunctionType(code, _raise.__globals__, name))


_RAISERS: dict[str, Callable[[PropertyFailure], None]] = {
    prop: _raiser(prop) for prop in PROPERTIES}
_other = _raiser("other")
