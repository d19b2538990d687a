"""A stream and an output as HTML: each delta boxed, delimiters and leaked text marked.

The delimiters are found in the whole stream (the scenario's own vocabulary: the
default family, its features, the caller's pairs), then drawn across the delta
boxes, so a tag split over three deltas shows as three marked pieces: exactly the
shape a scrubber has to survive. Line breaks, tabs and other invisible characters
are shown as marks (the report's legend), and everything is escaped.
"""

from __future__ import annotations

from scrubcheck.model import Scenario
from scrubcheck.reports.htmlpage import text
from scrubcheck.vocabulary import DelimiterError, build_vocabulary, fold

#: deltas drawn per stream on a page (the long-input families have tens of thousands)
MAX_DELTAS = 400
MAX_CHARS = 20_000
_SHOWN = {"\n": "¶\n", "\t": "→", "\r": "←"}


def delimiter_spans(joined: str, scenario: Scenario | None) -> list[tuple[int, int]]:
    """(start, end) of every delimiter in `joined`, longest match first, left to right."""
    try:
        vocabulary = build_vocabulary(scenario.context.features if scenario else (),
                                      scenario.context.delimiters if scenario else ())
    except (KeyError, DelimiterError):
        vocabulary = build_vocabulary()
    tags = sorted(vocabulary.by_folded, key=len, reverse=True)
    folded = fold(joined)
    spans = []
    index = 0
    while index < len(folded):
        hit = next((t for t in tags if folded.startswith(t, index)), None)
        if hit:
            spans.append((index, index + len(hit)))
            index += len(hit)
        else:
            index += 1
    return spans


def _marked(piece: str, offset: int, spans: list[tuple[int, int]], css: str) -> str:
    """`piece` (starting at `offset` in its whole text), escaped, the parts inside
    `spans` wrapped in <mark class=css>."""
    out = []
    position = offset
    end = offset + len(piece)
    for start, stop in spans:
        if stop <= position or start >= end:
            continue
        if start > position:
            out.append(_visible(piece[position - offset:start - offset]))
            position = start
        cut = min(stop, end)
        out.append(f'<mark class="{css}">{_visible(piece[position - offset:cut - offset])}'
                   "</mark>")
        position = cut
    out.append(_visible(piece[position - offset:]))
    return "".join(out)


def _visible(piece: str) -> str:
    out = []
    for char in piece:
        shown = _SHOWN.get(char)
        if shown is not None:
            out.append(f'<span class="ws">{text(shown[0])}</span>{shown[1:]}')
        else:
            out.append(text(char))
    return "".join(out)


def deltas_html(deltas: list[str] | tuple[str, ...], scenario: Scenario | None,
                cut: int = 0) -> str:
    """The stream delta by delta, numbered, its delimiters marked; `cut` deltas already
    left out upstream are said, as are any this page leaves out."""
    shown: list[str] = []
    chars = 0
    for delta in deltas:
        if len(shown) >= MAX_DELTAS or chars >= MAX_CHARS:
            break
        shown.append(delta)
        chars += len(delta)
    spans = delimiter_spans("".join(shown), scenario)
    boxes = []
    offset = 0
    for number, delta in enumerate(shown):
        body = _marked(delta, offset, spans, "delim") if delta else '<span class="ws">∅</span>'
        boxes.append(f'<span class="delta"><sup>{number}</sup>{body}</span>')
        offset += len(delta)
    left = len(deltas) - len(shown) + cut
    note = (f'<p class="muted">… {left} more deltas not shown.</p>' if left else "")
    return (f'<div class="deltas" aria-label="stream, {len(deltas) + cut} deltas">'
            f'{"".join(boxes)}</div>{note}')


def output_html(got: str | None, leak: list[int] | None) -> str:
    """What the implementation printed, the leaked reasoning in <mark class="leaked">."""
    if got is None:
        return '<span class="muted">no output (it raised or gave no text)</span>'
    if not got:
        return '<span class="muted">(empty)</span>'
    spans = [(leak[0], leak[1])] if leak and 0 <= leak[0] < leak[1] <= len(got) else []
    limit = max(MAX_CHARS, spans[0][1] + 200) if spans else MAX_CHARS
    more = (f'<p class="muted">… {len(got) - limit} more characters not shown.</p>'
            if len(got) > limit else "")
    return f'<pre class="out">{_marked(got[:limit], 0, spans, "leaked")}</pre>{more}'
