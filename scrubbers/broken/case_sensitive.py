"""case_sensitive: matches tags only in the case the vocabulary spells them.

Field bug modelled: `text.find("<think>")` instead of an ASCII case-insensitive
match. `<THINK>`, `<Thought>` (Hermes 3 writes `<REASONING_SCRATCHPAD>`) open
no block, so their reasoning is shown (SPEC R-VOCAB-1; docs/field.md#fm-case).
Tags spelled as the vocabulary spells them still work: everything else is the
reference scrubber (the self-test's control scenario checks that).
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from scrubcheck.scrubbers.reference import ReferenceScrubber
from scrubcheck.scrubbers.reference.hooks import MatchTable, Quirks, Tables
from scrubcheck.vocabulary import Tag


@dataclass(frozen=True)
class _ExactTable(MatchTable):
    spelled: frozenset[str] = frozenset()  # every tag and proper prefix, as spelled

    def classify(self, text: str) -> Tag | bool | None:
        if text not in self.spelled:  # the bug: no case folding
            return None
        return super().classify(text)


def _exact(table: MatchTable) -> _ExactTable:
    """The same table, matching only exact spellings.

    Built by field name, so a field added to MatchTable later is carried over
    instead of shifting `spelled` into its place. The reference's fast paths
    stay off: `whole` folds case, and a table with a changed classify must
    have no `special_chars`.
    """
    spelled = frozenset(t.text[:i] for t in table.tags.values() for i in range(1, len(t.text) + 1))
    carried = {f.name: getattr(table, f.name) for f in fields(MatchTable)}
    return _ExactTable(**{**carried, "special_chars": (), "whole": None}, spelled=spelled)


#: the reference's tables (cached by it, so one object per vocabulary) -> exact ones
_EXACT: dict[int, tuple[Tables, Tables]] = {}


def _case_sensitive(tables: Tables) -> Tables:
    cached = _EXACT.get(id(tables))
    if cached is None or cached[0] is not tables:
        cached = (tables, Tables(_exact(tables.outside),
                                 {name: _exact(t) for name, t in tables.closes_by_name.items()},
                                 _exact(tables.any_close), tables.max_tag_len))
        _EXACT[id(tables)] = cached
    return cached[1]


class CaseSensitiveScrubber(ReferenceScrubber):
    quirks = Quirks(tables=_case_sensitive)

    def __init__(self, *, starts_in_reasoning: bool = False, inline_answer: bool = False,
                 finish_reason: str | None = "stop",
                 features: tuple[str, ...] | list[str] | frozenset[str] = ()) -> None:
        super().__init__(starts_in_reasoning=starts_in_reasoning, inline_answer=inline_answer,
                         finish_reason=finish_reason, features=features)
