"""Find tags that stand outside code in a finished text (the R-TAG-1 check).

What counts as code is subtle (SPEC section 4: backtick pairing, fences,
splices), so this does not re-implement it: it runs the reference scanner over
the text and records every tag the scanner acts on. One definition of "code"
serves the reference scrubber and the check that judges every other scrubber.
"""

from __future__ import annotations

from collections.abc import Iterable

from scrubcheck.scrubbers.reference.scrubber import ReferenceScrubber
from scrubcheck.vocabulary import Tag, Vocabulary, fold


class _TagRecorder(ReferenceScrubber):
    """The reference scanner, noting each tag it removes (position in its own output)."""

    def __init__(self, features: Iterable[str], delimiters: tuple = ()) -> None:
        super().__init__(features=tuple(features), delimiters=delimiters)
        self.found: list[tuple[int, str]] = []

    def _real_tag(self, raw: str, tag: Tag) -> None:
        self.found.append((self._emitted + sum(len(p) for p in self._stack), raw))
        super()._real_tag(raw, tag)


def tags_outside_code(
    text: str, vocabulary: Vocabulary | Iterable[str] = ()
) -> list[tuple[int, str]]:
    """(offset in `text`, tag text) of every tag outside code; empty when the text is clean.

    `vocabulary` is a Vocabulary or the feature names that are enabled.
    """
    if isinstance(vocabulary, Vocabulary):  # with the caller's delimiters (SPEC R-CUSTOM-1)
        recorder = _TagRecorder(vocabulary.features, vocabulary.delimiters)
    else:
        recorder = _TagRecorder(vocabulary)
    recorder.feed(text)
    recorder.flush()
    folded = fold(text)
    located = []
    for output_offset, raw in recorder.found:
        # Removing text only moves later text left, so the tag sits at or after
        # its output offset in the input.
        position = folded.find(fold(raw), output_offset)
        located.append((position if position >= 0 else output_offset, raw))
    return located
