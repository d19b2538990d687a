"""Serving engines as peers: one manifest per engine, one row per registered parser name.

vLLM, SGLang and lmdeploy each register their reasoning parsers by name
(`--reasoning-parser NAME`), and every release adds some. A folder per name would
copy the engine's list by hand and fall behind it; instead an engine has one folder,
`scrubbers/peers/engines/ENGINE/`, with `engine.toml` (the package, how it is driven,
what holds for every name) and a `driver.py` run inside the engine's environment.
The names are read from the installed engine by `engines/probe.py`, which also runs
every name on a short stream per reasoning delimiter of the format registry (open,
reasoning, close, answer; the same after a pre-filled open; an answer alone). What
the probe saw decides, for each name:

- its class (SPEC section 12): among the registry's formats whose every reasoning pair
  the parser split, the one with the most pairs, then the fewest delimiters; a parser
  that split pairs no format holds together is listed with the pairs it split;
- where its streams start: a parser that read a bare answer as reasoning always starts
  in reasoning (`fixed_context`), one that split after a pre-fill only with its thinking
  flag on takes the context's `starts_in_reasoning` as that flag, one that never did
  runs only on streams without a pre-fill;
- whether it runs a second time: a name selecting the same code as an earlier name,
  with the same probe results, is listed as that name's alias; a name the engine folder
  gives a hand-made row of its own (`[rows]`) is listed pointing at that row.

A name that raises, or splits none of the registry's delimiters, is a listed row with
its reason; no registered name is dropped. The probe's findings are cached in the
engine's environment, keyed by the installed version, the driver's code and the probes.
A row is named `ENGINE:NAME` (`peer:vllm:deepseek_v3`).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path

from scrubcheck.childprocess import die_with_parent
from scrubcheck.formats import Format, registered_formats
from scrubcheck.peers.envs import env_dir, python_of, read_marker
from scrubcheck.peers.manifest import (
    KINDS,
    Manifest,
    ManifestError,
    Package,
    parse_package,
    shipped_dir,
)
from scrubcheck.vocabulary import FEATURES

ENGINE_FILE = "engine.toml"
_KEYS = {"engine", "title", "kind", "entry", "source", "heavy", "token_aligned",
         "timeout_s", "restrictions", "package", "rows"}
#: how long listing and probing every name of one engine may take
PROBE_TIMEOUT_S = 900.0
#: the delimiter kinds a probe opens and closes reasoning with
_PAIR_KINDS = ("pair", "special-token-pair")


@dataclass(frozen=True)
class Engine:
    """One engine folder's engine.toml."""

    name: str
    title: str  # with {name} for the parser's name
    kind: str
    entry: str  # with {name}
    source: str  # a parser's source page, with {version} and {module_path}
    package: Package
    folder: Path
    heavy: bool = True
    token_aligned: bool = False
    timeout_s: float = 20.0
    restrictions: tuple[str, ...] = ()
    #: registered names that have a hand-made peer folder of their own -> that row's name
    own_rows: tuple[tuple[str, str], ...] = ()

    @property
    def program(self) -> Path:
        return self.folder / "adapter.py"


@dataclass(frozen=True)
class Probe:
    """A short stream in one reasoning delimiter of the registry."""

    id: str  # FORMAT/open-text
    format: str
    open: tuple[str, ...]
    close: tuple[str, ...]

    def to_json(self) -> dict:
        return {"id": self.id, "open": list(self.open), "close": list(self.close)}


@dataclass(frozen=True)
class Parser:
    """What the probe read of one registered name."""

    name: str
    code: str
    error: str
    probes: dict[str, dict] = field(default_factory=dict)
    plain: tuple[str, ...] = ()  # (reasoning, content) of an answer alone, no pre-fill

    def split(self, probe_id: str) -> bool:
        seen = self.probes.get(probe_id, {})
        return any(seen.get("content", ())) or bool(seen.get("prefilled"))

    def outcome(self) -> str:
        """The probe results, for telling an alias from a parser that differs."""
        return json.dumps([self.error, self.probes, self.plain], sort_keys=True)


def engines_dir() -> Path:
    return shipped_dir() / "engines"


def shipped_engines() -> list[Engine]:
    return [load_engine(path) for path in sorted(engines_dir().glob(f"*/{ENGINE_FILE}"))]


