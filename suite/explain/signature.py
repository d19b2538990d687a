"""The signature of a bug: the wrong decision on a smallest stream, abstracted.

Two failures are one root cause when their smallest streams show the same wrong
decision (`difference.Effect`) about the same kind of piece, under the same delta
boundaries and the same context. "The same kind" is decided by asking the
implementation, not by a table: on the smallest stream, each particular the signature
could name is varied and the stream run again (`probe`):

- a delimiter's letter case: spelled as the vocabulary spells it instead. Still wrong:
  the case does not matter, the signature does not name it;
- its format: the default family's delimiter of the same role instead;
- its role: the other role of its pair (an open for a close);
- a block's ending: a closed block left open, an unclosed one closed;
- a boundary inside a delimiter: every other split position tried; the signature
  names the positions that fail ("after its 8th character or later").

So `<reasoning>` and `<think>`, `u` and `x`, a split after the third or the fourth
character read alike when the implementation treats them alike, and apart when it
does not. What stays is what the bug needs: it is a few words, and the root cause's
name is made from them (`Signature.name`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from scrubcheck.adapters import Adapter
from scrubcheck.explain.difference import Did, Effect
from scrubcheck.explain.pieces import Part, Pieces, case_of, family, read_pieces, role
from scrubcheck.explain.trial import Candidate, Seen, Trial, observe
from scrubcheck.model import Context
from scrubcheck.vocabulary import (
    FAMILY_NAMES,
    FEATURES,
    GENERIC,
    Tag,
    TagKind,
    default_tags,
    feature_tags,
    fold,
)

#: the piece of an open delimiter shown only while its block is never closed
UNCLOSED_OPEN = "open (never closed)"
#: pieces that stand for several others (a probe widened them)
WIDER = {"any delimiter": ("open", "close"),
         "a block, closed or not": ("an unclosed block", "a closed block")}


@dataclass(frozen=True, order=True)
class Signature:
    """What one root cause is: equal signatures are one bug."""

    did: Did
    piece: str = ""  # a delimiter's role, a block's situation, the text dropped
    family: str = ""  # a delimiter's format, when the bug is particular to it
    case: str = ""  # a delimiter's letter case, when the bug is particular to it
    boundary: str = ""  # what the delta boundaries must do
    needs: tuple[str, ...] = ()  # what else the smallest stream must hold
    context: tuple[str, ...] = ()  # the settings the bug needs

    @property
    def kind(self) -> str:
        return self.did.kind

    def covers(self, other: Signature) -> bool:
        """Whether `other` is this wrong decision in a narrower case: the same decision
        about the same piece (or one this piece widens to), needing no less. Such a
        signature adds no bug of its own: its streams hold more than this one needs."""
        if self == other or self.did is not other.did:
            return False
        same_piece = self.piece == other.piece or other.piece in WIDER.get(self.piece, ())
        return (same_piece and self.family in ("", other.family)
                and self.case in ("", other.case) and self.boundary in ("", other.boundary)
                and set(self.needs) <= set(other.needs)
                and set(self.context) <= set(other.context))

    def name(self) -> str:
        """The root cause in one line of words."""
        what = {
            Did.SHOWS_DELIMITER: f"{self._delimiter()} is shown",
            Did.SHOWS_REASONING: f"the reasoning of {self.piece or 'a block'} is shown",
            Did.DROPS_ANSWER: self._dropped(),
            Did.DROPS_LITERAL: f"{self._delimiter()}'s text that SPEC keeps literal "
                               "is dropped",
            Did.DROPS_SPACE: "white space of the answer is dropped or added",
            Did.CHANGES_TEXT: "answer text is changed into text that is not in the stream",
            Did.ADDS_TEXT: ("answer text is repeated" if self.piece == "a repeat of answer text"
                            else "text that is not in the stream is added"),
            Did.HOLDS_BACK: "decided text is held back",
            Did.MISSES_DELIMITER: f"{self._delimiter()} is not recognised (it is shown, "
                                  "or the answer after it is dropped)"
                                  + (f" {self.boundary}" if self.boundary else ""),
            Did.MISHANDLES_DELTA: f"{self.piece} is mishandled (the text around it comes "
                                  "out wrong)",
            Did.CHANGES_ON_SECOND_PASS: f"a second pass over the output changes it "
                                        f"({self.piece})",
            Did.DIFFERS_AFTER_REUSE: f"a session reused after {self.piece} gives another "
                                     "output than a fresh one",
            Did.RETURNS_WRONG_TYPE: f"returns {self.piece}",
            Did.RAISES: f"raises {self.piece}",
            Did.HANGS: f"does not finish in time ({self.piece})",
            Did.ERRORS: f"cannot be judged ({self.piece})",
            Did.NOTHING: f"fails {self.piece} with no difference in its output",
        }[self.did]
        where = [self.boundary] if self.boundary and self.did is not Did.MISSES_DELIMITER \
            else []
        where += [f"in {need}" if need == "code" else f"with {need}" for need in self.needs]
        where += [f"when {setting}" for setting in self.context
                  if not (self.piece == "a pre-filled block" and "pre-filled" in setting)]
        return what + (" " + ", ".join(where) if where else "")

    def _dropped(self) -> str:
        """'answer text is dropped', or 'the answer after a close delimiter in another
        letter case than the vocabulary's is dropped'."""
        if not self.piece.startswith(("answer text after ", "answer text before ")):
            return "answer text is dropped"
        side, _, what = self.piece.removeprefix("answer text ").partition(" ")
        article = "an" if what[0] in "aeiou" else "a"
        case = " in another letter case than the vocabulary's" if self.case else ""
        return f"the answer {side} {article} {what}{case} is dropped"

    def _delimiter(self) -> str:
        """The delimiter concerned in words: 'an open delimiter', 'a harmony marker
        delimiter', 'an enabled feature's delimiter in another letter case'."""
        words = []
        if self.family == "enabled feature":
            words.append("an enabled feature's")
        elif self.family and self.family != "any format":
            words.append(self.family)
        if self.piece and self.piece not in ("delimiter", "any delimiter", UNCLOSED_OPEN):
            words.append(self.piece)
        words.append("open delimiter whose block is never closed" if self.piece == UNCLOSED_OPEN
                     else "delimiter")
        text = " ".join(words)
        if not text.startswith("an enabled"):
            text = ("an " if text[0] in "aeiou" else "a ") + text
        if self.case:
            text += " in another letter case than the vocabulary's"
        return text


_STRUCTURE = (("`", "a backtick"), ("\n", "a line feed"), ("~~~", "a tilde fence"))


def context_words(context: Context) -> tuple[str, ...]:
    """The settings of `context` that differ from the default, in words."""
    words = []
    if context.starts_in_reasoning:
        words.append("the template pre-filled the open (starts_in_reasoning)")
    if context.inline_answer:
        words.append("inline_answer is set")
    if context.finish_reason != "stop":  # length, a content filter, tool calls alike
        words.append("the stream ends with a finish_reason other than stop")
    if context.may_skip_reasoning:
        words.append("may_skip_reasoning is set")
    if context.delimiters:
        words.append("the caller configures delimiters")
    return tuple(words)


def _swap(candidate: Candidate, start: int, end: int, new: str) -> Candidate:
    """The candidate with text[start:end] replaced by `new`; a boundary inside keeps its
    offset from `start` (clipped), the ones after move with the text."""
    grow = len(new) - (end - start)
    cuts = []
    for cut in candidate.cuts:
        if cut <= start:
            cuts.append(cut)
        elif cut >= end:
            cuts.append(cut + grow)
        else:
            cuts.append(start + max(1, min(len(new) - 1, cut - start)))
    return replace(candidate, text=candidate.text[:start] + new + candidate.text[end:],
                   cuts=tuple(sorted(cuts)))


#: the default family's longest name: a canonical delimiter at least as long as most,
#: so that a bug that needs a long delimiter (a split after its eighth character) still
#: shows on it
CANONICAL = max(FAMILY_NAMES, key=len)


def _default_counterpart(tag: Tag, kind: TagKind | None = None, like: str = "") -> str:
    """The default family's delimiter of `kind` (the tag's own by default), spelled as
    the vocabulary spells it when `like` spells `tag` so, in another case when not."""
    kind = kind or tag.kind
    text = f"</{CANONICAL}>" if kind is TagKind.CLOSE else f"<{CANONICAL}>"
    return case_like(text, like, tag.text) if like else text


def case_like(text: str, raw: str, spelled: str) -> str:
    """`text` as far from its own spelling as `raw` is from `spelled`: as spelled when
    `raw` is, else in `raw`'s style, else in any other case (so that a probe keeps a
    delimiter's letter case wrong when the original's was)."""
    if raw == spelled:
        return text
    for variant in (styled(text, raw), text.upper(), styled(text, "Aa"), text.lower()):
        if variant != text:
            return variant
    return text


def styled(text: str, like: str) -> str:
    """`text` in the letter case of `like`: upper, lower, or alternating when mixed."""
    letters = [c for c in like if c.isalpha()]
    if not letters or like == like.lower():
        return text
    if like == like.upper():
        return text.upper()
    out, upper = [], True
    for char in text:
        if char.isalpha():
            out.append(char.upper() if upper else char.lower())
            upper = not upper
        else:
            out.append(char)
    return "".join(out)


def _partner(pieces: Pieces, tag: Tag) -> str | None:
    """The other role of `tag`'s pair in the active vocabulary (open for a close)."""
    wanted = TagKind.CLOSE if tag.kind is TagKind.OPEN else TagKind.OPEN
    vocabulary = pieces.context.vocabulary()
    for other in vocabulary.tags:
        if other.kind is wanted and other.names & tag.names:
            return other.text
    return None


