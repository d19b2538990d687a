"""Tag vocabularies (SPEC section 2): the default family and the named features.

One table serves the reference scrubber, the checks and the corpus linter, so
that "what is a tag" has exactly one answer in the whole project.
"""

from __future__ import annotations

from dataclasses import dataclass

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
    """A named extra vocabulary: open/close pairs (by position) and markers."""

    name: str
    pairs: tuple[tuple[str, str], ...] = ()
    markers: tuple[str, ...] = ()
    description: str = ""


FEATURES: dict[str, Feature] = {
    f.name: f
    for f in (
        Feature(
            "namespaced",
            (("<mm:think>", "</mm:think>"), ("<minimax:think>", "</minimax:think>"),
             ("<seed:think>", "</seed:think>")),
            description="MiniMax and Seed namespaced think tags",
        ),
        Feature(
            "localised",
            (("<思考>", "</思考>"), ("<反思>", "</反思>"), ("<推理>", "</推理>")),
            description="Chinese-named reasoning tags",
        ),
        Feature("bracket", (("[THINK]", "[/THINK]"),), description="Magistral [THINK] blocks"),
        Feature("kimi", (("◁think▷", "◁/think▷"),), description="Kimi-VL triangle delimiters"),
        Feature(
            "special-token",
            (("<|begin_of_thought|>", "<|end_of_thought|>"),
             ("<|START_THINKING|>", "<|END_THINKING|>")),
            description="OpenThinker and Cohere special-token delimiters",
        ),
        Feature(
            "harmony",
            (("<|channel|>analysis<|message|>", "<|end|>"),),
            ("<|start|>assistant", "<|channel|>final<|message|>", "<|return|>"),
            description="gpt-oss harmony analysis channel leaked as text",
        ),
        Feature("gemma-channel", (("<|channel>thought", "<channel|>"),),
                description="Gemma thought channel"),
        Feature("extra-names", (("<reason>", "</reason>"),), description="<reason> blocks"),
        Feature(
            "answer-wrappers",
            markers=("<answer>", "</answer>", "<final>", "</final>", "<output>", "</output>"),
            description="answer wrapper tags removed, content kept",
        ),
    )
}


def fold(text: str) -> str:
    """ASCII-only case folding, as SPEC R-VOCAB-1 requires (no Unicode folding)."""
    return text.translate(_ASCII_LOWER)


_ASCII_LOWER = {c: c + 32 for c in range(ord("A"), ord("Z") + 1)}


@dataclass(frozen=True)
class Tag:
    """One delimiter: `kind` is 'open', 'close' or 'marker'; `name` pairs opens with closes."""

    text: str
    kind: str
    name: str


@dataclass(frozen=True)
class Vocabulary:
    """The active set of tags for one stream. Keys of `by_folded` are ASCII-folded."""

    features: frozenset[str]
    by_folded: dict[str, Tag]

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


def default_tags() -> list[Tag]:
    tags = []
    for name in FAMILY_NAMES:
        tags.append(Tag(f"<{name}>", "open", name))
        tags.append(Tag(f"</{name}>", "close", name))
    return tags


def feature_tags(feature: Feature) -> list[Tag]:
    tags = []
    for open_text, close_text in feature.pairs:
        name = f"{feature.name}:{open_text}"
        tags.append(Tag(open_text, "open", name))
        tags.append(Tag(close_text, "close", name))
    tags.extend(Tag(m, "marker", f"{feature.name}:marker") for m in feature.markers)
    return tags


def build_vocabulary(features: tuple[str, ...] | frozenset[str] | list[str] = ()) -> Vocabulary:
    """The default family plus the given features; unknown feature names raise KeyError."""
    unknown = set(features) - set(FEATURES)
    if unknown:
        raise KeyError(f"unknown feature(s): {', '.join(sorted(unknown))}")
    tags = default_tags()
    for feature_name in sorted(set(features)):
        tags.extend(feature_tags(FEATURES[feature_name]))
    return Vocabulary(frozenset(features), {fold(t.text): t for t in tags})


def all_feature_tag_texts() -> list[str]:
    """Every delimiter of every feature, for linting and lookalike checks."""
    return [t.text for f in FEATURES.values() for t in feature_tags(f)]
