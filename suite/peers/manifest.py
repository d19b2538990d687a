"""Peer manifests: what a real scrubber is, how to install it and how to drive it.

Each peer is a folder `scrubbers/peers/<name>/` holding `peer.toml` and the
adapter program the manifest names (run inside the peer's own environment).
Loading validates everything a typo could break, with the file and key in the
message, because a manifest error found halfway through a matrix run wastes
an hour.
"""

from __future__ import annotations

import hashlib
import json
import re
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from scrubcheck.corpus.scenario_builder import context_from
from scrubcheck.model import CONTEXT_KEYS, Context, ScrubberKind
from scrubcheck.peers.delimiter_limits import DELIMITER_FORMS, DelimiterLimits
from scrubcheck.peers.observed import (
    SHARED_FILE,
    Observation,
    ObservationError,
    load_shared_observations,
    parse_observations,
)
from scrubcheck.vocabulary import FEATURES, conformance_classes

#: Manifest kind -> (adapter kind, streams?, protocol kind).
KINDS: dict[str, tuple[ScrubberKind, bool, str]] = {
    "streaming scrubber": (ScrubberKind.STREAM, True, "stream"),
    "batch scrubber": (ScrubberKind.BATCH, False, "batch"),
    "streaming splitter": (ScrubberKind.SPLITTER, True, "stream-splitter"),
    "batch splitter": (ScrubberKind.SPLITTER, False, "batch-splitter"),
}
ECOSYSTEMS = ("pypi", "npm", "none")
_NAME = re.compile(r"^[a-z0-9][a-z0-9.-]*$")
_TOP_KEYS = {"name", "title", "kind", "entry", "program", "features", "context",
             "fixed_context", "heavy", "model_of", "restrictions", "timeout_s", "package",
             "token_aligned", "observed", "delimiters", "claims", "claims_source", "native",
             "uses"}
_PACKAGE_KEYS = {"ecosystem", "name", "version", "no_deps", "extra", "env"}
_DELIMITER_KEYS = {"pairs", "markers", "form"}
_NATIVE_KEYS = {"runner", "via"}
#: [native] runner -> how it may drive the package: the JS vector runner's --ai-sdk takes
#: the AI SDK of the peer's environment, through the middleware's wrapStream alone or
#: through streamText as an application reads it
NATIVE_RUNNERS: dict[str, tuple[str, ...]] = {"ai-sdk": ("wrapStream", "streamText")}
class ManifestError(Exception):
    """A manifest that cannot be used (a usage error)."""


@dataclass(frozen=True)
class Package:
    """What goes into the peer's environment."""

    ecosystem: str  # pypi | npm | none
    name: str = ""
    version: str = ""
    no_deps: bool = False
    extra: tuple[str, ...] = ()  # further requirements, pinned
    env: tuple[tuple[str, str], ...] = ()  # environment variables at install and run time

    @property
    def env_name(self) -> str:
        """The environment's folder name; peers with the same package share it."""
        if self.ecosystem == "none":
            return "none"
        return f"{self.ecosystem}-{self.name}-{self.version}"

    def spec_hash(self) -> str:
        """Hash of everything that decides the environment's contents (the install marker)."""
        data = {"ecosystem": self.ecosystem, "name": self.name, "version": self.version,
                "no_deps": self.no_deps, "extra": list(self.extra)}
        return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()[:16]

    @property
    def label(self) -> str:
        if self.ecosystem == "none":
            return "(no package)"
        prefix = "npm " if self.ecosystem == "npm" else ""
        return f"{prefix}{self.name}=={self.version}" if self.ecosystem == "pypi" \
            else f"{prefix}{self.name}@{self.version}"


@dataclass(frozen=True)
class NativeRun:
    """[native]: the matrix may judge this peer natively in its own language, by the
    vector runner of js/scrubcheck-vectors over the exported vectors, instead of through
    one protocol message per delta (scrubcheck.vectors.native)."""

    runner: str  # one of NATIVE_RUNNERS
    via: str

    def describe(self) -> str:
        return f"{self.runner} via {self.via}"


