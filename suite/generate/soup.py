"""Token soup: streams of tag fragments, backticks and text with no known structure.

Soup has no expected output, only invariants (no tag in the output, chunking
invariance, idempotence, never raising) and, in differential mode, another
scrubber's output to agree with. It reaches the corners a structured stream
never builds: tags inside half-open spans, fences opened by accident, CRLF
before a close, splices of splices.
"""

from __future__ import annotations

from scrubcheck.generate.chooser import Chooser, more, pick
from scrubcheck.generate.pieces import ODD_UNICODE, PUNCTUATION, WHITESPACE, WORDS
from scrubcheck.vocabulary import GENERIC, Vocabulary, all_feature_tag_texts

STRUCTURE: tuple[str, ...] = (
    "`", "``", "```", "~~~", "\n", "    ", "<", ">", "/", "</", "\r\n", " ", "x",
)


def soup_tokens(vocabulary: Vocabulary) -> tuple[str, ...]:
    """Every delimiter of the vocabulary and of every feature, their halves, and text."""
    tags = [t.text for t in vocabulary.tags]
    halves = [t[: len(t) // 2] for t in tags] + [t[len(t) // 2 :] for t in tags]
    upper = [t.upper() for t in tags]
    others = all_feature_tag_texts()
    if vocabulary.conformance_class != GENERIC:  # stay within the class (SPEC section 12)
        upper, others = [], []
    return tuple(dict.fromkeys([*tags, *STRUCTURE, *halves, *upper, *others,
                                *WORDS, *PUNCTUATION, *WHITESPACE, *ODD_UNICODE]))


def choose_soup(ch: Chooser, vocabulary: Vocabulary, max_tokens: int = 24) -> str:
    tokens = soup_tokens(vocabulary)
    out = [pick(ch, tokens)]
    while more(ch, len(out), max_tokens, 6):
        out.append(pick(ch, tokens))
    return "".join(out)
