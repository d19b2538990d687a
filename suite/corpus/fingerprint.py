"""A fingerprint of what a selection of scenarios asks, recorded in every run.

Two runs are only comparable (one reused for the other by `matrix --reuse`,
or merged as shards of one run by `scrubcheck merge`) if they judged the same
scenarios, so each run records this digest of its whole selection. It covers
what a scenario asks of a scrubber (id, rules, deltas, reasoning, expected
output, context), not where it sits in which file: moving a scenario or
editing its description changes nothing a run found.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable

from scrubcheck.model import Scenario


def corpus_digest(scenarios: Iterable[Scenario]) -> str:
    """16 hex digits of SHA-256 over the scenarios' content, in their order."""
    digest = hashlib.sha256()
    for s in scenarios:
        digest.update(json.dumps([s.id, s.rules, s.deltas, s.reasoning, s.visible, s.acceptable,
                                  s.context.as_kwargs()], default=list).encode())
    return digest.hexdigest()[:16]
