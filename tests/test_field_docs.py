"""The project cites only itself and public sources: docs/field.md, its anchors, public URLs.

Notes kept outside the repository (the field and peer notes, a ../shared folder)
are not there for a reader of the repository, so nothing shipped may point at
them; every `docs/field.md#anchor` a shipped file cites must exist.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIELD = ROOT / "docs" / "field.md"
# spelled apart, so that a search of the tree for a citation finds none here
OUTSIDE = (b"FIELD" + b".md", b"PEERS" + b".md", b"../shared")
CITATION = re.compile(rb"docs/field\.md#([a-z0-9-]+)")
ANCHOR = re.compile(r'<a id="([a-z0-9-]+)"></a>')


def shipped_files() -> list[Path]:
    """Everything git tracks, tests/ excepted (the tests may name what they forbid)."""
    try:
        listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True,
                                check=True).stdout
    except (OSError, subprocess.CalledProcessError) as exc:
        pytest.skip(f"not a git checkout, cannot list the shipped files: {exc}")
    paths = [ROOT / p.decode() for p in listed.split(b"\0") if p]
    return [p for p in paths if p.is_file() and not p.relative_to(ROOT).parts[0] == "tests"]


def test_no_shipped_file_points_outside_the_repository():
    offenders = []
    for path in shipped_files():
        data = path.read_bytes()
        for needle in OUTSIDE:
            if needle in data:
                line = data[:data.index(needle)].count(b"\n") + 1
                offenders.append(f"{path.relative_to(ROOT)}:{line}: {needle.decode()}")
    assert not offenders, "\n".join(offenders)


def test_every_cited_field_anchor_exists():
    anchors = set(ANCHOR.findall(FIELD.read_text(encoding="utf-8")))
    assert len(anchors) >= 30
    missing = [f"{path.relative_to(ROOT)}: #{name.decode()}"
               for path in shipped_files() for name in CITATION.findall(path.read_bytes())
               if name.decode() not in anchors]
    assert not missing, "\n".join(missing)


def test_each_anchor_is_used_once_and_sections_cite_public_sources():
    text = FIELD.read_text(encoding="utf-8")
    names = ANCHOR.findall(text)
    assert len(names) == len(set(names)), "an anchor is defined twice"
    sections = re.split(r'<a id="[a-z0-9-]+"></a>', text)[1:]
    without = [name for name, body in zip(names, sections, strict=True)
               if name.startswith(("fam-", "fm-")) and "https://" not in body]
    assert not without, f"sections without a public source: {without}"
