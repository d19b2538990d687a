"""Turn a scrubber spec string into the Python object it names.

A spec is `module:attr`, `path/to/file.py:attr` or a short name registered in
the `scrubcheck.scrubbers` entry-point group, optionally prefixed by a kind
(`stream:`, `batch:`, `splitter:`). Errors say exactly what was not found, so
a typo on the command line costs one look at the message.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import re
import sys
from importlib.metadata import entry_points
from pathlib import Path

from scrubcheck.model import ScrubberKind

KINDS = tuple(ScrubberKind)
ENTRY_POINT_GROUP = "scrubcheck.scrubbers"


class AdapterError(Exception):
    """The spec cannot be turned into a usable scrubber (a usage error: exit 2)."""


def split_kind(spec: str) -> tuple[ScrubberKind | None, str]:
    """Separate an explicit kind prefix from the target: 'batch:m:f' -> ('batch', 'm:f')."""
    head, sep, rest = spec.partition(":")
    if sep and head in KINDS:
        return ScrubberKind(head), rest
    return None, spec


def spec_slug(spec: str) -> str:
    """A file or directory name for a scrubber spec, case kept: 'pkg.mod:Cls' ->
    'pkg.mod-Cls' (the report folder of `scrubcheck run`, the hunt's and the fuzzer's
    cache folders; at most 120 characters)."""
    return re.sub(r"[^A-Za-z0-9._-]+", "-", spec).strip("-.")[:120] or "scrubber"


def registered_names() -> dict[str, str]:
    """Short scrubber names from installed entry points, mapped to their targets."""
    return {ep.name: ep.value for ep in entry_points(group=ENTRY_POINT_GROUP)}


def resolve_target(target: str) -> object:
    """Import the object a target names (without a kind prefix)."""
    target = target.strip()
    if not target:
        raise AdapterError("empty scrubber spec")
    if ":" not in target:
        return _load_entry_point(target)
    location, _, attr_path = target.rpartition(":")
    if not location or not attr_path:
        raise AdapterError(f"bad scrubber spec {target!r}: expected module:attr or file.py:attr")
    module = _load_file(location) if _looks_like_path(location) else _import(location)
    return _get_attr(module, attr_path, target, location)


def _looks_like_path(location: str) -> bool:
    return location.endswith(".py") or "/" in location or "\\" in location


def _import(module_name: str) -> object:
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        missing = exc.name or module_name
        if missing == module_name or module_name.startswith(missing + "."):
            raise AdapterError(f"module {module_name!r} not found (is it installed?)") from exc
        raise AdapterError(
            f"importing {module_name!r} failed: it needs {missing!r}, which is not installed"
        ) from exc
    except Exception as exc:  # an import-time crash of the scrubber's own module
        raise AdapterError(f"importing {module_name!r} raised {type(exc).__name__}: {exc}") from exc


def _load_file(location: str) -> object:
    path = Path(location).expanduser().resolve()
    if not path.is_file():
        raise AdapterError(f"scrubber file {location!r} not found")
    # A stable module name per file: workers and replays import the same module once.
    digest = hashlib.sha1(str(path).encode()).hexdigest()[:10]
    name = f"_scrubcheck_file_{path.stem}_{digest}"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise AdapterError(f"cannot import {location!r} as a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    sys.path.insert(0, str(path.parent))  # let the file import its neighbours
    try:
        spec.loader.exec_module(module)
    except Exception as exc:
        del sys.modules[name]
        raise AdapterError(f"importing {location!r} raised {type(exc).__name__}: {exc}") from exc
    finally:
        sys.path.remove(str(path.parent))
    return module


def _get_attr(module: object, attr_path: str, target: str, location: str) -> object:
    obj = module
    for part in attr_path.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise AdapterError(f"{target!r}: {location!r} has no attribute {attr_path!r}") from None
    return obj


def _load_entry_point(name: str) -> object:
    matches = [ep for ep in entry_points(group=ENTRY_POINT_GROUP) if ep.name == name]
    if not matches:
        known = ", ".join(sorted(registered_names())) or "none"
        raise AdapterError(
            f"unknown scrubber {name!r}: not module:attr, not file.py:attr, and not a "
            f"registered name (registered: {known})"
        )
    try:
        return matches[0].load()
    except Exception as exc:
        raise AdapterError(
            f"registered scrubber {name!r} ({matches[0].value}) failed to load: "
            f"{type(exc).__name__}: {exc}"
        ) from exc