@dataclass(frozen=True)
class Manifest:
    name: str
    title: str
    kind: str  # one of KINDS
    entry: str  # the real entry point the adapter program drives (documentation)
    program: Path  # the adapter program, absolute
    package: Package
    features: frozenset[str] = frozenset()
    context: frozenset[str] = frozenset()
    fixed_context: tuple[tuple[str, object], ...] = ()  # a mode the peer always runs in
    heavy: bool = False  # installed only when named
    model_of: str | None = None  # our model of a proposal, not a released implementation
    restrictions: tuple[str, ...] = ()  # shown wherever results are
    # Decides on token ids, so a tag split across deltas is plain text to it: it is run
    # only on chunkings and cuts that keep every tag whole (the others are counted).
    token_aligned: bool = False
    timeout_s: float = 20.0  # per request
    folder: Path = field(default=Path("."))
    observed: tuple[Observation, ...] = ()  # behaviours seen in the field ([[observed]])
    #: SPEC section 12: the conformance classes the package claims, and the public page
    #: (its documentation or source) that shows what its configuration covers
    claims: tuple[str, ...] = ()
    claims_source: str = ""
    delimiters: DelimiterLimits = DelimiterLimits()  # what of `delimiters` it can take
    native: NativeRun | None = None  # how the matrix may judge it natively ([native])
    #: a registered parser of a serving engine (peers.engines): the engine's name, the
    #: adapter program's arguments, and why the name is listed but not run (an alias, a
    #: row of its own, a parser that cannot run here), empty when it runs
    engine: str = ""
    args: tuple[str, ...] = ()
    listed: str = ""
    #: folders of shared code its program runs (`uses = ["engines/smg"]`, relative to the
    #: shipped peers' folder): part of what a cached result of it is keyed on
    uses: tuple[Path, ...] = ()

    @property
    def adapter_kind(self) -> ScrubberKind:
        return KINDS[self.kind][0]

    @property
    def streams(self) -> bool:
        return KINDS[self.kind][1]

    @property
    def protocol_kind(self) -> str:
        return KINDS[self.kind][2]

    @property
    def language(self) -> str:
        return "node" if self.program.suffix in (".mjs", ".js") else "python"

    def fixed_mode(self) -> Context:
        """The context of the mode the peer always runs in (the defaults where it has none)."""
        return context_from(dict(self.fixed_context))

    @staticmethod
    def sent_context(context: Context) -> dict[str, object]:
        """The context as a peer receives it: without the conformance class (a peer is
        configured for the class it claims), and with a class that is a feature of the
        generic class sent as that feature enabled, so that a peer fixed to a format's
        mode (`fixed_context.features`) runs on its own class's streams (SPEC section 12)."""
        sent: dict[str, object] = dict(context.as_kwargs())
        judged = sent.pop("conformance_class", None)
        if isinstance(judged, str) and judged in FEATURES:
            sent["features"] = (judged,)
        return sent

    def refusal(self, context: Context) -> str | None:
        """Why this peer cannot be run on a stream with `context` as its users run it (a
        fixed mode it always runs in, caller delimiters it cannot be configured with), or
        None. Keys the manifest does not declare are the adapter's question."""
        given: Mapping[str, object] = self.sent_context(context)
        for key, value in self.fixed_context:
            if not _same(given[key], value):
                return (f"runs only with {key}={value!r} (a fixed mode of this parser), "
                        f"this stream has {key}={_shown(given[key])!r}")
        if context.delimiters and "delimiters" in self.context:
            reason = self.delimiters.refusal(context.delimiters)
            if reason:
                return f"cannot be given these caller delimiters: {reason}"
        return None

    def all_restrictions(self) -> list[str]:
        """Every way this peer is not run like the reference, in words."""
        notes = list(self.restrictions)
        for key, value in self.fixed_context:
            notes.append(f"runs only with {key}={json.dumps(value)} (a fixed mode); streams "
                         "with another value are UNSUPPORTED")
        limits = self.delimiters.describe() if "delimiters" in self.context else ""
        if limits:
            notes.append(f"caller delimiters: {limits}; other configurations are UNSUPPORTED")
        if self.token_aligned:
            notes.append("token-aligned: run only on chunkings and truncation cuts that keep "
                         "every tag whole inside one delta; the others are counted as not run")
        if self.model_of:
            notes.insert(0, f"a model of {self.model_of}, not released code")
        return notes


