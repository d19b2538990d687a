"""Tag vocabularies (SPEC section 2): the default family, the named features, the
delimiters a caller configures (SPEC R-CUSTOM-1) and the vocabulary of each
conformance class (SPEC section 12).

Every delimiter comes from the format registry (formats/*.yaml, scrubcheck.formats);
this module turns formats into the tags every scanner reads, so that "what is a tag"
has exactly one answer in the whole project and no format has code of its own.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache
from pathlib import Path

from scrubcheck.formats import PAIR_KINDS, Format, register_format_files, registered_formats


@dataclass(frozen=True)
class Feature:
    """A named extra vocabulary (SPEC R-VOCAB-3), as the scanners read it: a format of
    the registry (scrubcheck.formats) whose kinds are reduced to pairs, ends and markers.

    `pairs`: (open, closes) — a block opened by `open` ends at any of `closes` (pairs,
    special-token pairs and tool sections alike: each hides what it holds).
    `ends`: closes with no open of their own (a channel grammar's: they end a hidden
    message). `header`: the pairs are message headers whose text decides what follows
    (SPEC R-HARMONY-1/2). `source`: the format's first public source. `sample`: one
    reasoning section and answer in the format as a model sends it, for measurements
    that need realistic text (R-ROBUST-2); formats of plain pairs derive theirs.
    """

    name: str
    pairs: tuple[tuple[str, tuple[str, ...]], ...] = ()
    markers: tuple[str, ...] = ()
    description: str = ""
    source: str = ""
    ends: tuple[str, ...] = ()
    header: bool = False
    sample: str = ""
    #: the answer wrappers among `markers`, as (open, close): generators write the answer
    #: inside them, where a lone marker stands between reasoning and answer
    wrappers: tuple[tuple[str, str], ...] = ()
    #: the opens among `pairs` of tool sections that end a reasoning block (SPEC R-BLOCK-5)
    tool_ends: tuple[str, ...] = ()
    #: the opens among `pairs` of every tool section (the others open reasoning)
    tools: tuple[str, ...] = ()


def feature_of(fmt: Format) -> Feature:
    """The scanners' view of a format: a channel grammar's header opens first (they
    close at its message token), then every pair-like kind in file order; markers and
    answer wrappers (both removed where they stand, the content kept) as markers."""
    pairs: list[tuple[str, tuple[str, ...]]] = []
    markers: list[str] = []
    wrappers: list[tuple[str, str]] = []
    tool_ends: list[str] = []
    tools: list[str] = []
    grammar = fmt.grammar
    if grammar is not None:
        pairs += [(grammar.start, (grammar.message,)), (grammar.channel, (grammar.message,))]
        markers.append(grammar.constrain)
    for d in fmt.delimiters:
        if d.kind in PAIR_KINDS:
            pairs.append((d.open, d.closes))
            if d.kind == "tool-section":
                tools.append(d.open)
            if d.ends_reasoning:
                tool_ends.append(d.open)
        elif d.kind == "marker":
            markers.append(d.text)
        elif d.kind == "answer-wrapper":
            markers += [d.open, *d.closes]
            wrappers.append((d.open, d.closes[0]))
    return Feature(fmt.name, tuple(pairs), tuple(markers), fmt.title,
                   fmt.sources[0].url if fmt.sources else "",
                   grammar.ends if grammar is not None else (), grammar is not None, fmt.sample,
                   tuple(wrappers), tuple(tool_ends), tuple(tools))


def _base_format() -> Format:
    (base,) = [f for f in registered_formats().values() if f.generic == "base"]
    return base


def _family_names(base: Format) -> tuple[str, ...]:
    """The names of the default family (SPEC R-VOCAB-1): `<n>` opens closed by `</n>`."""
    names = []
    for d in base.pairs:
        name = d.open[1:-1]
        if not (d.open == f"<{name}>" and d.closes == (f"</{name}>",)):
            raise ValueError(f"{base.file}:{d.line}: the base family's pairs are <name> and "
                             f"</name>, not {d.open!r} and {d.closes!r}")
        names.append(name)
    return tuple(names)


#: the default family's names, from the registry's base format
FAMILY_NAMES: tuple[str, ...] = _family_names(_base_format())

#: the features of the generic class (SPEC R-VOCAB-3), by name, in registry order; a
#: user's format file (--formats) adds to it through `register_formats`
FEATURES: dict[str, Feature] = {f.name: feature_of(f) for f in registered_formats().values()
                                if f.generic == "feature"}

#: the name of the conformance class that does not know the model (SPEC section 12)
GENERIC = "generic"


def conformance_classes() -> tuple[str, ...]:
    """Every conformance class (SPEC section 12): generic, then one per format."""
    return (GENERIC, *registered_formats())


def format_problems(fmt: Format) -> list[str]:
    """Why `fmt` cannot join the registry: its own class vocabulary, or (a feature) the
    generic vocabulary with every feature enabled, cannot be built (a delimiter that is a
    prefix of another, one text of two kinds: SPEC R-VOCAB-3). Empty when it can."""
    problems = []
    tags = default_tags() if fmt.generic == "base" else feature_tags(feature_of(fmt))
    try:
        _checked(tags)
    except DelimiterError as exc:
        problems.append(f"in its own class: {exc}")
    if fmt.generic == "feature":
        every = [*default_tags(), *(t for name, f in FEATURES.items() if name != fmt.name
                                    for t in feature_tags(f)), *tags]
        try:
            _checked(every)
        except DelimiterError as exc:
            problems.append(f"with the default family and every other feature: {exc}")
    return problems


def register_formats(paths: Iterable[Path]) -> list[Format]:
    """Add a user's format files (--formats): a `feature` format joins the generic
    class's features, every one becomes a conformance class. Raises FormatsUnavailable,
    also when a format's delimiters clash with the registry's (format_problems)."""
    added = register_format_files(paths, check=format_problems)
    for fmt in added:
        if fmt.generic == "feature":
            FEATURES[fmt.name] = feature_of(fmt)
    _build.cache_clear()
    return added


def feature_sample(feature: Feature) -> str:
    """Realistic text in `feature`'s format: its own sample, else a block in each pair
    and each marker once, with answer text around them."""
    if feature.sample:
        return feature.sample
    parts = [f"{open_text}Check the dates first.{closes[0]} "
             for open_text, closes in feature.pairs]
    parts += [f"{marker}The meeting moved. " for marker in feature.markers]
    return "".join(parts)


#: the names harmony's tags carry (SPEC R-HARMONY-1): headers, and the hidden messages
HARMONY_HEADER, HARMONY_MESSAGE = "harmony:header", "harmony:message"


def fold(text: str) -> str:
    """ASCII-only case folding, as SPEC R-VOCAB-1 requires (no Unicode folding)."""
    return text.translate(_ASCII_LOWER)


_ASCII_LOWER = {c: c + 32 for c in range(ord("A"), ord("Z") + 1)}


class TagKind(StrEnum):
    """What a delimiter does: opens a block, closes one, or is a marker (removed alone)."""

    OPEN = "open"
    CLOSE = "close"
    MARKER = "marker"


@dataclass(frozen=True)
class Tag:
    """One delimiter: `kind` is open, close or marker.

    `names` pair opens with closes: a block opened by an open tag ends at a close
    that shares one of its names. A delimiter that several pairs share (harmony's and
    Solar Open's `<|end|>`, a caller's pair reusing `<think>`) carries all their names.
    `header`: a harmony header open or close (SPEC R-HARMONY-1). `ends`: for the open
    of a tool section that ends reasoning (SPEC R-BLOCK-5), the names of the blocks it
    ends (its format's reasoning pairs'); it then opens its own.
    """

    text: str
    kind: TagKind
    names: frozenset[str]
    header: bool = False
    ends: frozenset[str] = frozenset()

    @property
    def name(self) -> str:
        """One name, for callers that only pair tags of a single name."""
        return min(self.names)


class DelimiterError(ValueError):
    """A vocabulary that cannot be built: a caller's delimiter that is empty, unusable
    or ambiguous (SPEC R-CUSTOM-1)."""


@dataclass(frozen=True)
class CustomDelimiter:
    """A caller-configured pair (`open` and `close`) or `marker` (SPEC R-CUSTOM-1)."""

    open: str = ""
    close: str = ""
    marker: str = ""

    @classmethod
    def from_mapping(cls, raw: Mapping[str, object] | CustomDelimiter) -> CustomDelimiter:
        """{'open': ..., 'close': ...} or {'marker': ...}; raises DelimiterError otherwise."""
        if isinstance(raw, CustomDelimiter):
            return raw
        if not isinstance(raw, Mapping):
            raise DelimiterError(f"a delimiter is a mapping, not {type(raw).__name__}")
        unknown = set(raw) - {"open", "close", "marker"}
        if unknown:
            keys = ", ".join(sorted(map(str, unknown)))
            raise DelimiterError(f"unknown delimiter key(s): {keys}")
        values = {str(k): v for k, v in raw.items() if isinstance(v, str)}
        if len(values) != len(raw):
            raise DelimiterError("delimiter texts must be strings")
        if set(values) == {"marker"} or set(values) == {"open", "close"}:
            return cls(**values)
        raise DelimiterError("a delimiter has either 'open' and 'close', or 'marker'")

    def as_dict(self) -> dict[str, str]:
        return {"marker": self.marker} if self.marker else {"open": self.open, "close": self.close}

    def tags(self, index: int) -> list[Tag]:
        name = frozenset({f"custom:{index}"})
        if self.marker:
            return [Tag(self.marker, TagKind.MARKER, name)]
        return [Tag(self.open, TagKind.OPEN, name), Tag(self.close, TagKind.CLOSE, name)]


def custom_delimiters(raw: Iterable[Mapping[str, object] | CustomDelimiter] | None
                      ) -> tuple[CustomDelimiter, ...]:
    """The caller's delimiters as CustomDelimiters (DelimiterError when malformed)."""
    return tuple(CustomDelimiter.from_mapping(d) for d in raw or ())


