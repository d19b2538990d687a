"""Tag vocabularies (SPEC section 2): the default family, the named features and the
delimiters a caller configures (SPEC R-CUSTOM-1).

One table serves the reference scrubber, the checks and the corpus linter, so
that "what is a tag" has exactly one answer in the whole project.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache

FAMILY_NAMES: tuple[str, ...] = (
    "think",
    "thinking",
    "reasoning",
    "thought",
    "scratch_pad",
    "reasoning_scratchpad",
)


@dataclass(frozen=True)
class Feature:
    """A named extra vocabulary (SPEC R-VOCAB-3).

    `pairs`: (open, closes) — a block opened by `open` ends at any of `closes`.
    `ends`: closes with no open of their own (harmony: they end a hidden message).
    `header`: the pairs are message headers whose text decides what follows
    (SPEC R-HARMONY-1/2). `source`: the public format description. `sample`: one
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


def _pair(open_text: str, *closes: str) -> tuple[str, tuple[str, ...]]:
    return open_text, closes


FEATURES: dict[str, Feature] = {
    f.name: f
    for f in (
        Feature(
            "namespaced",
            (_pair("<mm:think>", "</mm:think>"), _pair("<minimax:think>", "</minimax:think>"),
             _pair("<seed:think>", "</seed:think>")),
            description="MiniMax and Seed namespaced think tags",
        ),
        Feature(
            "localised",
            (_pair("<思考>", "</思考>"), _pair("<反思>", "</反思>"), _pair("<推理>", "</推理>")),
            description="Chinese-named reasoning tags",
        ),
        Feature("bracket", (_pair("[THINK]", "[/THINK]"),), description="Magistral [THINK] blocks"),
        Feature("kimi", (_pair("◁think▷", "◁/think▷"),), description="Kimi-VL triangle delimiters"),
        Feature(
            "special-token",
            (_pair("<|begin_of_thought|>", "<|end_of_thought|>"),
             _pair("<|START_THINKING|>", "<|END_THINKING|>")),
            description="OpenThinker and Cohere special-token delimiters",
        ),
        Feature(
            "harmony",
            (_pair("<|start|>", "<|message|>"), _pair("<|channel|>", "<|message|>")),
            ("<|constrain|>",),
            description="gpt-oss harmony messages leaked as text: headers, channels, recipients",
            source="https://github.com/openai/harmony/blob/main/docs/format.md",
            ends=("<|end|>", "<|call|>", "<|return|>"),
            header=True,
            sample="<|channel|>analysis<|message|>Check the dates first, then keep it short."
                   "<|end|><|start|>assistant<|channel|>final<|message|>The meeting moved to "
                   "Tuesday. ",
        ),
        Feature(
            "gemma-channel",
            (_pair("<|channel>", "<channel|>"), _pair("<|tool_call>", "<tool_call|>"),
             _pair("<|tool_response>", "<tool_response|>")),
            ("<turn|>",),
            description="Gemma 4 thought channel (glued or with a newline), tool calls and results",
            sample="<|channel>thought\nCheck the dates first.<channel|>The meeting moved. ",
            source="https://github.com/vllm-project/vllm/blob/main/vllm/reasoning/gemma4_utils.py",
        ),
        Feature(
            "kimi-xtml",
            (_pair("<|open|>think", "<|close|>think", "<|open|>response"),
             _pair("<|open|>tools", "<|close|>tools")),
            ("<|sep|>", "<|close|>response", "<|close|>message", "<|end_of_msg|>"),
            description="Kimi-K3 XTML channels; <|sep|> is a marker, so an elided one is no leak",
            sample="<|open|>think<|sep|>Check the dates first.<|close|>think<|sep|>"
                   "<|open|>response<|sep|>The meeting moved.<|close|>response<|sep|> ",
            source="https://github.com/vllm-project/vllm/blob/main/vllm/reasoning/"
                   "kimi_k3_reasoning_parser.py",
        ),
        Feature(
            "apertus",
            (_pair("<|inner_prefix|>", "<|inner_suffix|>"),
             _pair("<|tools_prefix|>", "<|tools_suffix|>")),
            ("<|assistant_end|>",),
            description="Apertus inner (deliberation) section and tool calls",
            sample="<|inner_prefix|>Check the dates first.<|inner_suffix|>The meeting moved. ",
            source="https://github.com/swiss-ai/apertus_format/blob/main/docs/format.md",
        ),
        Feature(
            "solar-open",
            (_pair("<|think|>", "<|end|>"), _pair("<|tool_calls|>", "<|calls|>")),
            ("<|begin|>assistant", "<|content|>", "<|flush|>"),
            description="Upstage Solar Open think turn, tool calls and turn markers",
            sample="<|think|>Check the dates first.<|end|><|begin|>assistant<|content|>"
                   "The meeting moved. ",
            source="https://github.com/vllm-project/vllm/blob/main/vllm/reasoning/"
                   "solar_open_reasoning_parser.py",
        ),
        Feature("extra-names", (_pair("<reason>", "</reason>"),), description="<reason> blocks"),
        Feature(
            "answer-wrappers",
            markers=("<answer>", "</answer>", "<final>", "</final>", "<output>", "</output>"),
            description="answer wrapper tags removed, content kept",
        ),
    )
}

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
    `header`: a harmony header open or close (SPEC R-HARMONY-1).
    """

    text: str
    kind: TagKind
    names: frozenset[str]
    header: bool = False

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

    @property
    def tags(self) -> list[Tag]:
        return list(self.by_folded.values())

    @property
    def max_len(self) -> int:
        return max(len(t) for t in self.by_folded)

    @property
    def start_chars(self) -> frozenset[str]:
        return frozenset(t[0] for t in self.by_folded)

    def prefixes(self) -> frozenset[str]:
        """Every non-empty proper prefix of every folded tag."""
        return frozenset(t[:i] for t in self.by_folded for i in range(1, len(t)))

    def lookup(self, text: str) -> Tag | None:
        return self.by_folded.get(fold(text))

    def closes_of(self, tag: Tag) -> list[Tag]:
        """The closes that end a block opened by `tag` (SPEC R-BLOCK-2, R-CUSTOM-2)."""
        return [t for t in self.by_folded.values() if t.kind == "close" and t.names & tag.names]

    def block_closes(self) -> list[Tag]:
        """The closes that end a pre-filled block (SPEC R-ORPHAN-2): every close except
        harmony's `<|message|>`, which ends a header and never reasoning."""
        return [t for t in self.by_folded.values() if t.kind == "close" and not t.header]


