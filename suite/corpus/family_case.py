"""case-variants: tags in mixed ASCII case, and non-ASCII letters that only look like a case change.

SPEC R-VOCAB-1 matches tags ASCII case-insensitively (Hermes 3 writes
`<REASONING_SCRATCHPAD>`), and only ASCII: a scrubber that uses Unicode
`lower()`/`upper()` turns KELVIN SIGN into `k` or DOTLESS I into `I` and
removes text that is not a tag.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Mapping

from scrubcheck.corpus.family_base import Family, Generated, params_schema
from scrubcheck.corpus.fields import integer, texts, texts_or_none
from scrubcheck.corpus.prose import TOPICS
from scrubcheck.corpus.streams import Stream
from scrubcheck.corpus.templates import (
    LAYOUTS,
    Delimiter,
    default_delimiters,
    delimiter_stream,
    feature_delimiters,
    random_cuts,
)
from scrubcheck.model import Context
from scrubcheck.vocabulary import FAMILY_NAMES, FEATURES


def _ascii_map(text: str, fn: Callable[[int, str], str]) -> str:
    """Apply fn(letter_index, char) to ASCII letters only."""
    out, n = [], 0
    for c in text:
        if c.isascii() and c.isalpha():
            out.append(fn(n, c))
            n += 1
        else:
            out.append(c)
    return "".join(out)


def _title(text: str) -> str:
    out, prev_letter = [], False
    for c in text:
        is_letter = c.isascii() and c.isalpha()
        out.append(c.upper() if is_letter and not prev_letter else c.lower() if is_letter else c)
        prev_letter = is_letter
    return "".join(out)


STYLES: dict[str, Callable[[str], str]] = {
    "upper": lambda t: _ascii_map(t, lambda _, c: c.upper()),
    "lower": lambda t: _ascii_map(t, lambda _, c: c.lower()),
    "title": _title,
    "alternating": lambda t: _ascii_map(t, lambda i, c: c.upper() if i % 2 == 0 else c.lower()),
    "inverted": lambda t: _ascii_map(t, lambda i, c: c.lower() if i % 2 == 0 else c.upper()),
}
WHICH = ("open", "close", "both")


def _restyle(d: Delimiter, style: str, which: str) -> dict[str, str]:
    """Original tag text -> restyled text, for the tags `which` names."""
    fn = STYLES[style]
    if d.kind == "marker":
        return {d.text: fn(d.text)}
    changed = {}
    if which in ("open", "both"):
        changed[d.open_tag] = fn(d.open_tag)
    if which in ("close", "both"):
        changed[d.close_tag] = fn(d.close_tag)
    return changed


def _with_tags_replaced(stream: Stream, changes: dict[str, str]) -> Stream:
    out = Stream()
    for role, text in stream.pieces:
        out.pieces.append((role, changes.get(text, text) if role == "tag" else text))
    return out


def build_ascii(params: Mapping[str, object]) -> Iterator[Generated]:
    seed = integer(params, "seed", 1)
    styles = list(texts(params, "styles", tuple(STYLES)))
    if params.get("source", "default") == "default":
        targets = [d for d in default_delimiters() if d.kind == "open"]
    else:
        chosen = texts_or_none(params, "features")
        targets = [d for d in feature_delimiters(list(chosen) if chosen is not None else None)
                   if d.kind in ("open", "marker")]
    for d in targets:
        base = d.key.removesuffix("-open")
        for style in styles:
            for which in WHICH if d.kind == "open" else ("marker",):
                changes = _restyle(d, style, which)
                if all(old == new for old, new in changes.items()):
                    continue  # this style leaves the tag as it is: nothing to test
                rng = random.Random(f"{seed}:{d.key}:{style}:{which}")
                topic = rng.choice(TOPICS)
                stream = _with_tags_replaced(delimiter_stream(d, topic, rng.choice(LAYOUTS)),
                                             changes)
                shown = ", ".join(changes.values())
                yield Generated(
                    suffix=f"{base}-{style}" + ("" if which == "marker" else f"-{which}"),
                    detail=f"{style} case: {shown}",
                    deltas=random_cuts(stream.text, rng, 3),
                    reasoning=stream.reasoning_strings,
                    visible=stream.visible,
                    context=Context(features=(d.feature,) if d.feature else ()),
                )


# Letters whose Unicode case mapping lands on an ASCII letter of a tag name.
LOOKALIKES: dict[str, tuple[str, str]] = {
    "k": ("\u212a", "kelvin"),     # KELVIN SIGN: lower() gives 'k'
    "i": ("\u0131", "dotless-i"),  # LATIN SMALL LETTER DOTLESS I: upper() gives 'I'
    "s": ("\u017f", "long-s"),     # LATIN SMALL LETTER LONG S: upper() gives 'S'
}


def build_non_ascii(params: Mapping[str, object]) -> Iterator[Generated]:
    seed = integer(params, "seed", 1)
    for name in FAMILY_NAMES:
        for letter, (char, label) in LOOKALIKES.items():
            if letter not in name:
                continue
            fake = name.replace(letter, char, 1)
            rng = random.Random(f"{seed}:{name}:{label}")
            topic = rng.choice(TOPICS)
            real = Stream().block(f"<{name}>", f"\n{topic.reasoning}\n", f"</{name}>")
            real.answer(f"\n\n{topic.lead} Written as <{fake}>, the tag is just text"
                        f"</{fake}> in this sentence. {topic.tail}")
            yield Generated(
                suffix=f"{name.replace('_', '-')}-{label}",
                detail=f"<{fake}> uses {label} (U+{ord(char):04X}), not an ASCII letter",
                deltas=random_cuts(real.text, rng, 3),
                reasoning=real.reasoning_strings,
                visible=real.visible,
            )


_STYLE_SCHEMA = {"type": "array", "items": {"enum": sorted(STYLES)}, "uniqueItems": True}

ASCII_FAMILY = Family(
    name="case-variants",
    summary="tags in upper, lower, title and alternating ASCII case",
    params_schema=params_schema({
        "source": {"enum": ["default", "features"]},
        "features": {"type": "array", "items": {"enum": sorted(FEATURES)}, "uniqueItems": True},
        "styles": _STYLE_SCHEMA,
        "seed": {"type": "integer"},
    }),
    build=build_ascii,
)

NON_ASCII_FAMILY = Family(
    name="non-ascii-case",
    summary="names with a non-ASCII letter whose Unicode case mapping is ASCII: literal text",
    params_schema=params_schema({"seed": {"type": "integer"}}),
    build=build_non_ascii,
)