@dataclass(frozen=True)
class Vocabulary:
    """The active set of tags for one stream. Keys of `by_folded` are ASCII-folded."""

    features: frozenset[str]
    by_folded: dict[str, Tag]
    delimiters: tuple[CustomDelimiter, ...] = ()
    conformance_class: str = "generic"

    @property
    def tags(self) -> list[Tag]:
        return list(self.by_folded.values())

    @property
    def max_len(self) -> int:
        return max((len(t) for t in self.by_folded), default=0)

    @property
    def start_chars(self) -> frozenset[str]:
        return frozenset(t[0] for t in self.by_folded)

    def prefixes(self) -> frozenset[str]:
        """Every non-empty proper prefix of every folded tag."""
        return frozenset(t[:i] for t in self.by_folded for i in range(1, len(t)))

    def lookup(self, text: str) -> Tag | None:
        return self.by_folded.get(fold(text))

    def closes_of(self, tag: Tag) -> list[Tag]:
        """What ends a block opened by `tag`: the closes of its names (SPEC R-BLOCK-2,
        R-CUSTOM-2), and the opens of tool sections that end it (R-BLOCK-5), which then
        open their own block."""
        return [t for t in self.by_folded.values()
                if (t.kind == "close" and t.names & tag.names) or t.ends & tag.names]

    def block_closes(self) -> list[Tag]:
        """What ends a pre-filled block (SPEC R-ORPHAN-2): every close except harmony's
        `<|message|>`, which ends a header and never reasoning, and every open of a tool
        section that ends reasoning (R-BLOCK-5)."""
        return [t for t in self.by_folded.values()
                if (t.kind == "close" and not t.header) or t.ends]


