"""A small real matrix to build sites from: the reference and two broken scrubbers that
leak (one case-sensitive, one a passthrough), run in-process on three corpus areas in
quick mode (about 15 s). Shared by test_site.py and test_site_browser.py.
"""

from __future__ import annotations

from pathlib import Path

from scrubcheck.cli import main

CASE_SENSITIVE = "scrubcheck.scrubbers.broken.case_sensitive:CaseSensitiveScrubber"
PASSTHROUGH = "scrubcheck.scrubbers.broken.passthrough:PassthroughScrubber"
#: the row `matrix --scrubber CASE_SENSITIVE` makes
CASE_ROW = "scrubcheck.scrubbers.broken.case_sensitive-CaseSensitiveScrubber"
PASS_ROW = "scrubcheck.scrubbers.broken.passthrough-PassthroughScrubber"


def small_matrix(out: Path) -> Path:
    """Run the small matrix into `out`; its matrix.json."""
    code = main(["matrix", "--no-peers", "--scrubber", CASE_SENSITIVE, "--scrubber", PASSTHROUGH,
                 "--area", "blocks", "--area", "split-tags", "--area", "field", "--quick",
                 "--jobs", "1", "--no-progress", "--out", str(out)])
    assert code == 0
    return out / "matrix.json"


def build(matrix: Path, out: Path, *extra: str) -> int:
    return main(["site", "--out", str(out), *extra, str(matrix)])