#: a stream longer than this is not probed (a shrink stopped by its time limit leaves
#: one): each probe costs a run of it, and its signature is not trusted anyway
PROBED = 2_000


class _Prober:
    def __init__(self, adapter: Adapter, trial: Trial, seen: Seen) -> None:
        self.adapter, self.trial, self.seen = adapter, trial, seen

    def still(self, candidate: Candidate) -> bool:
        """Whether the implementation makes the same wrong decision on `candidate`."""
        if len(candidate.text) > PROBED:
            return False
        try:
            got = observe(self.adapter, self.trial, candidate).effect
        except Exception:  # a probe the harness cannot read is no evidence either way
            return False
        return got.did.same(self.seen.effect.did)


def signature_of(adapter: Adapter, trial: Trial, candidate: Candidate, seen: Seen,
                 check: str) -> tuple[Signature, Candidate]:
    """The signature of the wrong decision `seen` on the smallest `candidate`, and the
    stream it was read on (the candidate told with the default family, when that shows
    the same decision)."""
    return _signature(adapter, trial, candidate, seen, check)


def _signature(adapter: Adapter, trial: Trial, candidate: Candidate, seen: Seen,
               check: str) -> tuple[Signature, Candidate]:
    effect = seen.effect
    prober = _Prober(adapter, trial, seen)
    if effect.did in (Did.RAISES, Did.RETURNS_WRONG_TYPE, Did.CHANGES_ON_SECOND_PASS,
                      Did.DIFFERS_AFTER_REUSE, Did.HOLDS_BACK):
        pieces = read_pieces(candidate.text, candidate.context)
        return replace(_base(effect, candidate), piece=effect.situation,
                       boundary=_boundary(candidate, pieces, -1)), candidate
    if effect.did is Did.NOTHING:
        return replace(_base(effect, candidate), piece=f"the {check} check"), candidate
    delta = _essential_delta(prober, candidate) if len(candidate.text) <= PROBED else ""
    if delta:
        return Signature(Did.MISHANDLES_DELTA, piece=delta,
                         context=_needed_settings(candidate, prober)), candidate
    pieces = read_pieces(candidate.text, candidate.context)
    family_name = _family_at(pieces, effect)
    canon = _canonical(candidate, pieces)
    if canon is not None and prober.still(canon):
        # the default family's delimiters, no pre-fill: the same wrong decision, so the
        # format and the pre-fill are not what the bug is about
        candidate, family_name = canon, ""
        effect = observe(adapter, trial, candidate).effect
        pieces = read_pieces(candidate.text, candidate.context)
    base = _base(effect, candidate, prober)
    if effect.did in (Did.SHOWS_DELIMITER, Did.DROPS_LITERAL) and effect.label is not None \
            and effect.label.tag is not None:
        return _delimiter_signature(base, prober, candidate, pieces, effect,
                                    family_name), candidate
    if effect.did is Did.SHOWS_REASONING:
        return replace(base, piece=_situation(prober, candidate, pieces, effect),
                       family=family_name, boundary=_boundary(candidate, pieces, -1)), candidate
    if effect.did is Did.DROPS_SPACE:  # the white space dropped is the subject, not a need
        base = replace(base, needs=tuple(n for n in base.needs if n != "a line feed"))
    if effect.did is Did.DROPS_SPACE and _letters_dropped_too(prober, candidate, pieces):
        effect = replace(effect, did=Did.DROPS_ANSWER)
        base = replace(base, did=Did.DROPS_ANSWER)
    if effect.did is Did.DROPS_ANSWER:
        return _dropped_after(base, prober, candidate, pieces, effect, family_name), candidate
    return replace(base, piece=effect.situation or effect.did.value, family=family_name,
                   boundary=_boundary(candidate, pieces, -1)), candidate


