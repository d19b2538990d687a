"""R-TAG-1's question about a finished text: which tags stand outside code in it."""

from __future__ import annotations

from collections.abc import Iterable

from scrubcheck.model import Context
from scrubcheck.specmodel.reading import read_stream
from scrubcheck.vocabulary import Vocabulary


def tags_outside_code(
    text: str, vocabulary: Vocabulary | Iterable[str] = ()
) -> list[tuple[int, str]]:
    """(offset in `text`, tag text) of every tag outside code; empty when the text is clean.

    `vocabulary` is a Vocabulary or the feature names that are enabled. The text is
    read as one finished stream with the default context (spliced tags included).
    """
    if isinstance(vocabulary, Vocabulary):  # with the caller's delimiters (SPEC R-CUSTOM-1)
        context = Context(features=tuple(sorted(vocabulary.features)),
                          delimiters=vocabulary.delimiters)
    else:
        context = Context(features=tuple(sorted(set(vocabulary))))
    return [(tag.offset, tag.raw) for tag in read_stream(text, context).tags]