def default_tags() -> list[Tag]:
    tags = []
    for name in FAMILY_NAMES:
        tags.append(Tag(f"<{name}>", TagKind.OPEN, frozenset({name})))
        tags.append(Tag(f"</{name}>", TagKind.CLOSE, frozenset({name})))
    return tags


def feature_tags(feature: Feature) -> list[Tag]:
    """Every delimiter of `feature` (a text that two of its pairs share appears twice)."""
    tags = []
    reasoning = frozenset(f"{feature.name}:{i}" for i, (open_text, _) in
                          enumerate(feature.pairs, start=1) if open_text not in feature.tools)
    for i, (open_text, closes) in enumerate(feature.pairs, start=1):
        name = frozenset({HARMONY_HEADER if feature.header else f"{feature.name}:{i}"})
        ended = reasoning if open_text in feature.tool_ends else frozenset()
        tags.append(Tag(open_text, TagKind.OPEN, name, feature.header, ended))
        tags.extend(Tag(c, TagKind.CLOSE, name, feature.header) for c in closes)
    # a channel grammar's ends close its hidden messages, whatever the format's name
    ends = frozenset({HARMONY_MESSAGE if feature.header else f"{feature.name}:message"})
    tags.extend(Tag(e, TagKind.CLOSE, ends) for e in feature.ends)
    tags.extend(Tag(m, TagKind.MARKER, frozenset({f"{feature.name}:marker"}))
                for m in feature.markers)
    return tags


