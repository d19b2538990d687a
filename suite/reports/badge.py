"""badge.json: a shields.io endpoint badge of a run, written beside its reports.

A project publishes the file (commit it, or push it to a gh-pages branch) and
shows `https://img.shields.io/endpoint?url=<where badge.json is served>`. The
format is shields.io's endpoint schema (https://shields.io/badges/endpoint-badge):
`schemaVersion` 1, `label`, a non-empty `message` and an optional `color`.

The label names the SPEC version, because "all pass" means nothing without the
rules it was judged by; the message names the conformance class judged and gives
passes over the scenarios within it (UNSUPPORTED is never a pass; BEYOND CLAIM is
outside the count) and the leaks, the one number a user of the scrubber cares about.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..results import RunResult
from .summary import Headline, headline


def badge_color(head: Headline) -> str:
    """Red for a leak, orange for a failure at the run's level, bright green when every
    scenario passed, yellow-green otherwise (passing, but with SHOULD failures, unsupported
    or skipped scenarios); grey when the run did not finish or its corpus was broken."""
    if head.verdict in ("INTERRUPTED", "CORPUS ERROR"):
        return "lightgrey"
    if head.leaked:
        return "red"
    if head.exit_code:
        return "orange"
    return "brightgreen" if head.passed == head.total else "yellowgreen"


def badge_dict(run: RunResult) -> dict[str, Any]:
    head = headline(run)
    message = f"{head.passed}/{head.total} pass, {head.leaked} leak"
    if head.conformance_class is not None:  # SPEC section 12: the class the counts are in
        message = f"{head.conformance_class}: {message}"
    if head.verdict in ("INTERRUPTED", "CORPUS ERROR"):
        message += f" ({head.verdict.lower()})"
    return {"schemaVersion": 1, "label": f"scrubcheck SPEC {head.spec_version}",
            "message": message, "color": badge_color(head)}


def write_badge(run: RunResult, path: Path) -> Path:
    path.write_text(json.dumps(badge_dict(run), indent=1) + "\n", encoding="utf-8")
    return path