def find_engine(name: str) -> Engine:
    path = engines_dir() / name / ENGINE_FILE
    if not path.is_file():
        known = ", ".join(e.name for e in shipped_engines())
        raise ManifestError(f"unknown engine {name!r} (shipped engines: {known})")
    return load_engine(path)


def load_engine(path: Path) -> Engine:
    path = Path(path).resolve()
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ManifestError(f"{path}: {exc}") from exc
    unknown = set(data) - _KEYS
    if unknown:
        raise ManifestError(f"{path}: unknown key(s) {', '.join(sorted(unknown))}")
    for key in ("engine", "title", "kind", "entry", "source"):
        if not isinstance(data.get(key), str) or not data[key]:
            raise ManifestError(f"{path}: {key} is required and must be a non-empty string")
    if data["engine"] != path.parent.name:
        raise ManifestError(f"{path}: engine {data['engine']!r} differs from its folder")
    if data["kind"] not in KINDS:
        raise ManifestError(f"{path}: kind {data['kind']!r}: choose from {', '.join(KINDS)}")
    if not data["source"].startswith("https://"):
        raise ManifestError(f"{path}: source must be an https:// page")
    restrictions = data.get("restrictions", [])
    rows = data.get("rows", {})
    if not isinstance(restrictions, list) or not all(isinstance(r, str) for r in restrictions):
        raise ManifestError(f"{path}: restrictions must be a list of strings")
    if not isinstance(rows, dict) or not all(isinstance(v, str) for v in rows.values()):
        raise ManifestError(f"{path}: [rows] must map parser names to peer names")
    for row in rows.values():
        if not (shipped_dir() / row / "peer.toml").is_file():
            raise ManifestError(f"{path}: [rows] names {row!r}, which is not a shipped peer")
    engine = Engine(
        name=data["engine"], title=data["title"], kind=data["kind"], entry=data["entry"],
        source=data["source"], package=parse_package(data.get("package"), path),
        folder=path.parent, heavy=bool(data.get("heavy", True)),
        token_aligned=bool(data.get("token_aligned", False)),
        timeout_s=float(data.get("timeout_s", 20.0)), restrictions=tuple(restrictions),
        own_rows=tuple(sorted(rows.items())))
    if not engine.program.is_file():
        raise ManifestError(f"{path}: adapter.py not found next to it")
    return engine


def probes(formats: dict[str, Format] | None = None) -> list[Probe]:
    """One probe per distinct reasoning delimiter of the registry (the first format to
    hold a pair names it), plus harmony's analysis channel for a channel grammar."""
    made: dict[tuple[tuple[str, ...], tuple[str, ...]], Probe] = {}
    for fmt in (formats or registered_formats()).values():
        for delimiter in fmt.delimiters:
            opened: tuple[str, ...]
            closed: tuple[str, ...]
            if delimiter.kind in _PAIR_KINDS:
                opened, closed = (delimiter.open,), (delimiter.closes[0],)
            elif delimiter.kind == "channel-grammar" and delimiter.grammar is not None:
                g = delimiter.grammar
                opened = (g.channel, "analysis", g.message)
                closed = (g.ends[0], g.start, "assistant", g.channel, "final", g.message)
            else:
                continue
            made.setdefault((opened, closed), Probe(f"{fmt.name}/{''.join(opened)}",
                                                    fmt.name, opened, closed))
    return list(made.values())


def _pairs_of(fmt: Format, by_key: dict[str, Probe]) -> set[str]:
    """The probe ids of `fmt`'s reasoning delimiters."""
    ids = set()
    for probe in by_key.values():
        opened = "".join(probe.open)
        for delimiter in fmt.delimiters:
            if delimiter.kind in _PAIR_KINDS and delimiter.open == opened \
                    and delimiter.closes[0] == "".join(probe.close):
                ids.add(probe.id)
            elif delimiter.kind == "channel-grammar" and probe.id.startswith("harmony/") \
                    and fmt.name == probe.format:
                ids.add(probe.id)
    return ids


def _squashed(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())


