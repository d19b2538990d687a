"""The reference's one public hook: `Quirks`, named deviations from SPEC for test scrubbers.

The harness proves that its checks can fail by running deliberately broken
scrubbers (`scrubbers/broken/`), and the most telling of them are the reference
with one thing wrong: they fail exactly one rule, not a dozen. They used to get
there by overriding the reference's private methods, so any refactoring of the
reference silently changed what they tested. Now each bug is a field here, a
subclass states it as one class attribute (`quirks = Quirks(...)`), and the
reference reads each field at exactly one place, named in its comment. The
defaults are SPEC's behaviour, so `ReferenceScrubber` itself has no quirk.

The pieces a quirk needs to be written (`LineIndex`, the tag `Tables`) are
re-exported here, so a broken scrubber imports this module and the package,
never the reference's private modules (enforced by .importlinter).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .spans import BACKTICK_RUN, LineIndex
from .tables import MatchTable, Tables, tables_for


def _same_index(line: str, index: LineIndex) -> LineIndex:
    return index


def _same_tables(tables: Tables) -> Tables:
    return tables


@dataclass(frozen=True)
class Quirks:
    """What a scrubber built on the reference does differently from SPEC (all off by default)."""

    #: R-TAG-1 off: the partial tags held before a removed tag are released as final
    #: (read in `_real_tag`), so a removed piece never splices them with what follows
    splices_partials: bool = True
    #: R-STREAM-1 off: a fixed hold-back, the held partials released once longer than
    #: this many characters after each feed (read in `feed`; None: as long as SPEC needs).
    #: Such a feed also skips fast path 1 and the R-SKIP-2 record of the input.
    max_holdback: int | None = None
    #: R-UNCLOSED-1 off: flush releases up to this many of the last characters kept in
    #: an unclosed block that is not recovered (read in `flush` and `_keep`; 0: none)
    flush_leaks_block_tail: int = 0
    #: R-CODE-1/5 bent: the index a held line is judged by, given the line and the
    #: reference's own index of it (read in `_held_line`)
    line_index: Callable[[str, LineIndex], LineIndex] = _same_index
    #: R-VOCAB-1 bent (tags match ASCII case-insensitively): the tag tables the scrubber
    #: matches with, given the reference's (read in `__init__`)
    tables: Callable[[Tables], Tables] = _same_tables


NO_QUIRKS = Quirks()

__all__ = ["BACKTICK_RUN", "NO_QUIRKS", "LineIndex", "MatchTable", "Quirks", "Tables",
           "tables_for"]
