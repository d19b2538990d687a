"""mypy over suite/ and scrubbers/reference/ finds no error (settings: [tool.mypy] in
pyproject.toml).

The package is imported as `scrubcheck` but its files live in suite/, scrubbers/ and
corpora/ (pyproject's `package-dir`). mypy names a module after its directory, and cannot
see through the import hook of an editable install, so it is run with `-p scrubcheck` on a
tree of symbolic links laid out as the package is installed; its messages are given back
with the repository's own paths. Run it by hand with `python tests/test_typing.py`.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# a message's location: "path:line: " at the start of a line
_LOCATION = re.compile(r"^(?P<path>[^:\n]+\.pyi?)(?=:\d+)", re.MULTILINE)


def package_dirs() -> dict[str, Path]:
    """The import name of each package mapped in pyproject, with its directory."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    mapping = config["tool"]["setuptools"]["package-dir"]
    return {name: ROOT / folder for name, folder in mapping.items()}


def link_tree(base: Path) -> Path:
    """Lay the package out under base as installed, and return base.

    A mapped package with another mapped inside it becomes a real directory of links to
    its entries, so that the inner one can be linked beside them.
    """
    mapped = package_dirs()
    for name in sorted(mapped, key=lambda n: n.count(".")):
        target = base.joinpath(*name.split("."))
        inner = {n.rpartition(".")[2] for n in mapped if n.rpartition(".")[0] == name}
        if not inner:
            target.symlink_to(mapped[name], target_is_directory=True)
            continue
        target.mkdir(parents=True)
        for entry in mapped[name].iterdir():
            if entry.name not in inner and entry.name != "__pycache__":
                target.joinpath(entry.name).symlink_to(entry)
    return base


def run_mypy() -> tuple[int, str]:
    """mypy's exit code and its messages, with the repository's paths."""
    with tempfile.TemporaryDirectory(prefix="scrubcheck-mypy-") as tmp:
        tree = link_tree(Path(tmp) / "tree")
        done = subprocess.run(
            [sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"),
             "--cache-dir", str(Path(tmp) / "cache"), "--no-color-output"],
            cwd=tree, env={**os.environ, "MYPYPATH": str(tree)},
            capture_output=True, text=True, check=False)
    return done.returncode, _LOCATION.sub(_repository_path, done.stdout + done.stderr)


def _repository_path(match: re.Match[str]) -> str:
    """The file a path in the link tree stands for, relative to the repository."""
    path = match["path"]
    for name, folder in sorted(package_dirs().items(), key=lambda item: -len(item[0])):
        prefix = name.replace(".", "/") + "/"
        if path.startswith(prefix):
            return str((folder / path.removeprefix(prefix)).relative_to(ROOT))
    return path


def test_mypy_finds_no_error() -> None:
    code, output = run_mypy()
    assert code == 0, f"mypy (exit {code}):\n{output}"


if __name__ == "__main__":
    code, output = run_mypy()
    print(output, end="")
    sys.exit(code)