def _letters_dropped_too(prober: _Prober, candidate: Candidate, pieces: Pieces) -> bool:
    """Whether the answer's white space, made letters, is dropped all the same: then the
    bug drops answer text, white space or not."""
    text = "".join("x" if c.isspace() and label.part is Part.ANSWER else c
                   for c, label in zip(candidate.text, pieces.labels, strict=True))
    return text != candidate.text and prober.still(replace(candidate, text=text))


def _dropped_after(base: Signature, prober: _Prober, candidate: Candidate, pieces: Pieces,
                   effect: Effect, family_name: str) -> Signature:
    """Answer text dropped, said with the delimiter right before it when the stream has
    one (the answer after a close the implementation did not see), its letter case
    kept only when the vocabulary's spelling takes the drop away."""
    boundary = _boundary(candidate, pieces, -1)
    before = next((k for k in range(effect.at - 1, -1, -1)
                   if pieces.labels[k].part is Part.DELIMITER), None)
    side = "after"
    if before is None:  # the answer before a delimiter, then (an orphan close read as
        side = "before"  # the end of a pre-fill)
        before = next((k for k in range(effect.at + 1, len(pieces.labels))
                       if pieces.labels[k].part is Part.DELIMITER), None)
    if before is None:
        return replace(base, piece="answer text", family=family_name, boundary=boundary)
    label = pieces.labels[before]
    assert label.tag is not None
    start, end = pieces.delimiter_span(before)
    text, cuts = ((candidate.text[end:], tuple(c - end for c in candidate.cuts if c > end))
                  if side == "after" else
                  (candidate.text[:start], tuple(c for c in candidate.cuts if c < start)))
    alone = Candidate(text, cuts, Context(conformance_class=candidate.context.conformance_class))
    if alone.text and prober.still(alone):  # dropped without the delimiter too
        return replace(base, piece="answer text", family=family_name, boundary=boundary)
    case = ""
    # the delimiter whose letter case the drop needs: this one, or one before it
    for k in range(before, -1, -1):
        other = pieces.labels[k]
        if other.part is not Part.DELIMITER or other.tag is None or (
                k > 0 and pieces.labels[k - 1].start == other.start
                and pieces.labels[k - 1].part is Part.DELIMITER):
            continue
        first, last = pieces.delimiter_span(k)
        if case_of(candidate.text[first:last], other.tag) != "as spelled" and not \
                prober.still(_swap(candidate, first, last, other.tag.text)):
            case = "other letter case"
            break
    if family_name not in ("", "custom") and candidate.context.conformance_class == GENERIC \
            and _every_feature(prober, candidate, start, end, label.tag):
        family_name = "enabled feature"
    if any(start < c < end for c in candidate.cuts):
        outside = tuple(c for c in candidate.cuts if not start < c < end)
        failing = [k for k in range(1, end - start) if prober.still(
            replace(candidate, cuts=tuple(sorted((*outside, start + k)))))]
        boundary = "when a delta boundary splits it " + _where(failing, end - start) \
            if failing else "when a delta boundary splits it"
    return replace(base, piece=f"answer text {side} {role(label.tag)} delimiter"
                   if side == "before" else "answer text after delimiter",
                   family=family_name, case=case, boundary=boundary)


