"""passthrough: returns every delta unchanged.

Field bug modelled: the streaming path does no scrubbing at all and only the
stored final text is cleaned, so every live viewer sees the whole reasoning
(docs/field.md#fm-stream-vs-final).
"""

from __future__ import annotations

from scrubcheck.vocabulary import FEATURES


class PassthroughScrubber:
    supported_features = frozenset(FEATURES)

    def __init__(self, **context: object) -> None:
        pass

    def feed(self, delta: str) -> str:
        return delta

    def flush(self) -> str:
        return ""
