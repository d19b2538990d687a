"""Hostile corpora through every command that reads one: bounded memory and time, one clear
error naming the file (and the line where there is one), exit 2.

Each command runs as a subprocess under an address-space limit, so that a regression fails
with a MemoryError instead of exhausting a shared machine (before the composer refused
anchors, `lint` on the alias bomb below grew until it hit this limit, at 667 MB resident; the
16 MiB file was still loading when killed at the time limit).
Peak memory is read from the child's own resource usage; the time limit is a generous bound
on hostile input, not a performance target.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import bounded
import pytest
from bounded import Finished

from scrubcheck.corpus.loader import DEFAULT_MAX_BYTES

GOOD = Path(__file__).parent / "data" / "bad_corpora" / "mixed" / "good.yaml"
ADDRESS_SPACE = 1 << 30   # per child; a Python process running scrubcheck needs far less
PEAK_RSS = 250 << 20      # the children measured 40-45 MB; a bomb needs gigabytes
WALL_S = 60.0             # each command took under a second (killed and failed past this)

# command name -> the arguments that make it read the corpus at PATH
COMMANDS: dict[str, Callable[[str], list[str]]] = {
    "lint": lambda path: ["lint", path],
    "run": lambda path: ["run", "--corpus", path, "--no-linear", "--jobs", "1",
                         "--scrubber", "reference", "--no-progress"],
    "show": lambda path: ["show", "mixed-good", "--corpus", path],
    "coverage": lambda path: ["coverage", path],
}


def billion_laughs(levels: int = 9) -> str:
    """A scenario whose `labels` alias 9 ** levels strings (about 387 million at 9) in 1 KB."""
    lines = [
        "- id: bomb",
        "  rules: [R-BLOCK-1]",
        "  description: billion laughs",
        '  deltas: ["<think>x</think>y"]',
        '  visible: "y"',
        '  reasoning: ["x"]',
        '  source: &l0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]',
        "  context:",
    ]
    for level in range(1, levels + 1):
        ref = f"*l{level - 1}"
        lines.append(f"    x{level}: &l{level} [{', '.join([ref] * 9)}]")
    lines.append(f"  labels: *l{levels}")
    return "\n".join(lines) + "\n"


def huge_file(path: Path, size: int) -> None:
    """A valid corpus file of `size` bytes or a little more: small scenarios, written fast."""
    block = "".join(
        f'- {{id: huge-{i}, rules: [R-BLOCK-1], description: d, '
        f'deltas: ["<think>weigh option {i}</think>", "Fine."], visible: "Fine.", '
        f'reasoning: ["weigh option {i}"]}}\n'
        for i in range(1000))
    with path.open("w", encoding="utf-8") as out:
        for copy in range(size // len(block) + 1):
            out.write(block.replace("huge-", f"huge-{copy}-"))


def scrubcheck(*args: str, cwd: Path) -> Finished:
    """Run the installed entry point under the limits; peak RSS covers its worker processes."""
    result = bounded.scrubcheck(*args, bound_s=WALL_S, cwd=cwd, address_space=ADDRESS_SPACE)
    assert result.peak_rss < PEAK_RSS, f"{args} peaked at {result.peak_rss >> 20} MB"
    return result


# case name -> (build the corpus under tmp_path and return the path to give, expected text)
def _bomb(tmp: Path) -> tuple[str, str]:
    (tmp / "bomb.yaml").write_text(billion_laughs(), encoding="utf-8")
    return "bomb.yaml", "bomb.yaml:7: YAML anchor &l0 refused: corpus files may not use anchors"


def _huge(tmp: Path) -> tuple[str, str]:
    huge_file(tmp / "huge.yaml", 16 * DEFAULT_MAX_BYTES)
    size = (tmp / "huge.yaml").stat().st_size
    return "huge.yaml", (f"huge.yaml:1: file is {size:,} bytes, over the limit of "
                         f"{DEFAULT_MAX_BYTES:,} bytes per corpus file")


def _deep(tmp: Path) -> tuple[str, str]:
    (tmp / "deep.yaml").write_text("- " + "[" * 200_000 + "\n", encoding="utf-8")
    return "deep.yaml", "deep.yaml:1: YAML nested more than"


def _empty(tmp: Path) -> tuple[str, str]:
    (tmp / "empty").mkdir()
    return "empty", "no corpus files (*.yaml, *.yml) in directory: empty"


def _no_yaml(tmp: Path) -> tuple[str, str]:
    (tmp / "notes").mkdir()
    (tmp / "notes" / "README.md").write_text("# scenarios go here\n", encoding="utf-8")
    return "notes", "no corpus files (*.yaml, *.yml) in directory: notes"


def _mistyped(tmp: Path) -> tuple[str, str]:
    shutil.copy(GOOD, tmp / "blocks.yaml")
    return "block.yaml", "no such corpus file or directory: block.yaml (did you mean blocks.yaml?)"


CASES = {"alias-bomb": _bomb, "huge-file": _huge, "deep-nesting": _deep, "empty-folder": _empty,
         "folder-without-yaml": _no_yaml, "mistyped-path": _mistyped}


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("case", CASES)
def test_hostile_corpus_is_refused_clearly_and_cheaply(tmp_path: Path, case: str,
                                                       command: str) -> None:
    path, expected = CASES[case](tmp_path)
    result = scrubcheck(*COMMANDS[command](path), cwd=tmp_path)
    assert result.code == 2, result.text
    assert expected in result.text
    assert "Traceback" not in result.text


@pytest.fixture
def mixed(tmp_path: Path) -> Path:
    """A folder holding one good file and one bomb."""
    (tmp_path / "mixed").mkdir()
    shutil.copy(GOOD, tmp_path / "mixed" / "good.yaml")
    (tmp_path / "mixed" / "bomb.yaml").write_text(billion_laughs(), encoding="utf-8")
    return tmp_path


BOMB_ERROR = "mixed/bomb.yaml:7: YAML anchor &l0 refused"


def test_lint_of_a_mixed_folder_loads_the_good_file_and_reports_the_bomb(mixed: Path) -> None:
    result = scrubcheck("lint", "mixed", cwd=mixed)
    assert result.code == 2
    assert result.out.splitlines()[0].startswith(BOMB_ERROR)
    assert result.out.splitlines()[-1] == "2 files, 1 scenarios loaded, 1 errors in 1 files"


def test_run_of_a_mixed_folder_runs_the_good_scenario_and_exits_2(mixed: Path) -> None:
    """The contract of `run`: corpus errors are printed, the rest runs, exit 2 at the end."""
    result = scrubcheck(*COMMANDS["run"]("mixed"), cwd=mixed)
    assert result.code == 2, result.text
    assert result.err.startswith(BOMB_ERROR)
    assert "1 scenario × " in result.out and "PASS 1  FAIL 0" in result.out
    assert "result: CORPUS ERROR at level must (exit 2)" in result.out


def test_show_of_a_mixed_folder_shows_the_good_scenario_and_names_the_bomb(mixed: Path) -> None:
    """`show` judges the one scenario asked for (exit by its verdict) and still names the
    broken file; a scenario of the broken file is not in the corpus (exit 2)."""
    good = scrubcheck("show", "mixed-good", "--corpus", "mixed", cwd=mixed)
    assert good.code == 0, good.text
    assert good.err.startswith(BOMB_ERROR)
    assert "verdict: PASS" in good.out
    bomb = scrubcheck("show", "bomb", "--corpus", "mixed", cwd=mixed)
    assert bomb.code == 2
    assert bomb.err.startswith(BOMB_ERROR)
    assert "no scenario 'bomb' in the corpus" in bomb.err


def test_coverage_of_a_mixed_folder_counts_the_good_file_and_exits_2(mixed: Path) -> None:
    result = scrubcheck("coverage", "mixed", cwd=mixed)
    assert result.code == 2
    assert "1 scenarios (1 hand-written, 0 generated) from 2 files; 1 corpus errors" in result.out
    assert BOMB_ERROR in result.err
