"""The formats in force: the shipped files, then any a user added with --formats.

Read once per process (the files are small and every scanner's tables are built from
them). A shipped file with a problem is a broken installation, so it raises; a user's
file with a problem raises too, naming every file:line, before anything is judged.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable, Iterable
from importlib import resources
from pathlib import Path

from scrubcheck.formats.model import Format
from scrubcheck.formats.reading import FormatError, read_format_file

FORMAT_SUFFIX = ".yaml"


class FormatsUnavailable(ValueError):
    """Format files that cannot be used: every problem, one per line, in the message."""

    def __init__(self, errors: list[FormatError]) -> None:
        super().__init__("\n".join(map(str, errors)))
        self.errors = errors


def shipped_format_dir() -> Path:
    """The shipped registry: the `scrubcheck.formatfiles` package data, else the
    checkout's formats/ folder (an editable install maps the package there)."""
    try:
        root = resources.files("scrubcheck.formatfiles")
        if isinstance(root, Path) and root.is_dir():
            return root
    except (ModuleNotFoundError, TypeError):
        pass
    spec = importlib.util.find_spec("scrubcheck.formatfiles")
    if spec is not None and spec.submodule_search_locations:
        return Path(next(iter(spec.submodule_search_locations)))
    return Path(__file__).resolve().parent.parent.parent / "formats"


def format_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.glob("*" + FORMAT_SUFFIX) if p.is_file())


def read_formats(paths: Iterable[Path]) -> tuple[list[Format], list[FormatError]]:
    """Every format of `paths` (files, or folders of *.yaml files), and every problem,
    including two files that give one name."""
    formats: list[Format] = []
    errors: list[FormatError] = []
    for path in paths:
        for file in format_files(path) if path.is_dir() else [path]:
            found, problems = read_format_file(file)
            errors += problems
            if found is not None:
                formats.append(found)
    by_name: dict[str, Format] = {}
    for fmt in formats:
        if fmt.name in by_name:
            first = by_name[fmt.name]
            errors.append(FormatError(fmt.file, fmt.line, f"format {fmt.name!r} is already "
                                      f"defined at {first.file}:{first.line}"))
        by_name.setdefault(fmt.name, fmt)
    return sorted(by_name.values(), key=lambda f: f.sort_key), errors


_registered: dict[str, Format] = {}


def registered_formats() -> dict[str, Format]:
    """Every format in force, by name: the shipped ones first (read on first use)."""
    if not _registered:
        shipped, errors = read_formats([shipped_format_dir()])
        if errors:
            raise FormatsUnavailable(errors)
        bases = [f.name for f in shipped if f.generic == "base"]
        if len(bases) != 1:
            raise FormatsUnavailable([FormatError(str(shipped_format_dir()), 0,
                                      f"exactly one format must be generic: base, not {bases}")])
        _registered.update((f.name, f) for f in shipped)
    return _registered


def register_format_files(paths: Iterable[Path],
                          check: Callable[[Format], list[str]] | None = None) -> list[Format]:
    """Add a user's format files (--formats) to the formats in force, and return them.

    Raises FormatsUnavailable naming every problem; a user's format may not redefine a
    shipped one, nor be the base family; `check` gives a format's further problems
    (the vocabulary's: scrubcheck.vocabulary.format_problems)."""
    known = registered_formats()
    added, errors = read_formats(list(paths))
    if check is not None:
        for fmt in added:
            errors += [FormatError(fmt.file, fmt.line, problem) for problem in check(fmt)]
    for fmt in added:
        if fmt.name in known and known[fmt.name].file != fmt.file:
            first = known[fmt.name]
            errors.append(FormatError(fmt.file, fmt.line, f"format {fmt.name!r} is already "
                                      f"defined at {first.file}:{first.line}"))
        elif fmt.generic == "base":
            errors.append(FormatError(fmt.file, fmt.line, "only the shipped default family "
                                      "is generic: base; use feature or none"))
    if errors:
        raise FormatsUnavailable(errors)
    merged = sorted([*known.values(), *(f for f in added if f.name not in known)],
                    key=lambda f: f.sort_key)
    known.clear()
    known.update((f.name, f) for f in merged)
    return added
