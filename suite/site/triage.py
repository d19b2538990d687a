"""Triage: the standing of each bug and failure class, from what upstream said of it.

A root cause (a bug as `scrubcheck.explain` names it) or a failure class (an
implementation's failing scenarios grouped by verdict, rules, area and generating
family) is something the scrubber's authors can be told about. The triage file
(`scrubbers/peers/triage.toml`) gives it a standing: a known upstream bug, with the
issue or pull request that reports or fixes it and its status; or a choice the
implementation documents (`status = "by-design"`), with the reason and the page that
documents it. The site shows the standing beside the bug, so a publisher can tell
"not yet reported" from "by design", and lists what nobody has triaged yet.

An entry with `bug` is about root causes: it matches those of the named
implementations whose name matches the glob (and that break all its `rules`). An entry
without it is about failure classes:

    [[triage]]
    implementation = "hermes-*"       # a row name or a glob over row names (required)
    rules = ["R-VOCAB-1"]             # the class fails all of these (optional)
    family = "gen-case"               # glob over the generating family (optional;
                                      # "" is a hand-written scenario)
    area = "generated"                # the corpus area (optional)
    upstream = "https://github.com/OWNER/REPO/pull/123"   # required
    status = "open"                   # see STATUSES (required)
    note = "what the entry is about"  # optional
    source = "docs/field.md#fm-case"  # where the project cites it (optional)
    bug = "*letter case*"             # glob over a root cause's name (optional)

A "by-design" entry's `upstream` is the implementation's own documentation of the
choice, and its `note` (required) the reason.

`lint_triage` reports every error with the file and line; the site refuses a
file with errors rather than showing a half-read triage.
"""

from __future__ import annotations

import fnmatch
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

from scrubcheck.spec import RULES

#: open / merged / closed: the upstream thread's own state; fixed: a release carries the
#: fix; wontfix: upstream declined; unverified: cited, state not checked from here;
#: by-design: the implementation documents the behaviour as its choice
STATUSES = ("open", "merged", "closed", "fixed", "wontfix", "unverified", "by-design")
_REQUIRED = {"implementation": str, "upstream": str, "status": str}
_OPTIONAL = {"rules": list, "family": str, "area": str, "note": str, "source": str,
             "bug": str}
_URL = re.compile(r"https?://[^\s\"'<>]+\Z")


class TriageError(ValueError):
    """A triage file with errors; `errors` are `file:line: message` lines."""

    def __init__(self, errors: list[str]) -> None:
        super().__init__("\n".join(errors))
        self.errors = errors


@dataclass(frozen=True)
class TriageEntry:
    implementation: str
    upstream: str
    status: str
    rules: tuple[str, ...] = ()
    family: str | None = None
    area: str | None = None
    note: str = ""
    source: str = ""
    where: str = ""  # file:line of its [[triage]] header
    bug: str | None = None  # glob over a root cause's name: the entry is about bugs

    @property
    def by_design(self) -> bool:
        return self.status == "by-design"

    def _names(self, impl: str) -> bool:
        names = {impl, impl.partition("@")[0]}
        return any(fnmatch.fnmatchcase(n, self.implementation) for n in names)

    def matches(self, impl: str, failure_class: dict) -> bool:
        """Whether this entry is about `failure_class` of the implementation `impl` (a row
        name; NAME@VERSION rows match entries written for NAME)."""
        if self.bug is not None or not self._names(impl):
            return False
        class_rules = set(str(failure_class.get("rules", "")).split(" · "))
        if not set(self.rules) <= class_rules:
            return False
        if self.family is not None and not fnmatch.fnmatchcase(
                str(failure_class.get("family", "")), self.family):
            return False
        return self.area is None or self.area == failure_class.get("area")

    def matches_bug(self, impl: str, cause: dict) -> bool:
        """Whether this entry is about the root cause `cause` (as `RootCause.to_dict`
        writes it) of the implementation `impl`."""
        if self.bug is None or not self._names(impl):
            return False
        return (fnmatch.fnmatchcase(str(cause.get("name", "")), self.bug)
                and set(self.rules) <= set(cause.get("rules", [])))


def shipped_triage_file() -> Path:
    from scrubcheck import scrubbers

    return Path(scrubbers.__file__).resolve().parent / "peers" / "triage.toml"


def _header_lines(source: str) -> list[int]:
    return [n for n, line in enumerate(source.splitlines(), 1)
            if line.strip().startswith("[[triage]]")]


def _key_line(source: str, start: int, key: str) -> int:
    lines = source.splitlines()
    for number in range(start, len(lines) + 1):
        if number > start and lines[number - 1].strip().startswith("[["):
            break
        if re.match(rf"\s*{re.escape(key)}\s*=", lines[number - 1]):
            return number
    return start


