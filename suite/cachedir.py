"""scrubcheck's folder in the user's cache: one answer for every part that keeps files there.

The peers' and gateways' environments, the hunt's Hypothesis database and the
fuzzer's corpora live under it. Two copies of this function once disagreed (the
peers ignored `XDG_CACHE_HOME`, the hunt honoured it), so one run could put its
files in two caches.
"""

from __future__ import annotations

import os
from pathlib import Path


def cache_dir() -> Path:
    """`$SCRUBCHECK_CACHE` (tests and CI point it at a folder of their own); else, by the
    XDG base-directory rule, `$XDG_CACHE_HOME/scrubcheck` when that variable holds an
    absolute path (a relative one is ignored, as the rule says); else ~/.cache/scrubcheck."""
    own = os.environ.get("SCRUBCHECK_CACHE")
    if own:
        return Path(own).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    base = Path(xdg) if os.path.isabs(xdg) else Path.home() / ".cache"
    return base / "scrubcheck"