def _same(given: object, fixed: object) -> bool:
    """A fixed mode holds: lists (features) compare as sets, TOML gives lists."""
    if isinstance(fixed, list):
        return isinstance(given, list | tuple) and set(given) == set(fixed)
    return given == fixed


def _shown(value: object) -> object:
    return list(value) if isinstance(value, tuple) else value


def shipped_dir() -> Path:
    """The folder of the peers shipped with scrubcheck."""
    from scrubcheck import scrubbers

    return Path(scrubbers.__file__).resolve().parent / "peers"


def shipped_manifests() -> list[Manifest]:
    """Every shipped peer, by name; raises ManifestError on the first broken manifest."""
    manifests = [load_manifest(path) for path in sorted(shipped_dir().glob("*/peer.toml"))]
    check_shared_environments(manifests)
    return manifests


#: a release named on the command line: `NAME@VERSION` (the version goes into file names)
_RELEASE = re.compile(r"([A-Za-z0-9][A-Za-z0-9_.-]*)@([A-Za-z0-9][A-Za-z0-9_.+-]*)\Z")


def released(manifest: Manifest, version: str) -> Manifest:
    """The same peer on another release of its package: named `NAME@VERSION`, installed in
    an environment of its own (the version is in `env_name`), so several releases of one
    package can be rows of one matrix and a history can say which release changed what.
    The adapter program is the shipped one; a release whose API it does not fit fails to
    start, and its row says so."""
    if manifest.package.ecosystem == "none":
        raise ManifestError(f"{manifest.name} has no package, so no releases")
    return replace(manifest, name=f"{manifest.name}@{version}",
                   package=replace(manifest.package, version=version))


def split_release(name: str) -> tuple[str, str | None]:
    """`NAME@VERSION` -> (NAME, VERSION); a plain name -> (name, None)."""
    match = _RELEASE.match(name)
    return (match[1], match[2]) if match else (name, None)


def with_releases(manifests: list[Manifest], names: Iterable[str]) -> list[Manifest]:
    """`manifests` plus a `released` variant for each `NAME@VERSION` among `names`
    (ManifestError naming an unknown NAME)."""
    by_name = {m.name: m for m in manifests}
    extra = []
    for name in names:
        base, version = split_release(name)
        if version is None or name in by_name:
            continue
        if base not in by_name:
            raise ManifestError(f"unknown peer {base!r} in {name!r}")
        by_name[name] = released(by_name[base], version)
        extra.append(by_name[name])
    return [*manifests, *extra]


def find_manifest(name_or_path: str) -> Manifest:
    """A shipped peer by name (`NAME@VERSION`: that release of its package), or a manifest
    file or folder by path."""
    base, version = split_release(name_or_path)
    if version is not None and (shipped_dir() / base / "peer.toml").is_file():
        return released(find_manifest(base), version)
    path = Path(name_or_path).expanduser()
    if path.is_dir():
        path = path / "peer.toml"
    if path.suffix == ".toml" or path.exists():
        if not path.is_file():
            raise ManifestError(f"peer manifest {name_or_path!r} not found")
        return load_manifest(path)
    candidate = shipped_dir() / name_or_path / "peer.toml"
    if not candidate.is_file():
        known = ", ".join(sorted(p.parent.name for p in shipped_dir().glob("*/peer.toml")))
        raise ManifestError(f"unknown peer {name_or_path!r} (shipped peers: {known})")
    return load_manifest(candidate)


def load_manifest(path: Path) -> Manifest:
    """Read and validate one peer.toml."""
    path = Path(path).resolve()
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ManifestError(f"{path}: {exc}") from exc
    return _validate(data, path)


def _fail(path: Path, message: str) -> ManifestError:
    return ManifestError(f"{path}: {message}")


def _str_list(data: dict, key: str, path: Path) -> tuple[str, ...]:
    value = data.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise _fail(path, f"{key} must be a list of strings")
    return tuple(value)


