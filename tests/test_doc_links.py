"""Every relative link in the project's Markdown points at a file that exists (and, for
`file.md#anchor`, at a heading or anchor of that file): a reader who follows the README
to a report or a doc must not land on nothing. External links are not fetched."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from markdown_it import MarkdownIt

ROOT = Path(__file__).resolve().parent.parent
_PARSER = MarkdownIt("commonmark")


def markdown_files() -> list[Path]:
    listed = subprocess.run(["git", "ls-files", "*.md"], cwd=ROOT, capture_output=True,
                            text=True, check=False).stdout.split()
    if not listed:  # not a git checkout (an sdist): every Markdown file below the root
        return sorted(p for p in ROOT.rglob("*.md") if ".venv" not in p.parts)
    return [ROOT / name for name in listed]


def links(path: Path) -> list[str]:
    found = []
    stack = list(_PARSER.parse(path.read_text(encoding="utf-8")))
    while stack:
        token = stack.pop()
        stack.extend(token.children or ())
        if token.type == "link_open":
            found.append(str(token.attrs.get("href", "")))
        elif token.type == "image":
            found.append(str(token.attrs.get("src", "")))
        elif token.type in ("html_block", "html_inline"):
            found.extend(re.findall(r'(?:href|src)="([^"]+)"', token.content))
    return found


def anchors(path: Path) -> set[str]:
    """GitHub's heading slugs (lower case, punctuation but `-` and `_` dropped, spaces to
    `-`) and explicit `id=`/`name=` anchors."""
    text = path.read_text(encoding="utf-8")
    found = set(re.findall(r'(?:id|name)="([^"]+)"', text))
    for token in _PARSER.parse(text):
        if token.type == "inline" and token.map is not None:
            line = text.splitlines()[token.map[0]]
            if line.lstrip().startswith("#"):
                slug = re.sub(r"[^\w\- ]", "", token.content.lower()).replace(" ", "-")
                found.add(slug)
    return found


@pytest.mark.parametrize("path", markdown_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_resolve(path: Path) -> None:
    broken = []
    for href in links(path):
        parts = urlsplit(href)
        if parts.scheme or parts.netloc or href.startswith("#") or not parts.path:
            continue
        target = (path.parent / unquote(parts.path)).resolve()
        if not target.exists():
            shown = target.relative_to(ROOT) if ROOT in target.parents else target
            broken.append(f"{href} (no {shown})")
        elif parts.fragment and target.suffix == ".md" and parts.fragment not in anchors(target):
            broken.append(f"{href} (no heading or anchor #{parts.fragment})")
    assert broken == [], f"{path.relative_to(ROOT)}: " + "; ".join(broken)
