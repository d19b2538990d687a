"""`load_adapter`: from a spec string to an `Adapter`, with errors a user can act on."""

from __future__ import annotations

from collections.abc import Callable

from scrubcheck.adapters.base import Adapter
from scrubcheck.adapters.batch import BatchAdapter
from scrubcheck.adapters.context import declared_claims, required_positionals
from scrubcheck.adapters.peer import PREFIX, PeerAdapter
from scrubcheck.adapters.resolve import AdapterError, resolve_target, split_kind
from scrubcheck.adapters.splitter import SplitterAdapter
from scrubcheck.adapters.stream import StreamAdapter

_CACHE: dict[str, Adapter] = {}


def load_adapter(spec: str) -> Adapter:
    """Load the scrubber `spec` names; raises AdapterError with a clear message.

    Forms: `module:attr`, `path/to/file.py:attr`, a registered short name, each
    optionally prefixed by `stream:` (default), `batch:` or `splitter:`; or
    `peer:NAME` / `peer:path/to/peer.toml` for a peer program (docs/protocol.md).
    """
    if spec in _CACHE:
        return _CACHE[spec]
    if spec.startswith(PREFIX):  # a real scrubber in its own environment
        _CACHE[spec] = PeerAdapter(spec)
        return _CACHE[spec]
    kind, target_spec = split_kind(spec)
    target = resolve_target(target_spec)
    if kind == "batch":
        adapter: Adapter = BatchAdapter(spec, target_spec, _require_callable(target, spec))
    elif kind == "splitter":
        adapter = SplitterAdapter(spec, target_spec, _require_callable(target, spec))
    else:
        adapter = StreamAdapter(spec, target_spec, _require_stream_factory(target, spec))
    adapter.claims = declared_claims(target)
    _CACHE[spec] = adapter
    return adapter


def _require_callable(target: object, spec: str) -> Callable[..., object]:
    if not callable(target):
        raise AdapterError(f"{spec}: {type(target).__name__} object is not callable")
    return target


def _require_stream_factory(target: object, spec: str) -> Callable[..., object]:
    if not callable(target):
        if callable(getattr(target, "feed", None)):
            raise AdapterError(
                f"{spec}: names a scrubber instance; pass its class or a function returning a "
                "fresh one, so that every stream starts from a new object"
            )
        raise AdapterError(f"{spec}: {type(target).__name__} object is not callable")
    if isinstance(target, type):
        return target
    if required_positionals(target) == 1:
        raise AdapterError(
            f"{spec}: takes one argument, so it looks like a whole-text function; use "
            f"'batch:{spec}' for str -> str or 'splitter:{spec}' for str -> (reasoning, answer)"
        )
    return target
