"""Serves one registered parser of an engine over the peer protocol (run in its env).

    python ENGINE/adapter.py NAME TAGS_JSON

Each engine folder's `adapter.py` hands its folder to `serve_named`, which loads
the folder's `driver.py` (see probe.py for what a driver offers) and serves the
parser NAME as a streaming splitter: one parser per stream, built as the
engine's server builds one per request. TAGS_JSON lists the texts the made-up
tokenizer holds as single tokens: the delimiters of the harness's format
registry, so a whole tag in a delta is one token as it is for the real model.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

sys.path.insert(0, os.environ["SCRUBCHECK_PEERLOOP_DIR"])
from peerloop import serve  # noqa: E402
from probe import _driver  # noqa: E402


def serve_named(adapter_file: str) -> None:
    folder = Path(adapter_file).resolve().parent
    if len(sys.argv) != 3:
        raise SystemExit(f"usage: {adapter_file} NAME TAGS_JSON")
    name, tags = sys.argv[1], json.loads(sys.argv[2])
    driver = _driver(folder)
    known = [entry["name"] for entry in driver.names()]
    if name not in known:
        raise SystemExit(f"{folder.name} registers no reasoning parser {name!r} "
                         f"(it registers: {', '.join(known)})")

    def open_stream(context: dict):
        return driver.open_stream(name, tags, context)

    serve(open_stream, kind="stream-splitter", package=driver.PACKAGE)
