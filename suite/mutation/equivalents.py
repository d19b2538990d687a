"""The committed list of equivalent mutants: mutants no input can tell from the original.

A mutant is equivalent only when an argument shows that every stream gives the same
output at every point; "the corpus does not catch it" is a survivor, never an
equivalent. So each entry carries its reason, and the session runs listed mutants
through the oracle all the same: a listed mutant that the corpus kills is reported as a
contradiction (the argument was wrong), and an entry whose mutant no longer exists in
the source (the code changed) is reported as stale, so that the list cannot rot quietly.

Entries are keyed by the stable mutant id (`mutants.mutant_id`); the file, scope,
operator and changed lines are written out beside it so that a reader can see the
mutant without running anything, and the loader checks that they still spell the id.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from scrubcheck.mutation.mutants import mutant_id
from scrubcheck.yamlsource import LineDict, YamlSyntaxError, parse_yaml

REQUIRED = ("id", "file", "scope", "operator", "original", "mutated", "reason")
OPTIONAL = ("line", "ordinal")


class EquivalentsError(Exception):
    """The equivalents file is malformed; the message names the file and line."""


@dataclass(frozen=True)
class Equivalent:
    id: str
    reason: str
    line: int  # of the entry in the YAML file
    source_line: int | None  # where the mutant was when it was argued (informative)


def _lines(value: object) -> tuple[str, ...] | None:
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(value)
    return None


def load_equivalents(path: Path) -> dict[str, Equivalent]:
    """The entries by id; a missing file is an empty list (a first run)."""
    if not path.exists():
        return {}
    try:
        data = parse_yaml(path.read_text(encoding="utf-8"))
    except YamlSyntaxError as exc:
        raise EquivalentsError(f"{path}:{exc.line}: {exc.message}") from None
    if data is None:
        return {}
    if not isinstance(data, list):
        raise EquivalentsError(f"{path}:1: the top level must be a list of entries")
    entries: dict[str, Equivalent] = {}
    for index, item in enumerate(data):
        line = data.item_lines[index] if hasattr(data, "item_lines") else 0
        entry = _entry(path, line, item)
        if entry.id in entries:
            raise EquivalentsError(f"{path}:{line}: duplicate id {entry.id} (first at line "
                                   f"{entries[entry.id].line})")
        entries[entry.id] = entry
    return entries


def _entry(path: Path, line: int, item: object) -> Equivalent:
    where = f"{path}:{line}"
    if not isinstance(item, LineDict):
        raise EquivalentsError(f"{where}: an entry must be a mapping")
    missing = [k for k in REQUIRED if k not in item]
    unknown = [k for k in item if k not in REQUIRED + OPTIONAL]
    if missing or unknown:
        raise EquivalentsError(f"{where}: " + "; ".join(
            ([f"missing {', '.join(missing)}"] if missing else [])
            + ([f"unknown key {', '.join(map(str, unknown))}"] if unknown else [])))
    original, mutated = _lines(item["original"]), _lines(item["mutated"])
    if original is None or mutated is None:
        raise EquivalentsError(f"{where}: original and mutated must be a string or a list "
                               "of strings")
    for key in ("id", "file", "scope", "operator", "reason"):
        if not isinstance(item[key], str) or not item[key].strip():
            raise EquivalentsError(f"{where}: {key} must be a non-empty string")
    ordinal = item.get("ordinal", 0)
    if not isinstance(ordinal, int) or ordinal < 0:
        raise EquivalentsError(f"{where}: ordinal must be a whole number >= 0")
    spelled = mutant_id(item["file"], item["scope"], item["operator"], original, mutated,
                        ordinal)
    if spelled != item["id"]:
        raise EquivalentsError(f"{where}: id {item['id']} does not match its file, scope, "
                               f"operator and lines (they spell {spelled})")
    source_line = item.get("line")
    return Equivalent(item["id"], " ".join(item["reason"].split()), line,
                      source_line if isinstance(source_line, int) else None)
