"""Which checkout a benchmark measured: every committed table names the commit it came
from, and says so when the code measured had changes not yet committed."""

from __future__ import annotations

import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _git(*words: str) -> str:
    done = subprocess.run(["git", *words], cwd=ROOT, capture_output=True, text=True)
    return done.stdout.strip()


def measured_commit() -> str:
    """The short hash of HEAD, with `+ local changes` when tracked files outside reports/
    differ from it (the reports, the table being written among them, are not measured)."""
    commit = _git("rev-parse", "--short", "HEAD") or "unknown"
    changed = _git("status", "--porcelain", "--untracked-files=no", "--", ".", ":!reports")
    return commit + (" + local changes" if changed else "")
