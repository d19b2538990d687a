"""The stocks generated answers and reasoning are built from.

Answer stocks never contain a canary-like string (`qv`), a backtick, or a tag of
any vocabulary outside the code pieces that are built to hold one; lookalikes
(SPEC R-VOCAB-2) and delimiters of features a stream does not enable
(R-VOCAB-4) are literal answer text by rule. Each stock lists its simplest
entry first, because shrinking moves towards index 0.
"""

from __future__ import annotations

from scrubcheck.vocabulary import (
    FAMILY_NAMES,
    FEATURES,
    GENERIC,
    CustomDelimiter,
    Vocabulary,
    feature_tags,
)

WORDS: tuple[str, ...] = (
    "Hi", "Sure", "the", "answer", "is", "Paris", "42", "done", "result", "total",
    "Thanks", "ok", "note", "see", "below", "value", "naive", "yes", "no", "then",
)
PUNCTUATION: tuple[str, ...] = (
    ".", ",", "!", "?", ":", ";", " - ", "(", ")", "'", '"', "/", "\\", "&", "#", "*",
    "a < b", "x > y", "<b>bold</b>", "<br/>", "i<j", "->", "=>", "<", ">", "<>", "</>",
    "http://example.org/a?b=c", "1 < 2 > 0",
)
WHITESPACE: tuple[str, ...] = (" ", "\n", "\n\n", "  ", "\t", "\r\n", " \n", "\n\n\n", "\r")
#: Characters scrubbers trip over (SPEC R-ROBUST-1, docs/field.md#fm-unicode).
ODD_UNICODE: tuple[str, ...] = (
    "é", "naïve", "思考", "◁▷", "😀", "e\u0301", "\u2028", "\u2029", "\x00", "\ud800",
    "\udfff", "\ud83d", "\ufeff", "\u200b", "\u202e", "İ", "\u212a", "ß", "Ω", "\x85",
    "\x1b", "\x7f", "\uffff", "ﬁ", "\U0001f9e0", "\u0301<", ">\u0301",
)
#: Tag lookalikes, with `{n}` for a family name: none of them is a tag (R-VOCAB-2).
LOOKALIKE_SHAPES: tuple[str, ...] = (
    "<{n} >", '<{n} type="x">', "<{n}/>", "< {n}>", "<{n}er>", "<{n}_mode>", "</{n} >",
    "<//{n}>", "<{n}\n", "<{n}", "</{n}", "<<{n}", "<{n}:x>",
)
#: Non-ASCII letters whose Unicode case mapping is ASCII: only ASCII folds (R-VOCAB-1).
NON_ASCII_CASE: tuple[str, ...] = (
    "<th\u0130nk>", "<thin\u212a>", "</th\u0130nk>", "<\u017fcratch_pad>",
)
#: Contents of inline code spans: literal answer text whatever it holds.
CODE_WORDS: tuple[str, ...] = ("x", "print(x)", "a ` b", "a `` b", "--flag", "f(<x>)")
FENCE_INFO: tuple[str, ...] = ("", "py", "text <think>", "xml", "md </think>")
FENCE_LINES: tuple[str, ...] = ("x = 1", "print('hi')", "", "  indented", "# comment")

#: Harmony header parts (R-HARMONY-2). Roles other than `assistant` hide their message
#: (a tool's reply carries its own `to=assistant`); channels are `final`, `commentary`
#: (a preamble without a recipient) and hidden ones; None: no channel at all.
HARMONY_ROLES: tuple[str, ...] = (
    "assistant", "Assistant", "user", "system", "developer", "functions.get_weather to=assistant",
)
HARMONY_CHANNELS: tuple[str | None, ...] = (
    None, "final", "analysis", "commentary", "FINAL", "summary",
)
HARMONY_RECIPIENTS: tuple[str | None, ...] = (
    None, "functions.web_search", "functions.get_current_weather", "browser.search", "python",
)
HARMONY_CONSTRAINS: tuple[str, ...] = ("", " <|constrain|>json", "<|constrain|>json", " json",
                                       " code")


def _custom(*pairs: tuple[str, str] | str) -> tuple[CustomDelimiter, ...]:
    return tuple(CustomDelimiter(marker=p) if isinstance(p, str) else CustomDelimiter(*p)
                 for p in pairs)


#: Caller-configured delimiter sets (R-CUSTOM-1/2): regex metacharacters, one character,
#: sharing an open or a close with the default family, a marker. None of them can be
#: formed by the answer stocks, and each fits every feature (a test checks both).
CUSTOM_SETS: tuple[tuple[CustomDelimiter, ...], ...] = (
    _custom(("<reflect>", "</reflect>")),
    _custom(("{{.*}}", "{{/.*}}"), ("^[r]$", "^[/r]$")),
    _custom(("\u00a7", "\u00b6")),
    _custom(("<think>", "</reflect>")),
    _custom(("<reflect>", "</think>"), "@@answer@@"),
    _custom(("<a<b>", "</a<b>"), ("\u00ab", "\u00bb")),
    # a control character inside a tag, and names that start with a capital letter
    _custom(("<<\tplan>>", "<</plan>>"), ("BEGIN_THOUGHT", "END_THOUGHT")),
)


def lookalikes(name: str) -> tuple[str, ...]:
    """Every lookalike of the family name `name` that cannot join a later character
    into a tag: shapes ending in a partial tag get a space after them."""
    out = []
    for shape in LOOKALIKE_SHAPES:
        text = shape.format(n=name)
        if not text.endswith((">", "\n")):
            text += " "
        out.append(text)
    return tuple(out)


def foreign_delimiters(vocabulary: Vocabulary) -> tuple[str, ...]:
    """Delimiters of features the stream does not enable: literal text (R-VOCAB-4).

    None in a format's class: another format's delimiter would put the stream beyond
    the class (SPEC section 12), where it judges nothing."""
    if vocabulary.conformance_class != GENERIC:
        return ()
    out: list[str] = []
    for feature in FEATURES.values():
        if feature.name in vocabulary.features:
            continue
        # a text an enabled feature shares (`<|end|>`) is a tag, not a foreign delimiter
        out.extend(t.text for t in feature_tags(feature) if vocabulary.lookup(t.text) is None)
    return tuple(dict.fromkeys(out))


def answer_literals(vocabulary: Vocabulary) -> tuple[str, ...]:
    """Text that looks like a tag but is answer text under `vocabulary` (no code needed)."""
    out: list[str] = []
    for name in FAMILY_NAMES:
        out.extend(lookalikes(name))
    out.extend(NON_ASCII_CASE)
    out.extend(d + " " for d in foreign_delimiters(vocabulary))
    return tuple(out)


def case_variant(text: str, style: int) -> str:
    """`text` in another ASCII case (R-VOCAB-1): 0 as is, 1 upper, 2 title, 3 alternating."""
    if style == 1:
        return "".join(c.upper() if c.isascii() else c for c in text)
    if style == 2:
        out, after_letter = [], False
        for c in text:
            letter = c.isascii() and c.isalpha()
            out.append((c.lower() if after_letter else c.upper()) if letter else c)
            after_letter = letter
        return "".join(out)
    if style == 3:
        return "".join(c.upper() if c.isascii() and i % 2 else c.lower() if c.isascii() else c
                       for i, c in enumerate(text))
    return text
