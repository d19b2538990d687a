"""What context a scrubber can receive, found by reading its signatures.

SPEC R-CTX-1: a scrubber receives what it can accept, and a stream whose
non-default context it cannot receive is UNSUPPORTED for it. We never guess:
a keyword counts only when the signature names it (or takes **kwargs).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable

from scrubcheck.model import CONTEXT_KEYS

__all__ = ["CONTEXT_KEYS", "accepted_keywords", "declared_claims", "declared_features",
           "required_positionals", "unsupported_reason"]


def accepted_keywords(func: Callable | None, candidates: Iterable[str] = CONTEXT_KEYS) -> frozenset:
    """The candidate keyword arguments `func` accepts by name (all of them with **kwargs)."""
    if func is None:
        return frozenset()
    try:
        signature = inspect.signature(func)
    except (TypeError, ValueError):  # builtins and C extensions may hide their signature
        return frozenset()
    params = signature.parameters.values()
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params):
        return frozenset(candidates)
    named = {
        p.name
        for p in params
        if p.kind in (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    }
    return frozenset(k for k in candidates if k in named)


def required_positionals(func: Callable) -> int | None:
    """How many positional arguments `func` needs, or None if its signature is hidden."""
    try:
        signature = inspect.signature(func)
    except (TypeError, ValueError):
        return None
    return sum(
        1
        for p in signature.parameters.values()
        if p.kind in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
        and p.default is inspect.Parameter.empty
    )


def declared_features(*holders: object) -> frozenset[str] | None:
    """The first `supported_features` found on the holders, or None when none declares any."""
    for holder in holders:
        value = getattr(holder, "supported_features", None)
        if value is None:
            continue
        if isinstance(value, str):
            return frozenset({value})
        try:
            return frozenset(str(v) for v in value)
        except TypeError:
            continue
    return None


def declared_claims(*holders: object) -> tuple[str, ...]:
    """The conformance classes the first holder with a `claims` attribute claims (SPEC
    section 12): a name, names, or a callable returning them; () when none declares any."""
    for holder in holders:
        value = getattr(holder, "claims", None)
        if value is None:
            continue
        if callable(value):
            value = value()
        if isinstance(value, str):
            return (value,)
        try:
            return tuple(dict.fromkeys(str(v) for v in value))
        except TypeError:
            continue
    return ()


def unsupported_reason(
    context_required: tuple[str, ...],
    features: tuple[str, ...],
    accepted: frozenset[str],
    supported_features: frozenset[str],
) -> str | None:
    """Why a stream's context cannot be delivered, or None when it can."""
    missing = [k for k in context_required if k not in accepted]
    if missing:
        return "cannot receive context " + ", ".join(missing) + " (not in its signature)"
    absent = [f for f in features if f not in supported_features]
    if absent:
        return "does not declare feature(s) " + ", ".join(absent) + " in supported_features"
    return None