#: deltas whose kind a bug can be about, in words
_DELTA_KINDS = (("an empty delta", lambda d: d == ""),
                ("a delta that holds only white space", lambda d: d != "" and d.isspace()))


def _essential_delta(prober: _Prober, candidate: Candidate) -> str:
    """The kind of delta the wrong decision needs, when it needs one: a delta of that
    kind (empty, or only white space) that, joined to the one before it, takes the wrong
    decision away. Whatever the stream then shows is its consequence (a delimiter whose
    inner space went missing, reasoning run together with the answer), so the decision
    is about the delta."""
    deltas = candidate.deltas
    points = (0, *candidate.cuts)
    for words, test in _DELTA_KINDS:
        for index, delta in enumerate(deltas):
            if not test(delta):
                continue
            # a letter at its start makes it another kind of delta
            start = points[index]
            lettered = replace(candidate, text=candidate.text[:start] + "x"
                               + candidate.text[start:],
                               cuts=tuple(c + (c > start or (c == start and i >= index))
                                          for i, c in enumerate(candidate.cuts)))
            if not prober.still(lettered):
                return words
            if len(deltas) > 1:  # or joined to its neighbour
                cut = index - 1 if index > 0 else 0
                joined = replace(candidate,
                                 cuts=candidate.cuts[:cut] + candidate.cuts[cut + 1:])
                if not prober.still(joined):
                    return words
    return ""