def claimed_class(parser: Parser, all_probes: list[Probe],
                  formats: dict[str, Format] | None = None) -> tuple[str | None, list[str]]:
    """The class a parser's probes place it in, and the probe ids it split.

    A format named as the parser is (letters and digits alike, the longest such
    name) is its class when the parser split one of that format's pairs: the parser
    is written for that model, whose streams the format describes. Otherwise, among
    the formats whose every reasoning pair it split, the one with the most pairs,
    then the fewest delimiters."""
    formats = formats or registered_formats()
    by_key = {p.id: p for p in all_probes}
    split = sorted(p.id for p in all_probes if parser.split(p.id))
    own = _squashed(parser.name)
    named = sorted((f for f in formats.values() if own.startswith(_squashed(f.name))
                    and _pairs_of(f, by_key) & set(split)),
                   key=lambda f: -len(_squashed(f.name)))
    if named:
        return named[0].name, split
    best: tuple[tuple[int, int, int], str] | None = None
    for order, fmt in enumerate(formats.values()):
        pairs = _pairs_of(fmt, by_key)
        if not pairs or not pairs <= set(split):
            continue
        rank = (-len(pairs), len(fmt.delimiters), order)
        if best is None or rank < best[0]:
            best = (rank, fmt.name)
    return (best[1] if best else None), split


#: a special token inside a delimiter: the model's vocabulary holds it as one token
_SPECIAL = re.compile(r"<\|[^<>|]*\|>|<｜[^<>｜]*｜>")


def tokenizer_tags(all_probes: list[Probe]) -> list[str]:
    """The texts the made-up tokenizer holds as single tokens: each special token
    (`<|open|>` in `<|open|>think`) inside a delimiter, or the whole delimiter when it
    holds none (`<think>`, `[THINK]`), as the models' vocabularies have them."""
    tags: set[str] = set()
    for probe in all_probes:
        for text in (*probe.open, *probe.close):
            pieces = _SPECIAL.findall(text)
            tags.update(pieces if pieces else [text] if text.strip() else [])
    return sorted(tags)


@dataclass(frozen=True)
class Listing:
    """An engine's registered names as its installed release reports them."""

    engine: Engine
    version: str
    parsers: tuple[Parser, ...]
    probes: tuple[Probe, ...]


def _digest(engine: Engine, payload: str, version: str) -> str:
    h = hashlib.sha256(f"{version}\n{payload}\n".encode())
    code = sorted(engine.folder.rglob("*.py")) + sorted(engines_dir().glob("*.py")) \
        + sorted(shipped_dir().glob("*.py"))
    for path in code:
        h.update(path.name.encode() + b"\0" + path.read_bytes())
    return h.hexdigest()[:16]


#: listings read in this process, by their cache file
_READ: dict[Path, Listing] = {}


