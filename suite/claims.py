"""Conformance classes (SPEC section 12): which scenarios a class judges, and what it
expects of them.

A scrubber configured for one model family claims that family's class: the format's
delimiters are its whole vocabulary and everything else is answer text. Judging such a
scrubber on every format the generic class knows counts scope, not bugs (a `<think>`
scrubber "leaking" on `<thought>`). So each scenario is *placed* in a class:

- **within** the class when everything in it that any registered format calls a
  delimiter is a delimiter of the class (in the class's letter-case rule), its context
  asks nothing the class cannot give (caller delimiters, another format's feature)
  and its template context is one the format's chat template produces (R-ORPHAN-2,
  R-SKIP-1). The scenario's formats come from its own text and context, never from a
  label an author keeps by hand.
- **beyond** the class otherwise: shown, counted, never a pass and never a failure of
  the claim.

Within a class the expected output is what the SPEC model reads under the class's
vocabulary. Where that equals the generic reading (nearly always: the class holds every
delimiter the stream has), the scenario keeps its own expectation and reasoning
strings; where it differs (a feature delimiter the generic stream left disabled is a
tag of its own class, R-VOCAB-4), the model's reading is the expectation and only the
reasoning strings still hidden under the class are kept.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import lru_cache

from scrubcheck.formats import Format, registered_formats
from scrubcheck.model import Context, Scenario
from scrubcheck.specmodel import read_stream
from scrubcheck.vocabulary import GENERIC, build_vocabulary, conformance_classes, fold

#: an 8-character window shared with the expected output makes a reasoning string unusable
#: as a leak canary (corpora/README.md)
_WINDOW = 8


class UnknownClass(KeyError):
    """A class name that no registered format has."""


@dataclass(frozen=True)
class Placement:
    """A scenario as one class judges it: `scenario` (its context names the class) when
    within the class, else None and `beyond` saying why."""

    scenario: Scenario | None
    beyond: str | None = None
    #: True when the class's expectation was read from the SPEC model, not the scenario
    reread: bool = False


def check_class(name: str) -> str:
    """`name` if it is a conformance class, else UnknownClass naming the known ones."""
    if name not in conformance_classes():
        raise UnknownClass(f"unknown conformance class {name!r} (known: "
                           f"{', '.join(conformance_classes())})")
    return name


def place(scenario: Scenario, conformance_class: str) -> Placement:
    """Where `scenario` stands in `conformance_class` (see the module docstring)."""
    if conformance_class == GENERIC:
        return Placement(scenario)
    fmt = registered_formats()[check_class(conformance_class)]
    reason = _context_beyond(scenario.context, fmt) or _text_beyond(scenario.text, fmt)
    if reason is not None:
        return Placement(None, reason)
    context = replace(scenario.context, features=(), conformance_class=conformance_class)
    generic = read_stream(scenario.text, scenario.context)
    within = read_stream(scenario.text, context)
    if (within.visible, within.cuts) == (generic.visible, generic.cuts):
        return Placement(replace(scenario, context=context))
    kept = tuple(r for r in scenario.reasoning if not _shares_window(r, within.visible))
    judged = replace(scenario, context=context, reasoning=kept,
                     visible=within.visible if scenario.expected_outputs is not None else None,
                     acceptable=None)
    return Placement(judged, reread=True)


def classes_within(scenario: Scenario) -> tuple[str, ...]:
    """Every conformance class that judges `scenario` (generic first, then the formats in
    registry order): what a vector set tells a consumer who claims one class."""
    return tuple(c for c in conformance_classes() if place(scenario, c).scenario is not None)


def _context_beyond(context: Context, fmt: Format) -> str | None:
    if context.delimiters:
        return "configures caller delimiters (R-CUSTOM-1), which only the generic class reads"
    others = [f for f in context.features if f != fmt.name]
    if others:
        return f"enables feature(s) {', '.join(others)} of another format"
    template = fmt.template
    if context.starts_in_reasoning and template.prefills_open == "never":
        return f"starts in a pre-filled block, which {fmt.name}'s template never writes"
    if not context.starts_in_reasoning and template.prefills_open == "always":
        return f"does not start in a pre-filled block, which {fmt.name}'s template always writes"
    if (context.starts_in_reasoning and context.may_skip_reasoning
            and not template.may_skip_reasoning):
        return f"lets the model skip reasoning (R-SKIP-1), which {fmt.name}'s template does not"
    return None


def text_beyond(text: str, conformance_class: str) -> str | None:
    """Why `text` holds a delimiter `conformance_class` does not have (SPEC section 12's
    rule (a)), or None: what a generator drawing within a class checks its draws with."""
    if conformance_class == GENERIC:
        return None
    return _text_beyond(text, registered_formats()[check_class(conformance_class)])


def _text_beyond(text: str, fmt: Format) -> str | None:
    """Why the text holds a delimiter the class does not have, or None."""
    own = _class_texts(fmt.name)
    exact = fmt.case == "exact"
    for match in _every_delimiter().finditer(text):
        raw = match.group()
        if (raw if exact else fold(raw)) in own:
            continue
        owners = _owners().get(fold(raw), ())
        if fold(raw) in {fold(t) for t in own}:
            return f"holds {raw!r}, a delimiter of {fmt.name} in another letter case " \
                   f"({fmt.name}'s are exact)"
        return f"holds {raw!r}, a delimiter of {', '.join(owners)}"
    return None


@lru_cache(maxsize=64)
def _class_texts(conformance_class: str) -> frozenset[str]:
    """The class's delimiter texts as its letter-case rule compares them."""
    fmt = registered_formats()[conformance_class]
    tags = build_vocabulary(conformance_class=conformance_class).tags
    if fmt.case == "exact":
        return frozenset(t.text for t in tags)
    return frozenset(fold(t.text) for t in tags)


def _owners() -> dict[str, tuple[str, ...]]:
    """Every registered delimiter text (folded) and the formats that have it."""
    owners: dict[str, list[str]] = {}
    for fmt in registered_formats().values():
        for text in fmt.texts():
            owners.setdefault(fold(text), []).append(fmt.name)
    return {k: tuple(v) for k, v in owners.items()}


def _every_delimiter() -> re.Pattern[str]:
    """Any delimiter of any registered format, ASCII case-insensitively, longest first."""
    texts = sorted(_owners(), key=len, reverse=True)
    return _pattern(tuple(texts))


@lru_cache(maxsize=8)
def _pattern(texts: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile("|".join(map(re.escape, texts)), re.IGNORECASE | re.ASCII)


def _shares_window(reasoning: str, visible: str) -> bool:
    if len(reasoning) < _WINDOW:
        return reasoning in visible
    return any(reasoning[i:i + _WINDOW] in visible
               for i in range(len(reasoning) - _WINDOW + 1))


def claimed_class(claims: tuple[str, ...], asked: str | None) -> str:
    """The class a run judges: the one asked for (--claim), else the generic class when the
    implementation claims it or claims nothing, else the first class it claims."""
    if asked is not None:
        return check_class(asked)
    if not claims or GENERIC in claims:
        return GENERIC
    return check_class(claims[0])