def _base(effect: Effect, candidate: Candidate, prober: _Prober | None = None) -> Signature:
    """The effect with what the stream must hold for it: each structural mark (a
    backtick, a line feed, a tilde fence) whose removal, everywhere at once, makes the
    wrong decision go away."""
    needs = []
    for mark, words in _STRUCTURE:
        if mark not in candidate.text:
            continue
        plain = replace(candidate, text=candidate.text.replace(mark, "x" * len(mark)))
        if prober is None or not (prober.still(plain) or prober.still(
                replace(candidate, text=candidate.text.replace(mark, ""), cuts=()))):
            needs.append(words)
    return Signature(effect.did, needs=tuple(needs),
                     context=_needed_settings(candidate, prober))


def _needed_settings(candidate: Candidate, prober: _Prober | None) -> tuple[str, ...]:
    """The settings of the candidate's context that the wrong decision needs: each one
    not at its default, tried at its default."""
    context = candidate.context
    default = Context(conformance_class=context.conformance_class)
    needed = []
    for name in ("starts_in_reasoning", "inline_answer", "finish_reason",
                 "may_skip_reasoning", "delimiters"):
        if getattr(context, name) == getattr(default, name):
            continue
        simpler = replace(candidate, context=replace(context, **{name: getattr(default, name)}))
        if prober is None or not prober.still(simpler):
            needed.append(name)
    kept = replace(context, **{f: getattr(default, f) for f in
                               ("starts_in_reasoning", "inline_answer", "finish_reason",
                                "may_skip_reasoning", "delimiters") if f not in needed})
    return context_words(kept)


def _family_at(pieces: Pieces, effect: Effect) -> str:
    """The format of the delimiter concerned, or of the block the reasoning stood in
    ('' for the default family, and for the format of the class the stream is judged
    in: there it is every delimiter's)."""
    name = _own_family(pieces, effect)
    return "" if name == pieces.context.conformance_class else name


def _own_family(pieces: Pieces, effect: Effect) -> str:
    label = effect.label
    if label is not None and label.tag is not None:
        name = family(label.tag)
        return "" if name == "default" else name
    if effect.at >= 0:
        before = next((pieces.labels[k] for k in range(effect.at - 1, -1, -1)
                       if pieces.labels[k].part is Part.DELIMITER), None)
        if before is not None and before.tag is not None:
            name = family(before.tag)
            return "" if name == "default" else name
    return ""


def _canonical(candidate: Candidate, pieces: Pieces) -> Candidate | None:
    """The candidate told with the default family: every other delimiter replaced by
    `<think>` or `</think>` by its role (a marker, removed alone, as an orphan close; a
    header's close dropped), a
    pre-filled open written out, the features and the caller's delimiters off. None when
    there is nothing to rewrite, or the stream is judged in a format's own class."""
    context = candidate.context
    if context.conformance_class != GENERIC:
        return _prefill_written_out(candidate, pieces)
    text, labels = candidate.text, pieces.labels
    parts: list[tuple[int, int, str]] = []  # (start, end, replacement)
    k = 0
    while k < len(text):
        label = labels[k]
        if label.part is Part.DELIMITER and label.tag is not None \
                and family(label.tag) != "default":
            start, end = pieces.delimiter_span(k)
            tag, raw = label.tag, text[start:end]
            if tag.kind is TagKind.OPEN:
                new = _default_counterpart(tag, TagKind.OPEN, raw)
            elif tag.header:
                new = ""  # a header's close: what follows is the message it heads
            else:  # a close, or a marker: removed alone, as an orphan close is
                new = _default_counterpart(tag, TagKind.CLOSE, raw)
            parts.append((start, end, new))
            k = end
        else:
            k += 1
    if not parts and not context.starts_in_reasoning and not context.delimiters \
            and not context.features:
        return None
    canon = candidate
    for start, end, new in reversed(parts):
        canon = _swap(canon, start, end, new)
    simple = replace(context, features=(), delimiters=(), starts_in_reasoning=False)
    canon = replace(canon, context=simple)
    if context.starts_in_reasoning:
        opener = _default_counterpart(Tag("", TagKind.OPEN, frozenset()), TagKind.OPEN)
        canon = replace(canon, text=opener + canon.text,
                        cuts=tuple(c + len(opener) for c in canon.cuts))
    return canon if canon != candidate else None


