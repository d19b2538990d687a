"""Reading what `gateway check` and `gateway import` are given: capture files, or raw
SSE text saved by another tool (recognised by its `data:` lines)."""

from __future__ import annotations

import re
from pathlib import Path

from scrubcheck.gateway.capture import Capture, CaptureFileError, parse_captures
from scrubcheck.gateway.sse import capture_from_sse

_DATA_LINE = re.compile(r"^data:", re.MULTILINE)


def load_inputs(path: Path) -> list[Capture]:
    """The captures in `path`. Raises CaptureFileError or OSError with a clear message."""
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise CaptureFileError(f"{path}: not UTF-8 text ({exc.reason})") from exc
    if text.lstrip().startswith("{"):
        return parse_captures(text, str(path))
    if _DATA_LINE.search(text):
        return [capture_from_sse(text, path.stem, str(path))]
    raise CaptureFileError(f"{path}: neither a capture file (JSON) nor saved SSE text "
                           "(no line starts with 'data:')")