def listing(engine: Engine) -> Listing:
    """Every name the installed engine registers, probed (cached per release and code).
    ManifestError when the environment is missing or the probe program fails."""
    installed = read_marker(engine.package)
    if installed is None:
        raise ManifestError(f"engine {engine.name} is not installed: run `scrubcheck peers "
                            f"install {engine.name}` (its parser names are read from it)")
    all_probes = probes()
    payload = json.dumps({"probes": [p.to_json() for p in all_probes],
                          "tags": tokenizer_tags(all_probes)})
    folder = env_dir(engine.package)
    folder.mkdir(parents=True, exist_ok=True)
    cached = folder / f"engine-listing-{_digest(engine, payload, installed.version)}.json"
    if cached in _READ:
        return _READ[cached]
    try:
        data = json.loads(cached.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        data = _run_probe(engine, folder, payload)
        cached.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    parsers = tuple(Parser(p["name"], p["code"], p["error"], p["probes"],
                           tuple(p["plain"])) for p in data["parsers"])
    _READ[cached] = Listing(engine, data["version"], parsers, tuple(all_probes))
    return _READ[cached]


def _run_probe(engine: Engine, folder: Path, payload: str) -> dict:
    python = sys.executable if engine.package.ecosystem == "none" else str(python_of(folder))
    argv = [python, str(engines_dir() / "probe.py"), str(engine.folder)]
    # the environment a peer program gets (peers.process), plus the probe's switches
    env = {**os.environ, **dict(engine.package.env),
           "SCRUBCHECK_PEERLOOP_DIR": str(shipped_dir()),
           "SCRUBCHECK_PEERLOOP_IMPORT_ONLY": "1", "PYTHONDONTWRITEBYTECODE": "1",
           "HF_HUB_OFFLINE": "1"}
    try:
        done = subprocess.run(argv, input=payload, capture_output=True, text=True, env=env,
                              timeout=PROBE_TIMEOUT_S, cwd=engine.folder, check=False,
                              preexec_fn=die_with_parent)
    except subprocess.TimeoutExpired as exc:
        raise ManifestError(f"engine {engine.name}: listing its parsers took over "
                            f"{PROBE_TIMEOUT_S:.0f} s ({' '.join(argv)})") from exc
    try:
        data = json.loads(done.stdout.strip().splitlines()[-1])
        if not isinstance(data.get("parsers"), list):
            raise ValueError("no parsers list")
    except (ValueError, IndexError, AttributeError) as exc:
        tail = done.stderr.strip()[-600:]
        raise ManifestError(f"engine {engine.name}: its probe program ({' '.join(argv)}) "
                            f"gave no listing ({exc}); stderr: {tail}") from exc
    return data


def engine_rows(engine: Engine) -> list[Manifest]:
    """A manifest per registered name; names not run carry their reason in `listed`."""
    found = listing(engine)
    tags = tokenizer_tags(list(found.probes))
    own = dict(engine.own_rows)
    # an alias points at the name with a row of its own when there is one, else the first
    ordered = sorted(found.parsers, key=lambda p: (p.name not in own, p.name))
    first_by_outcome: dict[tuple[str, str], str] = {}
    for parser in ordered:
        first_by_outcome.setdefault((parser.code, parser.outcome()), parser.name)
    rows = []
    for parser in found.parsers:
        cls, split = claimed_class(parser, list(found.probes))
        manifest = _row(engine, found, parser, cls, split, tags)
        alias = first_by_outcome[(parser.code, parser.outcome())]
        if parser.name in own:
            manifest = replace(manifest, listed=f"has its own row {own[parser.name]}")
        elif alias != parser.name:
            target = f"{engine.name}:{alias}" + (f" (row {own[alias]})" if alias in own else "")
            manifest = replace(manifest, listed=(
                f"alias of {target}: the same code ({parser.code}) with the same probe "
                "results, not run a second time"))
        elif parser.error:
            manifest = replace(manifest, listed=f"cannot run here: {parser.error}")
        elif not split:
            manifest = replace(manifest, listed=(
                "split none of the registry's reasoning delimiters in its probes: its "
                "format is not in the registry, or it needs what the probe does not give"))
        elif cls is None:
            manifest = replace(manifest, listed=(
                f"split {', '.join(split)}, which no one format of the registry holds "
                "together: no class to judge it in"))
        rows.append(manifest)
    return rows


def _row(engine: Engine, found: Listing, parser: Parser, cls: str | None,
         split: list[str], tags: list[str]) -> Manifest:
    reasoning, content = (parser.plain + ("", ""))[:2]
    chosen = [p for p in found.probes if p.id in split and p.format == cls] or \
        [p for p in found.probes if p.id in split]
    prefilled = any(parser.probes.get(p.id, {}).get("prefilled") for p in chosen)
    fixed: dict[str, object] = {}
    context: set[str] = set()
    notes = list(engine.restrictions)
    if reasoning and not content:
        fixed["starts_in_reasoning"] = True
        notes.append("starts in reasoning whatever the request says (its probe read an "
                     "answer with no tags as reasoning)")
    elif prefilled:
        context.add("starts_in_reasoning")
        notes.append("starts_in_reasoning is passed as the request's thinking flag "
                     "(chat_template_kwargs enable_thinking and thinking)")
    else:
        fixed["starts_in_reasoning"] = False
        notes.append("never split after a pre-filled open in its probe, with the thinking "
                     "flag on: run only on streams the template did not pre-fill")
    features: frozenset[str] = frozenset()
    if cls in FEATURES:
        features = frozenset({cls})
        fixed["features"] = [cls]
    module = parser.code.rsplit(".", 1)[0]
    source = engine.source.format(version=found.version,
                                  module_path=module.replace(".", "/"))
    if split:
        notes.append(f"class {cls or 'none'} read from its probes: it split "
                     f"{', '.join(split)}")
    return Manifest(
        name=f"{engine.name}:{parser.name}",
        title=engine.title.format(name=parser.name), kind=engine.kind,
        entry=engine.entry.format(name=parser.name), program=engine.program,
        package=engine.package, features=features,
        context=frozenset(context) | frozenset(fixed),
        fixed_context=tuple(sorted(fixed.items())), heavy=engine.heavy,
        restrictions=tuple(notes), token_aligned=engine.token_aligned,
        timeout_s=engine.timeout_s, folder=engine.folder,
        claims=(cls,) if cls else (), claims_source=source if cls else "",
        args=(parser.name, json.dumps(tags)), engine=engine.name)