def _prefill_written_out(candidate: Candidate, pieces: Pieces) -> Candidate | None:
    """Within a format's class, the one rewrite that keeps the class: a pre-filled open
    written out as the class's own reasoning open, so that a block the template opened
    and one the model opened read alike when the implementation treats them alike.
    None when nothing was pre-filled or the class has no plain reasoning open."""
    context = candidate.context
    if not context.starts_in_reasoning:
        return None
    opener = next((tag.text for tag in pieces.context.vocabulary().tags
                   if tag.kind is TagKind.OPEN and not tag.header and not tag.ends
                   and _partner(pieces, tag) is not None), None)
    if opener is None:
        return None
    return Candidate(opener + candidate.text, tuple(c + len(opener) for c in candidate.cuts),
                     replace(context, starts_in_reasoning=False))


def _delimiter_signature(base: Signature, prober: _Prober, candidate: Candidate,
                         pieces: Pieces, effect: Effect, fam: str) -> Signature:
    label = effect.label
    assert label is not None and label.tag is not None
    tag = label.tag
    start, end = pieces.delimiter_span(effect.at)
    spliced = end - start != len(label.raw)
    raw = candidate.text[start:end]
    case, piece = case_of(raw, tag), role(tag)
    if fam == "custom":  # the caller's delimiters: whether they are honoured at all
        piece = "any delimiter"
    boundary = _boundary(candidate, pieces, effect.at)
    if spliced:  # the splice is the bug, whichever delimiter it forms (and its settings)
        return replace(base, piece="any delimiter", family="",
                       context=(), boundary="spliced from the text around a removed piece")
    if case == "as spelled" or prober.still(_swap(candidate, start, end, tag.text)):
        case = ""
    else:  # upper and mixed case alike: not the vocabulary's spelling
        case = "other letter case"
    partner = _partner(pieces, tag)
    if partner is not None and tag.kind in (TagKind.OPEN, TagKind.CLOSE) and prober.still(
            _swap(candidate, start, end, case_like(partner, raw, tag.text))):
        piece = "any delimiter"
    elif partner is not None and tag.kind is TagKind.OPEN and not any(
            label.part is Part.DELIMITER and label.tag is not None
            and label.tag.kind is TagKind.CLOSE for label in pieces.labels[end:]) \
            and not prober.still(replace(candidate, text=candidate.text + "\n" + partner)):
        piece = UNCLOSED_OPEN  # closed, it is removed: the bug is about the open block
    if fam not in ("", "custom") and candidate.context.conformance_class == GENERIC \
            and _every_feature(prober, candidate, start, end, tag):
        fam, case, piece = "enabled feature", "", "any delimiter"
    if boundary == "split inside the delimiter":
        boundary = _split_positions(prober, candidate, start, end, tag)
    signature = replace(base, piece=piece, family=fam, case=case, boundary=boundary)
    if effect.did is Did.DROPS_LITERAL:
        # literal text is literal for standing in code: the kind of code and the role
        # the text would have outside it are the stream's, not the decision's
        rest = tuple(n for n in signature.needs if n not in ("a backtick", "a tilde fence"))
        signature = replace(signature, piece="any delimiter", needs=("code",) + rest)
    return signature


#: the default family's delimiters, folded
_DEFAULT = frozenset(fold(t.text) for t in default_tags())
#: the share of the other feature formats that must show the same wrong decision for a
#: bug to be about the features and not one format
SWEEP_SHARE = 0.75


