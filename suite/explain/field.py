"""Seen in the field: which failure modes of docs/field.md a root cause's signature has.

A maintainer weighs a bug by whether it happens to users. The project's field notes
(docs/field.md) collect, per failure mode, the public reports of it; a root cause
whose signature has the shape of one of those modes is marked with it, so a report
can say "seen in the field" and link the evidence. The shapes are data
(`field_shapes.toml`, beside this module): each names the section and the signature
fields it needs, matched by glob. A file with an unknown key, a wrong type or a
decision that is not one of `Did`'s is refused with its line.
"""

from __future__ import annotations

import fnmatch
import tomllib
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from scrubcheck.explain.difference import Did
from scrubcheck.explain.signature import Signature

SHAPES_FILE = Path(__file__).with_name("field_shapes.toml")
#: the page the anchors are in, as a reader finds it in the project's tree
FIELD_PAGE = "docs/field.md"
_LISTS = ("did", "piece")
_GLOBS = ("family", "case", "boundary", "needs", "context")


class ShapeError(ValueError):
    """A shapes file that cannot be read; the message names the file and the entry."""


@dataclass(frozen=True)
class Shape:
    """One failure mode of the field notes, as the signatures that have it."""

    anchor: str
    title: str
    did: tuple[str, ...] = ()
    piece: tuple[str, ...] = ()
    family: str | None = None
    case: str | None = None
    boundary: str | None = None
    needs: str | None = None
    context: str | None = None

    def matches(self, signature: Signature) -> bool:
        if self.did and signature.did.value not in self.did:
            return False
        if self.piece and not any(fnmatch.fnmatchcase(signature.piece, p) for p in self.piece):
            return False
        for name in ("family", "case", "boundary"):
            pattern = getattr(self, name)
            if pattern is not None and not fnmatch.fnmatchcase(getattr(signature, name),
                                                               pattern):
                return False
        for name in ("needs", "context"):
            pattern = getattr(self, name)
            if pattern is not None and not any(fnmatch.fnmatchcase(value, pattern)
                                               for value in getattr(signature, name)):
                return False
        return True

    @property
    def link(self) -> str:
        return f"{FIELD_PAGE}#{self.anchor}"


def read_shapes(path: Path) -> tuple[Shape, ...]:
    """The shapes of `path`, or ShapeError naming the file and the entry at fault."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ShapeError(f"{path}: {exc}") from exc
    unknown = set(data) - {"shape"}
    if unknown or not isinstance(data.get("shape"), list):
        raise ShapeError(f"{path}: only [[shape]] tables belong here")
    decisions = {d.value for d in Did}
    shapes = []
    for number, raw in enumerate(data["shape"], 1):
        where = f"{path}: shape {number}"
        if not isinstance(raw, dict):
            raise ShapeError(f"{where}: not a table")
        bad = set(raw) - {"anchor", "title", *_LISTS, *_GLOBS}
        if bad:
            raise ShapeError(f"{where}: unknown key(s) {', '.join(sorted(bad))}")
        if not isinstance(raw.get("anchor"), str) or not isinstance(raw.get("title"), str):
            raise ShapeError(f"{where}: needs an anchor and a title (strings)")
        for name in _LISTS:
            value = raw.get(name, [])
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise ShapeError(f"{where}: {name} must be a list of strings")
        for name in _GLOBS:
            if name in raw and not isinstance(raw[name], str):
                raise ShapeError(f"{where}: {name} must be a string (a glob)")
        wrong = [d for d in raw.get("did", []) if d not in decisions]
        if wrong:
            raise ShapeError(f"{where}: {wrong[0]!r} is not a decision "
                             f"(one of: {', '.join(sorted(decisions))})")
        if len(raw) == 2:
            raise ShapeError(f"{where}: matches every signature (give at least one field)")
        shapes.append(Shape(raw["anchor"], raw["title"], tuple(raw.get("did", ())),
                            tuple(raw.get("piece", ())),
                            *(raw.get(name) for name in _GLOBS)))
    return tuple(shapes)


@cache
def shipped_shapes() -> tuple[Shape, ...]:
    return read_shapes(SHAPES_FILE)


def seen_in_field(signature: Signature,
                  shapes: tuple[Shape, ...] | None = None) -> list[dict[str, str]]:
    """The field-notes sections whose failure mode `signature` has, once each, in the
    file's order: `{"anchor", "title", "link"}`."""
    found: dict[str, dict[str, str]] = {}
    for shape in shipped_shapes() if shapes is None else shapes:
        if shape.anchor not in found and shape.matches(signature):
            found[shape.anchor] = {"anchor": shape.anchor, "title": shape.title,
                                   "link": shape.link}
    return list(found.values())
