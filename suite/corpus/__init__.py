"""The scenario corpus: loading, validation, generated families and selection.

    from scrubcheck.corpus import load_corpus, select
    corpus = load_corpus()              # the shipped corpus
    for error in corpus.errors: print(error)
    code = select(corpus.scenarios, rules=["R-CODE-*"])
"""

from scrubcheck.corpus.loader import (
    Corpus,
    CorpusError,
    CorpusUnavailable,
    corpus_files,
    default_corpus_dir,
    load_corpus,
)
from scrubcheck.corpus.selection import select

__all__ = [
    "Corpus", "CorpusError", "CorpusUnavailable", "corpus_files", "default_corpus_dir",
    "load_corpus", "select",
]
