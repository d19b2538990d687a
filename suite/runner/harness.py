"""Digests of the code that decides a result: the harness's and an implementation's.

A cached result (scrubcheck.runner.cache) may stand in for a fresh run only while
nothing that decided it has changed. Three things decide a scenario's result: the
scenario (its own digest), the implementation (`implementation_digest`) and the
harness that fed and judged it (`harness_digest`). The harness digest covers every
module on the path from corpus to result: corpus loading and generation, the
format registry's code, chunking, adapters and the peer protocol, the checks, the
SPEC model and the runner, plus the vocabulary they all speak. It
leaves out what only presents results (reports, the matrix pages, the site), the
tools built on top (hunt, fuzz, mutation, the commands), since a change there does
not change what any scenario run finds. The gateway audit adds its own package
(`GATEWAY_PARTS`): its results are decided by it too.

The format files are data, digested one by one (`format_digests`): a scenario's
result is decided only by the formats its vocabulary is built from (`formats_read`:
the default family and the features it enables, in the generic class), so a cached
result is keyed on those formats' digests and not on the registry. Adding a format,
or editing one, then reruns the scenarios that read it (its own generated ones among
them), not the corpus. What reads the whole registry (placing a scenario in a
claimed class, the once-per-run linear check's samples, a report saying which
registry it was judged under) keys on `formats_digest`, the registry's.

The digest is of file contents, so a checkout, an installed wheel and an editable
install of the same code agree, and any edit (a comment included) invalidates: a
cache that is never trusted across a harness change cannot be wrong about one.
"""

from __future__ import annotations

import hashlib
import importlib.util
import inspect
from collections.abc import Iterable, Mapping
from functools import cache
from pathlib import Path

from scrubcheck import __version__
from scrubcheck.adapters.resolve import AdapterError, resolve_target, split_kind
from scrubcheck.formats import Format, registered_formats
from scrubcheck.peers import ManifestError, find_manifest, read_marker
from scrubcheck.peers.manifest import shipped_dir
from scrubcheck.spec import SPEC_VERSION
from scrubcheck.vocabulary import GENERIC

#: The parts of the package (modules and subpackages of `scrubcheck`) on the path from
#: corpus to a scenario's result. tests/test_result_cache.py checks that every module of
#: the package is either here or in OUTSIDE, so a new module must be placed.
JUDGING_PARTS = (
    "adapters", "checks", "chunking", "claims", "corpus", "formats", "generate", "peers",
    "runner", "specmodel", "check_names", "childprocess", "deadline", "evidence", "model",
    "option_names", "results", "schema_words", "spec", "vocabulary", "yamlsource",
)
#: What the gateway audit's results also depend on.
GATEWAY_PARTS = ("gateway",)
#: Parts outside the harness digest: what only presents or drives results (a change to
#: them leaves every result valid), and the implementations, digested each on its own
#: (`source_digest`, a peer's manifest folder) so that editing one scrubber keeps the
#: cached results of every other.
OUTSIDE = (
    "cli", "commands", "distributed", "explain", "hunt", "matrix", "mutation", "plugin_runs",
    "pytest_plugin", "regenerate", "reports", "site", "vectors", "cachedir", "__init__",
    "scrubbers", "corpora", "formatfiles",
)


def files_digest(paths: Iterable[Path], root: Path) -> str:
    """16 hex digits of SHA-256 over each file's path (relative to `root`) and bytes,
    in path order; caches and byte-code are not content."""
    digest = hashlib.sha256()
    for path in sorted(p for p in paths if p.is_file() and "__pycache__" not in p.parts
                       and p.suffix not in (".pyc", ".pyo")):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def _package_root(name: str) -> Path:
    found = importlib.util.find_spec(name)
    if found is None or not found.submodule_search_locations:
        raise LookupError(f"package {name} not found")
    return Path(next(iter(found.submodule_search_locations)))


def _part_files(root: Path, part: str) -> list[Path]:
    folder = root / part
    if folder.is_dir():
        return [p for p in folder.rglob("*") if p.is_file()]
    module = root / f"{part}.py"
    return [module] if module.is_file() else []


@cache
def harness_digest(extra: tuple[str, ...] = ()) -> str:
    """The digest of the judging code (and `extra` parts, e.g. GATEWAY_PARTS), with
    scrubcheck's and SPEC's versions. The format files are not in it (`format_digests`)."""
    root = _package_root("scrubcheck")
    code = files_digest([f for part in (*JUDGING_PARTS, *extra)
                         for f in _part_files(root, part)], root)
    return hashlib.sha256(f"{__version__}|{SPEC_VERSION}|{code}".encode()).hexdigest()[:16]


#: a format file's digest by (path, size, modification time): read once while unchanged
_FILE_DIGESTS: dict[tuple[str, int, int], str] = {}


def _format_digest(fmt: Format) -> str:
    """16 hex digits of the format's file (its name and what it says, for a format made in
    memory): the registry's README and the file's place on disk are not in it."""
    path = Path(fmt.file)
    try:
        stat = path.stat()
    except OSError:
        return hashlib.sha256(repr((fmt.name, fmt.pairs)).encode()).hexdigest()[:16]
    key = (str(path), stat.st_size, stat.st_mtime_ns)
    if key not in _FILE_DIGESTS:
        _FILE_DIGESTS[key] = hashlib.sha256(path.read_bytes()).hexdigest()[:16]
    return _FILE_DIGESTS[key]