def _validate(data: dict, path: Path) -> Manifest:
    unknown = set(data) - _TOP_KEYS
    if unknown:
        raise _fail(path, f"unknown key(s) {', '.join(sorted(unknown))}")
    for key in ("name", "title", "kind", "entry", "program"):
        if not isinstance(data.get(key), str) or not data[key]:
            raise _fail(path, f"{key} is required and must be a non-empty string")
    name = data["name"]
    if not _NAME.match(name):
        raise _fail(path, f"name {name!r}: use lower case letters, digits, '.' and '-'")
    if path.name == "peer.toml" and path.parent.name != name:
        raise _fail(path, f"name {name!r} differs from its folder {path.parent.name!r}")
    if data["kind"] not in KINDS:
        raise _fail(path, f"kind {data['kind']!r}: choose from {', '.join(KINDS)}")
    program = (path.parent / data["program"]).resolve()
    if not program.is_file():
        raise _fail(path, f"program {data['program']!r} not found next to the manifest")
    features = _str_list(data, "features", path)
    bad = [f for f in features if f not in FEATURES]
    if bad:
        raise _fail(path, f"unknown feature(s) {', '.join(bad)}")
    context = _str_list(data, "context", path)
    bad = [k for k in context if k not in CONTEXT_KEYS]
    if bad:
        raise _fail(path, f"unknown context key(s) {', '.join(bad)}")
    fixed = data.get("fixed_context", {})
    if not isinstance(fixed, dict) or any(k not in CONTEXT_KEYS for k in fixed):
        raise _fail(path, "fixed_context must be a table of context keys")
    bad = [f for f in fixed.get("features", []) if f not in features]
    if bad:
        raise _fail(path, f"fixed_context features {', '.join(bad)} not in features")
    timeout = data.get("timeout_s", 20.0)
    if not isinstance(timeout, int | float) or timeout <= 0:
        raise _fail(path, "timeout_s must be a positive number")
    claims = _str_list(data, "claims", path)
    bad = [c for c in claims if c not in conformance_classes()]
    if bad:
        raise _fail(path, f"unknown conformance class(es) {', '.join(bad)} in claims "
                          f"(known: {', '.join(conformance_classes())})")
    claims_source = data.get("claims_source", "")
    if claims and not (isinstance(claims_source, str) and claims_source.startswith("https://")):
        raise _fail(path, "claims_source must give the https:// page (the package's "
                          "documentation or source) that shows what its claims cover")
    uses = []
    for used in _str_list(data, "uses", path):
        folder = (shipped_dir() / used).resolve()
        if not folder.is_dir() or not folder.is_relative_to(shipped_dir()):
            raise _fail(path, f"uses {used!r}: not a folder of {shipped_dir()}")
        uses.append(folder)
    return Manifest(
        name=name, title=data["title"], kind=data["kind"], entry=data["entry"],
        program=program, package=parse_package(data.get("package"), path),
        features=frozenset(features), context=frozenset(context) | frozenset(fixed),
        fixed_context=tuple(sorted(fixed.items())), heavy=bool(data.get("heavy", False)),
        model_of=data.get("model_of"), restrictions=_str_list(data, "restrictions", path),
        token_aligned=bool(data.get("token_aligned", False)),
        timeout_s=float(timeout), folder=path.parent, observed=_observed(data, path),
        delimiters=_delimiter_limits(data.get("delimiters"), context, path),
        claims=claims, claims_source=claims_source,
        native=_native(data.get("native"), data.get("package"), path), uses=tuple(uses),
    )


def _native(raw: object, package: object, path: Path) -> NativeRun | None:
    """The [native] table: which vector runner may judge the package in its own language."""
    if raw is None:
        return None
    if not isinstance(raw, dict) or set(raw) - _NATIVE_KEYS or set(_NATIVE_KEYS) - set(raw):
        raise _fail(path, "native must be a table with exactly the keys runner and via")
    runner, via = raw["runner"], raw["via"]
    if runner not in NATIVE_RUNNERS:
        raise _fail(path, f"native runner {runner!r}: choose from {', '.join(NATIVE_RUNNERS)}")
    if via not in NATIVE_RUNNERS[runner]:
        raise _fail(path, f"native via {via!r}: the {runner} runner drives "
                          f"{' or '.join(NATIVE_RUNNERS[runner])}")
    if not (isinstance(package, dict) and package.get("ecosystem") == "npm"
            and package.get("name") == "ai"):
        raise _fail(path, "native runner ai-sdk judges the npm package ai only")
    return NativeRun(runner, via)


