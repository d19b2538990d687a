"""README.md is the newcomer's first screen: it must name the interface, the run command
with a claim and the pytest one-liner early, stay short, and show what a run prints as
the run prints it.

The two run quotes are between `<!-- passing-run -->` and `<!-- failing-run -->`
markers: a `$ scrubcheck ...` line, then lines the command prints, in order. A quoted
line ending in `…` stands for the printed line it begins; the rest must be printed as
quoted, apart from timings and the chunking and check counts of the summary line,
which move with the corpus and the machine. Lines the quote leaves out are allowed.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from scrubcheck.cli import main

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")

#: what moves from run to run: seconds, and the summary line's scenario, chunking and
#: check counts
_MOVING = (re.compile(r"\d[\d,.]* s\b"),
           re.compile(r"^[\d,]+ scenarios × [\d,]+ chunkings × [\d,]+ checks"))


def _quote(marker: str) -> tuple[str, list[str]]:
    """(the command, the printed lines) of README's quote between `marker`s."""
    match = re.search(rf"<!-- {marker} -->\n```text\n(.*?)\n```\n<!-- /{marker} -->",
                      README, re.S)
    assert match, f"README.md has no ```text block between <!-- {marker} --> markers"
    first, *printed = match.group(1).splitlines()
    assert first.startswith("$ scrubcheck "), first
    return first.removeprefix("$ "), printed


def _steady(line: str) -> str:
    for pattern in _MOVING:
        line = pattern.sub("#", line)
    return line.rstrip()


def _matches(quoted: str, printed: str) -> bool:
    if quoted.endswith("…"):
        return _steady(printed).startswith(_steady(quoted[:-1]))
    return _steady(printed) == _steady(quoted)


def test_the_first_screen_names_the_interface_the_run_and_the_plugin() -> None:
    first = "\n".join(README.splitlines()[:40])
    assert "def feed(self, delta: str) -> str" in first
    assert "def flush(self) -> str" in first
    assert re.search(r"scrubcheck run --scrubber \S+ --claim \S+", first)
    assert re.search(r"pytest --scrubber \S+ --scrubcheck-claim \S+", first)


def test_the_readme_is_short_and_links_the_rest() -> None:
    assert len(README.splitlines()) <= 160
    for page in ("docs/usage.md", "docs/compliance.md", "docs/gateways.md",
                 "docs/limits.md", "docs/tools.md", "docs/performance.md",
                 "CONTRIBUTING.md", "SPEC.md"):
        assert f"]({page}" in README, page


def test_the_test_command_is_broken_over_lines() -> None:
    block = re.search(r"<!-- test-command -->\n```sh\n(.*?)\n```", README, re.S)
    assert block is not None
    assert all(len(line) <= 100 for line in block.group(1).splitlines())


@pytest.mark.parametrize("marker", ["passing-run", "failing-run"])
def test_what_a_run_prints_is_what_readme_shows(marker: str, capsys) -> None:
    command, quoted = _quote(marker)
    code = main([*shlex.split(command)[1:], "--no-progress"])
    printed = capsys.readouterr().out.splitlines()
    expected_code = int(re.search(r"\(exit (\d)\)", quoted[-1]).group(1))  # type: ignore[union-attr]
    assert code == expected_code
    at = 0
    for line in quoted:
        found = next((k for k in range(at, len(printed)) if _matches(line, printed[k])),
                     None)
        assert found is not None, (
            f"README's {marker} quote shows {line!r}, which `{command}` no longer prints "
            f"there; it printed:\n" + "\n".join(printed[:40]))
        at = found + 1
