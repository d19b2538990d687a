"""Every peer row there is: the hand-made peer folders and every engine's parser names.

`find_manifest` and `shipped_rows` are what the harness asks for a peer by; a name
`ENGINE:NAME` is a registered parser of a serving engine (peers.engines), anything
else a folder of `scrubbers/peers/` or a manifest path (peers.manifest).
"""

from __future__ import annotations

from scrubcheck.peers import engines
from scrubcheck.peers.manifest import Manifest, ManifestError, shipped_manifests
from scrubcheck.peers.manifest import find_manifest as find_folder


def find_manifest(name_or_path: str) -> Manifest:
    """A shipped peer or engine row by name, or a manifest file or folder by path."""
    engine_name, sep, parser = name_or_path.partition(":")
    if sep and (engines.engines_dir() / engine_name / engines.ENGINE_FILE).is_file():
        engine = engines.find_engine(engine_name)
        for manifest in engines.engine_rows(engine):
            if manifest.name == name_or_path:
                return manifest
        names = ", ".join(m.name.partition(":")[2] for m in engines.engine_rows(engine))
        raise ManifestError(f"{engine_name} registers no reasoning parser {parser!r} "
                            f"(it registers: {names})")
    return find_folder(name_or_path)


def engine_placeholder(engine: engines.Engine, reason: str, name: str = "") -> Manifest:
    """The one row an engine whose names cannot be read has, saying why (named
    `ENGINE:*`), or, named `ENGINE`, what `peers install ENGINE` builds."""
    return Manifest(name=name or f"{engine.name}:*",
                    title=engine.title.format(name="every registered name"),
                    kind=engine.kind, entry=engine.entry.format(name="NAME"),
                    program=engine.program, package=engine.package, heavy=engine.heavy,
                    folder=engine.folder, engine=engine.name,
                    listed=f"its registered parsers are not listed: {reason}")


def shipped_rows() -> list[Manifest]:
    """Every shipped peer folder, then each engine's registered names (or, where the
    engine's environment is missing or its probe fails, one row saying so)."""
    rows = shipped_manifests()
    for engine in engines.shipped_engines():
        try:
            rows += engines.engine_rows(engine)
        except ManifestError as exc:
            rows.append(engine_placeholder(engine, str(exc)))
    return rows


def engine_installs() -> list[Manifest]:
    """One entry per engine, named as `scrubcheck peers install ENGINE` names it."""
    return [engine_placeholder(engine, "the engine's environment", engine.name)
            for engine in engines.shipped_engines()]
