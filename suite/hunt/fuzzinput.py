"""Structure-aware decoding of fuzzer input: bytes in, a hunt `Case` out.

The first byte picks the form. Even: structured, every further byte is one
choice of the stream builder (so libFuzzer's mutations edit the structure:
kinds of parts, tags, cut points) and the case has an expected output and
canaries. Odd: token soup, the rest is the stream text itself, UTF-8 with
invalid bytes kept as lone surrogates, cut into deltas at each 0xFF byte (a
byte UTF-8 never uses); the head byte's other bits give the context. Soup is
where the tag dictionary helps: libFuzzer splices `<think>`, `</think>`, fences
and backtick runs straight into the text.
"""

from __future__ import annotations

from dataclasses import dataclass

from scrubcheck.claims import text_beyond
from scrubcheck.generate import BytesChooser, Profile
from scrubcheck.hunt.case import Case, build_case
from scrubcheck.model import FINISH_REASONS, Context
from scrubcheck.vocabulary import FEATURES, all_feature_tag_texts, default_tags

SEPARATOR = b"\xff"
SOUP = 1


@dataclass(frozen=True)
class Decoded:
    case: Case | None
    choices: list[int] | None  # structured input: the choices made (for the shrinker)


def decode(data: bytes, profile: Profile) -> Decoded:
    head = data[0] if data else 0
    if head & SOUP:
        return Decoded(_soup(head, data[1:], profile), None)
    chooser = BytesChooser(data[1:])
    case = build_case(chooser, profile, soup=False)
    return Decoded(case, list(chooser.used))


def soup_context(head: int, profile: Profile) -> Context:
    """The context bits of a soup input, as `profile` can receive them (in a format's
    class, pre-fill as its template writes it: SPEC section 12)."""
    keys = profile.context_keys
    prefill = profile.prefill(bool(head & 2))
    inline = bool(head & 4) and {"inline_answer", "finish_reason"} <= keys
    finish = FINISH_REASONS[((head >> 3) & 7) % len(FINISH_REASONS)] if inline else "stop"
    features = profile.features if head & 64 else ()
    return Context(prefill, inline, finish, tuple(features),
                   conformance_class=profile.conformance_class)


def _soup(head: int, body: bytes, profile: Profile) -> Case | None:
    """A soup case, or None when its text is beyond the profile's class."""
    deltas = tuple(part.decode("utf-8", "surrogateescape") for part in body.split(SEPARATOR))
    text = "".join(deltas)
    if text_beyond(text, profile.conformance_class):
        return None
    return Case(soup_context(head, profile), deltas, tuple(text) or ("",), len(text) // 2)


def encode_soup(deltas: tuple[str, ...] | list[str], context: Context) -> bytes:
    """Fuzzer input for `deltas` as soup (seed corpora from scenarios). Lone surrogates
    are written as '?': they are not UTF-8."""
    head = SOUP | (2 if context.starts_in_reasoning else 0) | (4 if context.inline_answer else 0)
    head |= FINISH_REASONS.index(context.finish_reason) << 3 if context.inline_answer else 0
    head |= 64 if context.features else 0
    parts = [d.encode("utf-8", "replace") for d in deltas]
    return bytes([head]) + SEPARATOR.join(parts)


def dictionary() -> list[str]:
    """libFuzzer dictionary entries: every delimiter of every vocabulary, code markers."""
    tokens = [t.text for t in default_tags()] + all_feature_tag_texts()
    tokens += [t.upper() for t in tokens if t.isascii()]
    tokens += ["`", "``", "```", "~~~", "\n```\n", "\r\n", "    ", "</", "<"]
    tokens += [f for f in FEATURES]
    out = []
    for token in dict.fromkeys(tokens):
        data = token.encode("utf-8")
        out.append('"' + "".join(chr(b) if 0x20 <= b < 0x7F and b not in (0x22, 0x5C)
                                  else f"\\x{b:02X}" for b in data) + '"')
    return out
