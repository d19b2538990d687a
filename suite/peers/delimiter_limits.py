"""What of SPEC R-CUSTOM-1's caller delimiters a peer's package can be configured with.

Read from a manifest's `[delimiters]` table (peers.manifest); a stream whose caller
delimiters the package cannot take is UNSUPPORTED for it, never run with part of them.
"""

from __future__ import annotations

from dataclasses import dataclass

from scrubcheck.vocabulary import CustomDelimiter

#: how a package takes a caller's pair: any two texts, or a tag name N it writes as <N>, </N>
DELIMITER_FORMS = ("text", "<NAME>")


@dataclass(frozen=True)
class DelimiterLimits:
    """What of SPEC R-CUSTOM-1's `delimiters` a package's users can configure.

    Real scrubbers take one pair (pydantic-ai `thinking_tags`), or only a tag name
    (AI SDK 6 `tagName`), and no markers. A stream whose caller delimiters the package
    cannot be configured with is UNSUPPORTED for it, never run with part of them: a
    dropped pair would be judged as the package's leak.
    """

    pairs: int | None = None  # most pairs at once; None: any number
    markers: int | None = None  # most markers at once; None: any number
    form: str = "text"  # one of DELIMITER_FORMS

    def refusal(self, delimiters: tuple[CustomDelimiter, ...]) -> str | None:
        """Why `delimiters` cannot be configured in the package, or None when they can."""
        pairs = [d for d in delimiters if not d.marker]
        markers = len(delimiters) - len(pairs)
        if self.pairs is not None and len(pairs) > self.pairs:
            return (f"its users can configure {_limit(self.pairs, 'pair')}, this stream's "
                    f"delimiters have {len(pairs)}")
        if self.markers is not None and markers > self.markers:
            return (f"its users can configure {_limit(self.markers, 'marker')}, this stream's "
                    f"delimiters have {markers}")
        if self.form == "<NAME>":
            for pair in pairs:
                name = pair.open[1:-1]
                if not (pair.open == f"<{name}>" and pair.close == f"</{name}>" and name):
                    return (f"it takes a tag name N and matches <N> and </N>; the pair "
                            f"{pair.open!r} {pair.close!r} is not of that form")
        return None

    def describe(self) -> str:
        parts = [_limit(limit, noun) for limit, noun in ((self.pairs, "pair"),
                                                           (self.markers, "marker"))
                 if limit is not None]
        if self.form == "<NAME>":
            parts.append("pairs of the form <N> and </N> only (it takes a tag name)")
        return ", ".join(parts)


def _limit(most: int, noun: str) -> str:
    """'no markers', 'at most 1 pair', 'at most 2 pairs'."""
    return f"at most {most} {noun}{'' if most == 1 else 's'}" if most else f"no {noun}s"