def build_vocabulary(
    features: Iterable[str] = (),
    delimiters: Iterable[Mapping[str, object] | CustomDelimiter] = (),
    conformance_class: str = GENERIC,
) -> Vocabulary:
    """The vocabulary of one stream (SPEC section 2 and 12).

    In the generic class: the default family plus the given features and caller
    delimiters. In a format's class: that format's delimiters are the whole vocabulary
    (the features are not read: a class needs none enabled), plus caller delimiters.
    Unknown feature or class names raise KeyError; unusable delimiters raise
    DelimiterError.
    """
    features = tuple(sorted(set(features)))
    if conformance_class != GENERIC:
        if conformance_class not in registered_formats():
            known = ", ".join(conformance_classes())
            raise KeyError(f"unknown conformance class {conformance_class!r} (known: {known})")
        features = ()
    unknown = set(features) - set(FEATURES)
    if unknown:
        raise KeyError(f"unknown feature(s): {', '.join(sorted(unknown))}")
    return _build(features, custom_delimiters(delimiters), conformance_class)


def class_tags(conformance_class: str) -> list[Tag]:
    """The tags a format's class starts from: the format's own (the default family's
    under their names, SPEC R-BLOCK-2)."""
    fmt = registered_formats()[conformance_class]
    return default_tags() if fmt.generic == "base" else feature_tags(feature_of(fmt))


@lru_cache(maxsize=256)
def _build(features: tuple[str, ...], delimiters: tuple[CustomDelimiter, ...],
           conformance_class: str = GENERIC) -> Vocabulary:
    if conformance_class == GENERIC:
        tags = default_tags()
        for feature_name in features:
            tags.extend(feature_tags(FEATURES[feature_name]))
    else:
        tags = class_tags(conformance_class)
    custom = []
    for index, delimiter in enumerate(delimiters, start=1):
        for tag in delimiter.tags(index):
            _check_custom_text(tag.text)
            custom.append(tag)
    return Vocabulary(frozenset(features), _checked([*tags, *custom]), delimiters,
                      conformance_class)


def _checked(tags: list[Tag]) -> dict[str, Tag]:
    """The tags by folded text, one tag per text (SPEC R-CUSTOM-2), prefix-free."""
    by_folded: dict[str, Tag] = {}
    for tag in tags:
        key = fold(tag.text)
        known = by_folded.get(key)
        if known is None:
            by_folded[key] = tag
        elif known.kind != tag.kind or known.header != tag.header:
            raise DelimiterError(f"{tag.text!r} would be both {known.kind} and {tag.kind} "
                                 "(one text is one kind of delimiter)")
        else:  # one tag shared by several pairs (SPEC R-CUSTOM-2)
            by_folded[key] = Tag(known.text, known.kind, known.names | tag.names, known.header,
                                 known.ends | tag.ends)
    _check_prefix_free(by_folded)
    return by_folded


def _check_custom_text(text: str) -> None:
    """SPEC R-CUSTOM-1: what a caller's delimiter may not be."""
    if not text:
        raise DelimiterError("a delimiter must not be empty")
    if "`" in text or "\n" in text:
        raise DelimiterError(f"{text!r}: a delimiter must not hold a backtick or a line feed")
    if text[0] in " \t\r~":
        raise DelimiterError(f"{text!r}: a delimiter must not start with whitespace or '~'")


def _check_prefix_free(by_folded: Mapping[str, Tag]) -> None:
    """No delimiter may be a proper prefix of another: the scanner decides at the first
    whole tag, so the longer one could never be matched (SPEC R-CUSTOM-1)."""
    keys = sorted(by_folded)
    for shorter, longer in zip(keys, keys[1:], strict=False):
        if longer.startswith(shorter):
            raise DelimiterError(f"{by_folded[shorter].text!r} is a prefix of "
                                 f"{by_folded[longer].text!r}: the longer one could never match")


def all_feature_tag_texts() -> list[str]:
    """Every delimiter of every feature, for linting and lookalike checks (each once)."""
    return list(dict.fromkeys(t.text for f in FEATURES.values() for t in feature_tags(f)))