def _delimiter_limits(raw: object, context: tuple[str, ...], path: Path) -> DelimiterLimits:
    """The [delimiters] table: what of the `delimiters` context the package can take."""
    if raw is None:
        return DelimiterLimits()
    if not isinstance(raw, dict):
        raise _fail(path, "[delimiters] must be a table")
    if "delimiters" not in context:
        raise _fail(path, "[delimiters] limits a context the manifest does not take: add "
                    "\"delimiters\" to context")
    unknown = set(raw) - _DELIMITER_KEYS
    if unknown:
        raise _fail(path, f"[delimiters]: unknown key(s) {', '.join(sorted(unknown))}")
    for key in ("pairs", "markers"):
        value = raw.get(key)
        if value is not None and (not isinstance(value, int) or isinstance(value, bool)
                                  or value < 0):
            raise _fail(path, f"[delimiters] {key} must be a whole number >= 0")
    form = raw.get("form", "text")
    if form not in DELIMITER_FORMS:
        raise _fail(path, f"[delimiters] form {form!r}: choose from {', '.join(DELIMITER_FORMS)}")
    return DelimiterLimits(raw.get("pairs"), raw.get("markers"), form)


def _observed(data: dict, path: Path) -> tuple[Observation, ...]:
    try:
        return parse_observations(data.get("observed"), path)
    except ObservationError as exc:
        raise ManifestError(str(exc)) from exc


def shared_observations() -> tuple[Observation, ...]:
    """The shipped claims about every peer at once (scrubbers/peers/observed.toml)."""
    try:
        return load_shared_observations(shipped_dir() / SHARED_FILE)
    except ObservationError as exc:
        raise ManifestError(str(exc)) from exc


def parse_package(raw: object, path: Path) -> Package:
    """The [package] table of a peer.toml (or a gateway.toml, which installs the same way)."""
    if raw is None:
        return Package("none")
    if not isinstance(raw, dict):
        raise _fail(path, "[package] must be a table")
    unknown = set(raw) - _PACKAGE_KEYS
    if unknown:
        raise _fail(path, f"[package]: unknown key(s) {', '.join(sorted(unknown))}")
    ecosystem = raw.get("ecosystem")
    if ecosystem not in ECOSYSTEMS:
        raise _fail(path, f"[package] ecosystem must be one of {', '.join(ECOSYSTEMS)}")
    env = raw.get("env", {})
    if not isinstance(env, dict) or not all(isinstance(v, str) for v in env.values()):
        raise _fail(path, "[package] env must be a table of strings")
    if ecosystem == "none":
        return Package("none", env=tuple(sorted(env.items())))
    for key in ("name", "version"):
        if not isinstance(raw.get(key), str) or not raw[key]:
            raise _fail(path, f"[package] {key} is required")
    version = raw["version"]
    if not re.match(r"^[0-9][0-9A-Za-z.+-]*$", version):
        raise _fail(path, f"[package] version {version!r} must be one exact version")
    return Package(ecosystem, raw["name"], version, bool(raw.get("no_deps", False)),
                   _str_list(raw, "extra", path), tuple(sorted(env.items())))


def check_shared_environments(manifests: list[Manifest]) -> None:
    """Peers that name the same package and version share one environment, so they must
    ask for the same install; two different installs under one folder would be a lie."""
    seen: dict[str, Manifest] = {}
    for manifest in manifests:
        key = manifest.package.env_name
        other = seen.setdefault(key, manifest)
        if other.package.spec_hash() != manifest.package.spec_hash():
            raise ManifestError(
                f"{manifest.name} and {other.name} both install {key} but differently "
                "(no_deps or extra differ): make them agree")