def lint_triage(path: Path, implementations: list[str]) -> tuple[list[TriageEntry], list[str]]:
    """The file's entries and its errors (`file:line: message`). `implementations` are
    the names an entry's glob must match at least one of (the shipped peers)."""
    try:
        source = path.read_text(encoding="utf-8")
    except OSError as exc:
        return [], [f"{path}: cannot read: {exc}"]
    try:
        data = tomllib.loads(source)
    except tomllib.TOMLDecodeError as exc:
        line = re.search(r"line (\d+)", str(exc))
        return [], [f"{path}:{line.group(1) if line else 1}: not TOML: {exc}"]
    errors = [f"{path}:1: unknown top-level key {k!r} (only [[triage]] tables)"
              for k in data if k != "triage"]
    raw_entries = data.get("triage", [])
    if not isinstance(raw_entries, list):
        return [], [*errors, f"{path}:1: 'triage' must be an array of tables ([[triage]])"]
    headers = _header_lines(source)
    entries = []
    for index, raw in enumerate(raw_entries):
        start = headers[index] if index < len(headers) else 1
        found = _entry(raw, path, start, source, implementations)
        if isinstance(found, TriageEntry):
            entries.append(found)
        else:
            errors.extend(found)
    seen: dict[tuple, str] = {}
    for entry in entries:
        key = (entry.implementation, entry.rules, entry.family, entry.area, entry.bug,
               entry.upstream)
        if key in seen:
            errors.append(f"{entry.where}: the same entry as {seen[key]}")
        seen.setdefault(key, entry.where)
    return entries, errors


def _entry(raw: object, path: Path, start: int, source: str,
           implementations: list[str]) -> TriageEntry | list[str]:
    where = f"{path}:{start}"
    if not isinstance(raw, dict):
        return [f"{where}: a [[triage]] entry must be a table"]
    errors: list[str] = []

    def at(key: str) -> str:
        return f"{path}:{_key_line(source, start, key)}"

    unknown = [f"{at(key)}: unknown key {key!r} (known: {', '.join([*_REQUIRED, *_OPTIONAL])})"
               for key in raw if key not in _REQUIRED and key not in _OPTIONAL]
    for key in _REQUIRED:
        if key not in raw:
            errors.append(f"{where}: missing required key {key!r}")
    for key, kind in {**_REQUIRED, **_OPTIONAL}.items():
        if key in raw and not isinstance(raw[key], kind):
            errors.append(f"{at(key)}: {key!r} must be a {kind.__name__}")
    if errors:  # the values cannot be read: say so, and what else is wrong with the keys
        return errors + unknown
    errors.extend(unknown)
    if raw["status"] not in STATUSES:
        errors.append(f"{at('status')}: status {raw['status']!r} is not one of "
                      f"{', '.join(STATUSES)}")
    if not _URL.match(raw["upstream"]):
        errors.append(f"{at('upstream')}: upstream {raw['upstream']!r} is not an http(s) URL")
    rules = raw.get("rules", [])
    for rule in rules:
        if not isinstance(rule, str) or rule not in RULES:
            errors.append(f"{at('rules')}: {rule!r} is not a SPEC rule id")
    if raw["status"] == "by-design" and not raw.get("note"):
        errors.append(f"{at('status')}: a by-design entry needs a note: the reason the "
                      "implementation gives")
    if "bug" in raw and (not raw["bug"].strip() or raw.keys() & {"family", "area"}):
        errors.append(f"{at('bug')}: 'bug' is a non-empty glob over a root cause's name, "
                      "and a bug has no family or area (those are a failure class's)")
    pattern = raw["implementation"]
    if not any(fnmatch.fnmatchcase(n, pattern) for n in implementations):
        errors.append(f"{at('implementation')}: {pattern!r} matches no implementation "
                      "(a shipped peer's name, or a glob over them)")
    if errors:
        return errors
    return TriageEntry(pattern, raw["upstream"], raw["status"], tuple(rules),
                       raw.get("family"), raw.get("area"), raw.get("note", ""),
                       raw.get("source", ""), where, raw.get("bug"))


def load_triage(path: Path, implementations: list[str]) -> list[TriageEntry]:
    entries, errors = lint_triage(path, implementations)
    if errors:
        raise TriageError(errors)
    return entries


def triage_of(entries: list[TriageEntry], impl: str, failure_class: dict) -> list[TriageEntry]:
    return [e for e in entries if e.matches(impl, failure_class)]


def standing_of(entries: list[TriageEntry], impl: str, cause: dict) -> list[TriageEntry]:
    """The entries that give the root cause `cause` of `impl` its standing."""
    return [e for e in entries if e.matches_bug(impl, cause)]
