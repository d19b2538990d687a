"""Token soup for property tests: a context, then a stream glued from that context's
delimiters, text that resembles them (`soup_tokens`) and the structure characters a
test cares about. Shared by the tests that read the SPEC model against the reference."""

from __future__ import annotations

from collections.abc import Sequence

from hypothesis import strategies as st

from scrubcheck.generate.soup import soup_tokens
from scrubcheck.model import Context


def token_soup(contexts: st.SearchStrategy[Context], structure: Sequence[str], *,
               max_size: int) -> st.SearchStrategy[tuple[str, Context]]:
    @st.composite
    def soup(draw: st.DrawFn) -> tuple[str, Context]:
        context = draw(contexts)
        vocabulary = context.vocabulary()
        tokens = (*soup_tokens(vocabulary), *(t.text for t in vocabulary.tags), *structure)
        return "".join(draw(st.lists(st.sampled_from(tokens), max_size=max_size))), context

    return soup()