def format_digests() -> dict[str, str]:
    """Each format in force (the shipped ones and any a user added), by name."""
    return {name: _format_digest(fmt) for name, fmt in registered_formats().items()}


def formats_digest(digests: Mapping[str, str] | None = None) -> str:
    """The registry's digest: every format in force, by name and content."""
    digests = format_digests() if digests is None else digests
    return hashlib.sha256("|".join(f"{n}={d}" for n, d in sorted(digests.items())).encode()
                          ).hexdigest()[:16]


#: `formats_read`'s answer when a result reads the whole registry
EVERY_FORMAT = ("*",)


def base_format() -> str:
    """The name of the format that holds the default family (every generic stream's)."""
    (base,) = [n for n, f in registered_formats().items() if f.generic == "base"]
    return base


def formats_read(features: Iterable[str], conformance_class: str | None,
                 base: str | None = None) -> tuple[str, ...]:
    """The formats a stream's result is decided by: in the generic class, the default
    family (`base`, looked up when not given) and the enabled `features` (SPEC
    R-VOCAB-1/3: no other delimiter is one); in a format's class, or one not yet known
    (None: the implementation's claim), every format, since placing a scenario in a
    class reads what every format calls a delimiter (`claims.place`)."""
    if conformance_class != GENERIC:
        return EVERY_FORMAT
    return (base or base_format(), *sorted(set(features)))


def read_digest(names: tuple[str, ...], digests: Mapping[str, str],
                registry: str | None = None) -> str:
    """The digest of the formats `names` (from `formats_read`) within `digests`; a name
    the registry does not hold counts as absent, so registering it changes the digest.
    `registry`: `formats_digest(digests)`, when the caller has it already."""
    if names == EVERY_FORMAT:
        return registry or formats_digest(digests)
    return "|".join(f"{n}={digests.get(n, '-')}" for n in names)


#: The parts that write the matrix pages from their results (the audits' writers are in the
#: gateway package, which their harness digest covers): a change to
#: them leaves every result valid but the committed pages stale.
WRITER_PARTS = ("reports", "matrix")


@cache
def writers_digest() -> str:
    """The digest of the code that turns results into the committed pages."""
    root = _package_root("scrubcheck")
    return files_digest([f for part in WRITER_PARTS for f in _part_files(root, part)], root)


def source_digest(obj: object) -> str | None:
    """The digest of the folder of Python source an in-process scrubber comes from (its
    module's folder, all of it: a scrubber's helpers sit beside it); for a scrubber of
    scrubcheck's own `scrubbers/`, all of them (the broken ones build on the reference).
    None when the source cannot be placed (a builtin, a REPL object)."""
    try:
        source = inspect.getsourcefile(obj)  # type: ignore[arg-type]
    except TypeError:
        return None
    if not source or not Path(source).is_file():
        return None
    folder = Path(source).resolve().parent
    scrubbers = _package_root("scrubcheck.scrubbers").resolve()
    if folder.is_relative_to(scrubbers):
        folder = scrubbers
    return files_digest([p for p in folder.rglob("*.py")], folder)


def implementation_digest(spec: str) -> str | None:
    """What a row's implementation is, as precisely as a cache needs: for a peer, its
    installed package version and the files of its manifest folder and the peers' shared
    helpers (the adapter program is part of what is judged); for an in-process scrubber
    (with its kind prefix), `source_digest` of its code. None when it cannot be told (an
    unloadable spec, a peer not installed, a source that cannot be placed): such a row is
    run, never cached."""
    kind, target = split_kind(spec)
    if target.startswith("peer:"):
        return _peer_digest(target.removeprefix("peer:"))
    try:
        obj = resolve_target(target)
    except AdapterError:
        return None
    source = source_digest(obj)
    return None if source is None else f"{kind or 'auto'}:{source}"


def _peer_digest(name: str) -> str | None:
    try:
        manifest = find_manifest(name)
    except ManifestError:
        return None
    installed = read_marker(manifest.package)
    if installed is None:
        return None
    folder = manifest.program.parent
    files = [p for p in folder.rglob("*") if p.is_file() and "__pycache__" not in p.parts]
    files += [p for used in manifest.uses for p in used.rglob("*") if p.is_file()]
    # the helper programs the peers' adapters share (peerloop.py, vllm_peer.py, the
    # engines' probe): the code files of every folder from the manifest's up to the
    # shipped peers' folder; the data beside them (triage, observations) decides no result
    top = shipped_dir() if folder.is_relative_to(shipped_dir()) else folder.parent
    shared = folder.parent
    while shared.is_relative_to(top):
        files += [p for p in shared.iterdir() if p.is_file() and p.suffix in (".py", ".mjs")]
        if shared == top:
            break
        shared = shared.parent
    # an engine's row: what its probe decided (the mode it runs in, its arguments)
    decided = (f"; engine row {manifest.args!r} {manifest.fixed_context!r} "
               f"{sorted(manifest.context)!r}" if manifest.engine else "")
    return (f"{manifest.package.label} {installed.version}; "
            f"files {files_digest(files, top)}{decided}")
