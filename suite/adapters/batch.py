"""Batch scrubbers: `str -> str` functions that only ever see the whole text.

The session buffers every delta and returns "" from feed(); flush() hands the
joined text to the function. Hold-back is therefore "batch" by construction and
is reported as such, never failed.
"""

from __future__ import annotations

from collections.abc import Callable

from scrubcheck.adapters.base import Adapter
from scrubcheck.adapters.context import accepted_keywords, declared_features, required_positionals
from scrubcheck.adapters.resolve import AdapterError
from scrubcheck.model import Context, ScrubberKind


def require_text_function(func: object, label: str) -> None:
    if not callable(func):
        raise AdapterError(f"{label}: {type(func).__name__} object is not callable")
    needed = required_positionals(func)
    if needed is not None and needed != 1:
        raise AdapterError(
            f"{label}: a batch or splitter function takes the text as its one positional "
            f"argument; this one needs {needed}"
        )


class BufferedSession:
    """Collects deltas; flush() calls `finish(text)` and starts over, so it is reusable."""

    def __init__(self, finish: Callable[[str], object]) -> None:
        self.reasoning: list[str] = []
        self._finish = finish
        self._parts: list[str] = []

    def feed(self, delta: str) -> object:
        self._parts.append(delta)
        return ""

    def flush(self) -> object:
        text = "".join(self._parts)
        self._parts = []
        return self._finish(text)


class BatchAdapter(Adapter):
    kind = ScrubberKind.BATCH

    def __init__(self, spec: str, name: str, func: Callable) -> None:
        require_text_function(func, spec)
        self.func = func
        keys = accepted_keywords(func)
        super().__init__(spec, name, declared_features(func) or frozenset(), keys)

    def open(self, context: Context) -> BufferedSession:
        kwargs = self.context_kwargs(context, self.accepted_context)
        return BufferedSession(lambda text: self.func(text, **kwargs))
