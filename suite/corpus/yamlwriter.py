"""Corpus YAML, written: the one writer of the scenario format (corpora/README.md).

`yamlsource` reads corpus files; this writes them, for `gateway import` (a captured
stream as a scenario) and for `hunt` and `fuzz` (a finding as a scenario), which each
had an emitter of their own. The style is the corpus's: one line per key, lists in flow
style, a `context:` mapping indented under its scenario, deeper mappings in flow style
(`{open: "<x>", close: "</x>"}`, a family's `params`). Identifiers (ids, rule ids,
labels, feature names) are written bare when YAML reads them back as the same string;
every other string is double-quoted with escapes for all that YAML or a terminal could
mangle (line breaks other than LF, controls, lone surrogates, BOM), so line feeds and
edge spaces of deltas stay visible and the text reads back exactly
(tests/test_corpus_yamlwriter.py reads every corpus file back through it).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any

from scrubcheck.model import GENERIC, Context, Scenario
from scrubcheck.vocabulary import FEATURES

#: Keys whose string values are identifiers, written bare when that reads back the same.
PLAIN_KEYS = frozenset({"id", "family", "rules", "labels", "features", "finish_reason"})
_BARE = re.compile(r"[A-Za-z][A-Za-z0-9_.+-]*")
#: Bare words YAML 1.1 (PyYAML) reads as booleans or null rather than as strings.
_YAML_WORDS = frozenset({"y", "n", "yes", "no", "on", "off", "true", "false", "null"})
_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t", "\r": "\\r", "\x00": "\\0",
            "\x85": "\\N", "\u2028": "\\L", "\u2029": "\\P"}


def quote(text: str) -> str:
    """`text` as a YAML double-quoted scalar that PyYAML reads back exactly."""
    out = ['"']
    for char in text:
        code = ord(char)
        if char in _ESCAPES:
            out.append(_ESCAPES[char])
        elif code < 0x20 or 0x7F <= code <= 0x9F:
            out.append(f"\\x{code:02x}")
        elif 0xD800 <= code <= 0xDFFF or code in (0xFEFF, 0xFFFE, 0xFFFF):
            out.append(f"\\u{code:04x}")
        else:
            out.append(char)
    out.append('"')
    return "".join(out)


def _string(key: str, text: str) -> str:
    bare = key in PLAIN_KEYS and _BARE.fullmatch(text) and text.lower() not in _YAML_WORDS
    return text if bare else quote(text)


def _number(value: int | float) -> str:
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"cannot write {value!r}: the corpus format has no such number")
    text = repr(value)
    # PyYAML reads 1e-05 as a string: a float needs its dot (1.0e-05)
    if isinstance(value, float) and "." not in text:
        mantissa, _, exponent = text.partition("e")
        text = f"{mantissa}.0" + (f"e{exponent}" if exponent else "")
    return text


def value_yaml(key: str, value: Any) -> str:
    """One value in flow style; `key` decides whether its strings may be bare."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return _number(value)
    if isinstance(value, str):
        return _string(key, value)
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{k}: {value_yaml(k, v)}" for k, v in value.items()) + "}"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(value_yaml(key, v) for v in value) + "]"
    raise TypeError(f"cannot write {type(value).__name__} for {key}")


def entry_lines(item: Mapping[str, Any]) -> list[str]:
    """One corpus entry as list-item lines (a top-level mapping value indented below)."""
    lines, lead = [], "- "
    for key, value in item.items():
        if isinstance(value, Mapping) and value:
            lines.append(f"{lead}{key}:")
            lines.extend(f"    {k}: {value_yaml(k, v)}" for k, v in value.items())
        else:
            lines.append(f"{lead}{key}: {value_yaml(key, value)}")
        lead = "  "
    return lines


def corpus_yaml(items: Iterable[Mapping[str, Any]]) -> str:
    """A corpus file's text: the entries, a blank line between two."""
    return "\n\n".join("\n".join(entry_lines(item)) for item in items) + "\n"


def context_entry(context: Context) -> dict[str, Any]:
    """The `context:` mapping of a scenario: only what differs from the default."""
    default: Mapping[str, object] = Context().as_kwargs()
    return {key: value for key, value in context.as_kwargs().items() if value != default[key]}


def corpus_context(context: Context) -> Context:
    """A context as a corpus scenario states it: a corpus has no class (the run judging
    it does, SPEC section 12), so a stream drawn or shrunk within a feature format's
    class enables that feature instead, which the class reads alike (the hunt's findings
    and explain's smallest streams are written so)."""
    judged = context.conformance_class
    if judged == GENERIC:
        return context
    features = (judged,) if judged in FEATURES else ()
    return replace(context, features=features, conformance_class=GENERIC)


def scenario_entry(scenario: Scenario) -> dict[str, Any]:
    """`scenario` as a corpus entry (its area is its file's name, so it is not written)."""
    item: dict[str, Any] = {"id": scenario.id, "rules": list(scenario.rules),
                            "description": scenario.description,
                            "deltas": list(scenario.deltas)}
    if scenario.visible is not None:
        item["visible"] = scenario.visible
    elif scenario.acceptable is not None:
        item["acceptable"] = list(scenario.acceptable)
    else:
        item["invariants_only"] = True
    item["reasoning"] = list(scenario.reasoning)
    context = context_entry(scenario.context)
    if context:
        item["context"] = context
    if scenario.source is not None:
        item["source"] = scenario.source
    if scenario.labels:
        item["labels"] = list(scenario.labels)
    return item