def _every_feature(prober: _Prober, candidate: Candidate, start: int, end: int,
                   tag: Tag) -> bool:
    """Whether the same wrong decision shows with the delimiter of the same kind of
    every other feature format, that feature enabled: then the bug is not about one
    format but about the features (an implementation that ignores them all)."""
    tried = failed = 0
    raw = candidate.text[start:end]
    for name, feature in FEATURES.items():
        if name in candidate.context.features:
            continue
        # its own delimiter of that kind: one the default family also spells says
        # nothing of how features are handled
        other = next((t for t in feature_tags(feature) if t.kind is tag.kind
                      and fold(t.text) not in _DEFAULT), None)
        if other is None:
            continue
        probe = _swap(replace(candidate, context=replace(candidate.context, features=(name,))),
                      start, end, case_like(other.text, raw, tag.text))
        tried += 1
        failed += prober.still(probe)
    # most of them: a feature or two that spells a delimiter as the default family does
    # is handled by an implementation that knows only that family
    return tried > 0 and failed >= SWEEP_SHARE * tried


def _split_positions(prober: _Prober, candidate: Candidate, start: int, end: int,
                     tag: Tag) -> str:
    """Where a boundary inside the delimiter makes it fail, in words, asked on the
    delimiter alone (what stood around it in the smallest stream may shift the positions
    a bug needs): first the smallest stream's own delimiter, then the default family's
    longest, each in its letter case."""
    raw = candidate.text[start:end]
    texts = [raw]
    if candidate.context.conformance_class == GENERIC:
        texts.append(_default_counterpart(tag, like=raw))
    for text in texts:
        failing = [k for k in range(1, len(text))
                   if prober.still(Candidate(text, (k,), candidate.context))]
        if failing:
            return "when a delta boundary splits it " + _where(failing, len(text))
    return "when a delta boundary splits it"


def _where(failing: list[int], size: int) -> str:
    """Which split positions of a delimiter of `size` characters fail, in words that do
    not depend on its length."""
    if len(failing) == size - 1:
        return "anywhere"
    if failing == list(range(failing[0], size)):
        return "after its first characters"
    if failing == list(range(1, failing[-1] + 1)):
        return "within its first characters"
    return "at some positions only"


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _boundary(candidate: Candidate, pieces: Pieces, at: int) -> str:
    """What the smallest stream's delta boundaries do, in words ('' when it is one
    delta)."""
    if not candidate.cuts:
        return ""
    if at >= 0 and pieces.labels[at].part is Part.DELIMITER:
        start, end = pieces.delimiter_span(at)
        if any(start < c < end for c in candidate.cuts):
            return "split inside the delimiter"
    if len(set(candidate.cuts)) < len(candidate.cuts) or any(
            c in (0, len(candidate.text)) for c in candidate.cuts):
        return "when a delta is empty"
    for cut in candidate.cuts:
        if 0 < cut < len(candidate.text) and pieces.labels[cut].part is Part.DELIMITER \
                and pieces.labels[cut - 1].part is Part.DELIMITER \
                and pieces.labels[cut].start == pieces.labels[cut - 1].start:
            return "when a delta boundary splits a delimiter"
    return "when the stream comes in more than one delta"


def _situation(prober: _Prober, candidate: Candidate, pieces: Pieces, effect: Effect) -> str:
    """Which block's reasoning shows, widened when the implementation shows it whether
    the block is closed or not."""
    situation = effect.situation
    labels = pieces.labels
    if situation == "an unclosed block":
        opener = next((labels[k] for k in range(effect.at - 1, -1, -1)
                       if labels[k].part is Part.DELIMITER), None)
        closing = _partner(pieces, opener.tag) if opener and opener.tag else None
        if closing is not None and "`" in candidate.text:
            closing = "\n" + closing  # a close on a line of its own: never in code (R-CODE-5)
        if closing is not None and prober.still(
                replace(candidate, text=candidate.text + closing)):
            return "a block, closed or not"
    elif situation == "a closed block":
        closer = next((k for k in range(effect.at + 1, len(labels))
                       if labels[k].part is Part.DELIMITER), None)
        if closer is not None:
            start, end = pieces.delimiter_span(closer)
            if prober.still(_swap(candidate, start, end, "")):
                return "a block, closed or not"
    return situation
