"""Behaviours seen in real scrubbers, kept with the peers they are about.

A peer's manifest lists what the peer was seen to do as `[[observed]]` tables;
claims about every peer at once (nobody handles code fences, ...) sit in
`scrubbers/peers/observed.toml`. Each names the corpus scenarios that show it
and the verdict it predicts, so the compliance matrix can re-check every claim
on every run instead of repeating it on trust. Loading validates each table
with the file, the entry and the key in the message.

    [[observed]]
    behaviour = "recognises a tag only when a delta equals it exactly"
    scenarios = ["peer-pydantic-whole-block-in-one-delta"]
    expect = "fails"              # fails (default) | passes | unsupported
    note = "what a reader must know to read the verdict"      # optional
    source = "https://github.com/pydantic/pydantic-ai/issues/3374"  # optional
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

EXPECTS = ("fails", "passes", "unsupported")
_KEYS = {"behaviour", "scenarios", "expect", "note", "source"}
#: only a claim about every peer has a control scenario and peers said to differ
_SHARED_KEYS = _KEYS | {"control", "exempt"}
SHARED_FILE = "observed.toml"


class ObservationError(ValueError):
    """An `[[observed]]` table that cannot be used; the message names file and entry."""


@dataclass(frozen=True)
class Observation:
    behaviour: str
    scenarios: tuple[str, ...]
    expect: str = "fails"  # what the claim predicts for the peer: fails, passes, unsupported
    note: str = ""  # what a reader must know to read the verdict
    source: str = ""  # a docs/field.md anchor or a public URL
    # For a claim about every peer: a scenario a peer must pass for its verdict to count
    # (it shows the peer handles the plain case, so a pass or fail is about the claim and
    # not an accident), and name prefixes of peers the claim says differ.
    control: str = ""
    exempt: tuple[str, ...] = ()


def parse_observations(raw: object, path: Path, *, shared: bool = False
                       ) -> tuple[Observation, ...]:
    """The `observed` array of tables of one TOML file (absent: none)."""
    if raw is None:
        return ()
    if not isinstance(raw, list) or not all(isinstance(e, dict) for e in raw):
        raise ObservationError(f"{path}: observed must be an array of tables ([[observed]])")
    return tuple(_entry(e, path, i, shared) for i, e in enumerate(raw, 1))


def _entry(entry: dict, path: Path, index: int, shared: bool) -> Observation:
    where = f"{path}: [[observed]] #{index}"
    unknown = set(entry) - (_SHARED_KEYS if shared else _KEYS)
    if unknown:
        raise ObservationError(f"{where}: unknown key(s) {', '.join(sorted(unknown))}")
    behaviour = entry.get("behaviour")
    if not isinstance(behaviour, str) or not behaviour.strip():
        raise ObservationError(f"{where}: behaviour is required and must be a non-empty string")
    where = f"{where} ({behaviour[:40]!r})"
    scenarios = entry.get("scenarios")
    if (not isinstance(scenarios, list) or not scenarios
            or not all(isinstance(s, str) and s for s in scenarios)):
        raise ObservationError(f"{where}: scenarios must be a non-empty list of scenario ids")
    expect = entry.get("expect", "fails")
    if expect not in EXPECTS:
        raise ObservationError(f"{where}: expect {expect!r}: choose from {', '.join(EXPECTS)}")
    for key in ("note", "source", "control"):
        if not isinstance(entry.get(key, ""), str):
            raise ObservationError(f"{where}: {key} must be a string")
    exempt = entry.get("exempt", [])
    if not isinstance(exempt, list) or not all(isinstance(e, str) and e for e in exempt):
        raise ObservationError(f"{where}: exempt must be a list of peer name prefixes")
    return Observation(behaviour.strip(), tuple(scenarios), expect, entry.get("note", ""),
                       entry.get("source", ""), entry.get("control", ""), tuple(exempt))


def load_shared_observations(path: Path) -> tuple[Observation, ...]:
    """The claims about every peer (`observed.toml` next to the peer folders)."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ObservationError(f"{path}: {exc}") from exc
    unknown = set(data) - {"observed"}
    if unknown:
        raise ObservationError(f"{path}: unknown key(s) {', '.join(sorted(unknown))}")
    return parse_observations(data.get("observed"), path, shared=True)