def default_tags() -> list[Tag]:
    tags = []
    for name in FAMILY_NAMES:
        tags.append(Tag(f"<{name}>", TagKind.OPEN, frozenset({name})))
        tags.append(Tag(f"</{name}>", TagKind.CLOSE, frozenset({name})))
    return tags


def feature_tags(feature: Feature) -> list[Tag]:
    """Every delimiter of `feature` (a text that two of its pairs share appears twice)."""
    tags = []
    for i, (open_text, closes) in enumerate(feature.pairs, start=1):
        name = frozenset({HARMONY_HEADER if feature.header else f"{feature.name}:{i}"})
        tags.append(Tag(open_text, TagKind.OPEN, name, feature.header))
        tags.extend(Tag(c, TagKind.CLOSE, name, feature.header) for c in closes)
    ends = frozenset({f"{feature.name}:message"})
    tags.extend(Tag(e, TagKind.CLOSE, ends) for e in feature.ends)
    tags.extend(Tag(m, TagKind.MARKER, frozenset({f"{feature.name}:marker"}))
                for m in feature.markers)
    return tags


def build_vocabulary(
    features: Iterable[str] = (),
    delimiters: Iterable[Mapping[str, object] | CustomDelimiter] = (),
) -> Vocabulary:
    """The default family plus the given features and caller delimiters.

    Unknown feature names raise KeyError; unusable delimiters raise DelimiterError.
    """
    features = tuple(sorted(set(features)))
    unknown = set(features) - set(FEATURES)
    if unknown:
        raise KeyError(f"unknown feature(s): {', '.join(sorted(unknown))}")
    return _build(features, custom_delimiters(delimiters))


@lru_cache(maxsize=256)
def _build(features: tuple[str, ...], delimiters: tuple[CustomDelimiter, ...]) -> Vocabulary:
    tags = default_tags()
    for feature_name in features:
        tags.extend(feature_tags(FEATURES[feature_name]))
    custom = []
    for index, delimiter in enumerate(delimiters, start=1):
        for tag in delimiter.tags(index):
            _check_custom_text(tag.text)
            custom.append(tag)
    by_folded: dict[str, Tag] = {}
    for tag in [*tags, *custom]:
        key = fold(tag.text)
        known = by_folded.get(key)
        if known is None:
            by_folded[key] = tag
        elif known.kind != tag.kind or known.header != tag.header:
            raise DelimiterError(f"{tag.text!r} would be both {known.kind} and {tag.kind} "
                                 "(one text is one kind of delimiter)")
        else:  # one tag shared by several pairs (SPEC R-CUSTOM-2)
            by_folded[key] = Tag(known.text, known.kind, known.names | tag.names, known.header)
    _check_prefix_free(by_folded)
    return Vocabulary(frozenset(features), by_folded, delimiters)


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
