"""Where Hypothesis keeps the failing examples between hunts.

A hunt keeps a failure it has reported from failing again (so the time goes to
new bugs), which would make Hypothesis delete it from its database as fixed.
`KeepFailures` ignores those deletions of primary entries, so the next hunt of
the same scrubber replays every failure found before, first.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from hypothesis.database import (
    DirectoryBasedExampleDatabase,
    ExampleDatabase,
    InMemoryExampleDatabase,
)

from scrubcheck.adapters.resolve import spec_slug
from scrubcheck.cachedir import cache_dir

_SCRATCH = (b".secondary", b".pareto")


class KeepFailures(ExampleDatabase):
    def __init__(self, inner: ExampleDatabase) -> None:
        super().__init__()
        self.inner = inner

    def save(self, key: bytes, value: bytes) -> None:
        self.inner.save(key, value)

    def fetch(self, key: bytes) -> Iterable[bytes]:
        return self.inner.fetch(key)

    def delete(self, key: bytes, value: bytes) -> None:
        if key.endswith(_SCRATCH):
            self.inner.delete(key, value)

    def move(self, src: bytes, dest: bytes, value: bytes) -> None:
        self.save(dest, value)
        self.delete(src, value)


def open_database(spec: str, location: str | None) -> ExampleDatabase:
    """The database for hunting `spec`: "memory", a directory, or None for the cache dir."""
    if location == "memory":
        return InMemoryExampleDatabase()
    root = Path(location) if location else cache_dir() / "hypothesis"
    return KeepFailures(DirectoryBasedExampleDatabase(str(root / spec_slug(spec))))
