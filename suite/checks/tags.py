"""R-TAG-1: no tag of the active vocabulary outside code in the finished output,
spliced tags included (judged by the project's one code scanner)."""

from __future__ import annotations

from scrubcheck.checks.names import Check
from scrubcheck.checks.render import around
from scrubcheck.evidence import Evidence
from scrubcheck.vocabulary import Vocabulary


def check_tags(output: str, vocabulary: Vocabulary) -> Evidence | None:
    from scrubcheck.specmodel import tags_outside_code

    found = tags_outside_code(output, vocabulary)
    if not found:
        return None
    index, tag = found[0]
    more = f" ({len(found) - 1} more)" if len(found) > 1 else ""
    return Evidence(
        Check.TAG, "R-TAG-1",
        detail=f"the output contains the tag {tag!r} outside code at index {index}: "
        f"{around(output, index)}{more}",
        got=output,
    )
