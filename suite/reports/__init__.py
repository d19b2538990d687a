"""Report writers: one module per format, all reading the same RunResult.

    from scrubcheck.reports import write_reports
    paths = write_reports(run, Path("reports/my-scrubber"))

Numbers and ordering come from `analysis`, per-scenario text from `scenario`, the
console summary `run` and `merge` print from `console`,
so the Markdown, JSON, JUnit and HTML reports and the pytest plugin agree.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

from ..results import RunResult
from .badge import write_badge
from .failure_text import scenario_text
from .html import write_html
from .json_report import read_report, report_dict, validate_report, write_json
from .junit import write_junit
from .markdown import write_markdown
from .text import visible_whitespace

FILE_NAMES: dict[str, str] = {
    "md": "report.md",
    "json": "report.json",
    "junit": "junit.xml",
    "html": "report.html",
    "badge": "badge.json",  # shields.io endpoint JSON (badge.py)
}
WRITERS: dict[str, Callable[[RunResult, Path], Path]] = {
    "md": write_markdown,
    "json": write_json,
    "junit": write_junit,
    "html": write_html,
    "badge": write_badge,
}
FORMATS: tuple[str, ...] = tuple(FILE_NAMES)


def write_reports(run: RunResult, report_dir: Path,
                  formats: Iterable[str] = FORMATS) -> list[Path]:
    """Write the chosen report formats into `report_dir` (created if needed).

    Returns the written paths in the order of `formats`; an unknown format name
    raises ValueError before anything is written.
    """
    formats = list(dict.fromkeys(formats))
    unknown = [f for f in formats if f not in WRITERS]
    if unknown:
        raise ValueError(f"unknown report format(s): {', '.join(unknown)}; "
                         f"choose from {', '.join(FORMATS)}")
    report_dir = Path(report_dir)
    report_dir.mkdir(parents=True, exist_ok=True)
    return [WRITERS[f](run, report_dir / FILE_NAMES[f]) for f in formats]


__all__ = [
    "FILE_NAMES",
    "FORMATS",
    "read_report",
    "report_dict",
    "scenario_text",
    "validate_report",
    "visible_whitespace",
    "write_reports",
]
