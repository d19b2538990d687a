"""Reading one format file: YAML with lines, the schema, then what a schema cannot say.

A format file is contributed like a corpus file and read under the same bounds (the
size limit, no anchors or aliases, bounded nesting: scrubcheck.yamlsource). Every
problem names the file and line; a file with a problem gives no format at all, since
half a vocabulary would judge streams wrongly.
"""

from __future__ import annotations

import json
import os
from dataclasses import astuple, dataclass
from functools import cache
from importlib import resources
from pathlib import Path

from jsonschema import Draft202012Validator

from scrubcheck.formats.model import (
    HARMONY_TOKENS,
    PAIR_KINDS,
    ChannelGrammar,
    Delimiter,
    Format,
    Source,
    Template,
)
from scrubcheck.schema_words import Problem, Wording, path_words, problems_of
from scrubcheck.yamlsource import (
    DEFAULT_MAX_BYTES,
    MAX_BYTES_ENV,
    LineDict,
    YamlSyntaxError,
    line_of,
    parse_yaml,
    read_text_within,
)


@dataclass(frozen=True)
class FormatError:
    """One problem of a format file, located: `file:line: message`."""

    file: str
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.message}"


@cache
def format_schema() -> dict:
    """The shipped draft 2020-12 schema of one format file."""
    text = resources.files("scrubcheck.formats").joinpath("format.schema.json").read_text("utf-8")
    return json.loads(text)


@cache
def _validator() -> Draft202012Validator:
    return Draft202012Validator(format_schema())


def _pattern(path: tuple[object, ...], value: object) -> str:
    if path and path[-1] == "url":
        return f"{path_words(path)} {value!r} is not an https:// address"
    return (f"{path_words(path, 'the format')} {value!r} is not a slug "
            "(lowercase letters and digits in words joined by single hyphens)")


def _one_of(item: object) -> str:
    return "a format file is a mapping of the keys in formats/README.md"


WORDING = Wording("a format", _pattern, _one_of)


def _limit() -> int:
    raw = os.environ.get(MAX_BYTES_ENV, "").strip()
    return int(raw) if raw.isdigit() and int(raw) > 0 else DEFAULT_MAX_BYTES


def read_format_file(path: Path) -> tuple[Format | None, list[FormatError]]:
    """The format `path` holds, or None and every problem found in it."""
    shown = str(path)
    try:
        data = parse_yaml(read_text_within(path, _limit(), "format file"), kind="format files")
    except YamlSyntaxError as exc:
        return None, [FormatError(shown, exc.line, exc.message)]
    except (OSError, ValueError) as exc:
        return None, [FormatError(shown, 0, str(exc))]
    if not isinstance(data, LineDict):
        return None, [FormatError(shown, getattr(data, "line", 1) or 1,
                                  "a format file is a mapping, one format per file")]
    problems = problems_of(_validator(), data, wording=WORDING)
    problems += [Problem((key,), f"key {key!r} given twice") for key, _ in data.repeated_keys]
    if not problems:
        problems = _semantic_problems(data, path)
    if problems:
        return None, [FormatError(shown, line_of(data, p.path, data.line), p.message)
                      for p in problems]
    return _format_of(data, shown), []


def _semantic_problems(data: LineDict, path: Path) -> list[Problem]:
    """What the schema cannot say: the file is named after its format, a delimiter text
    is used once, at most one channel grammar, and no text that the code guard reads
    (SPEC R-CUSTOM-1's rules hold for every delimiter, shipped or not)."""
    problems = []
    if path.stem != data["name"]:
        problems.append(Problem(("name",), f"the format {data['name']!r} must be in a file "
                                           f"named {data['name']}.yaml, not {path.name}"))
    grammars = [i for i, d in enumerate(data["delimiters"]) if d["kind"] == "channel-grammar"]
    if len(grammars) > 1:
        problems.append(Problem(("delimiters", grammars[1]),
                                "a format has at most one channel grammar"))
    for i in grammars:
        entry = data["delimiters"][i]
        given = (entry["start"], entry["channel"], entry["message"], entry["constrain"],
                 tuple(entry["ends"]))
        if given != astuple(HARMONY_TOKENS):
            problems.append(Problem(("delimiters", i), "a channel grammar reads headers with "
                                    "harmony's tokens (SPEC section 2a): "
                                    f"{astuple(HARMONY_TOKENS)}, not {given}"))
    seen: dict[str, tuple[int, bool]] = {}
    for i, entry in enumerate(data["delimiters"]):
        if "ends_reasoning" in entry and entry["kind"] != "tool-section":
            problems.append(Problem(("delimiters", i), "ends_reasoning belongs to a "
                                    f"tool-section, not a {entry['kind']} (SPEC R-BLOCK-5)"))
        for text in _entry_texts(entry):
            problem = _text_problem(text)
            if problem:
                problems.append(Problem(("delimiters", i), problem))
            folded = text.lower() if text.isascii() else text
            close = _reasoning_close(entry, text)
            if folded in seen and not _shared_close(entry, text) \
                    and not (close and seen[folded][1]):
                problems.append(Problem(("delimiters", i), f"{text!r} is already a delimiter "
                                        f"of this format (entry {seen[folded][0] + 1})"))
            seen.setdefault(folded, (i, close))
    return problems


def _shared_close(entry: LineDict, text: str) -> bool:
    """A grammar's message token is both header closes' (start and channel share it)."""
    return entry["kind"] == "channel-grammar" and text == entry["message"]


def _reasoning_close(entry: LineDict, text: str) -> bool:
    """A close of a reasoning pair: two pairs of one format may share one (SPEC
    R-CUSTOM-2), as two spellings of an open ended by the same phrase do."""
    if entry["kind"] not in ("pair", "special-token-pair"):
        return False
    close = entry["close"]
    return text in ([close] if isinstance(close, str) else close)


def _entry_texts(entry: LineDict) -> list[str]:
    if entry["kind"] == "channel-grammar":
        return [entry["start"], entry["channel"], entry["message"], entry["constrain"],
                *entry["ends"]]
    if entry["kind"] == "marker":
        return [entry["text"]]
    close = entry["close"]
    return [entry["open"], *([close] if isinstance(close, str) else close)]


def _text_problem(text: str) -> str | None:
    """SPEC R-CUSTOM-1: what no delimiter may be (the code guard and the splitter of
    lines read these characters, so a delimiter holding one could never be guarded)."""
    if "`" in text or "\n" in text:
        return f"{text!r}: a delimiter must not hold a backtick or a line feed"
    if text[0] in " \t\r~":
        return f"{text!r}: a delimiter must not start with whitespace or '~'"
    return None


def _format_of(data: LineDict, file: str) -> Format:
    template = data["template"]
    return Format(
        name=data["name"],
        title=data["title"],
        sources=tuple(Source(s["url"], s["shows"]) for s in data["sources"]),
        generic=data["generic"],
        case=data["case"],
        template=Template(template["prefills_open"], template["may_skip_reasoning"]),
        delimiters=tuple(_delimiter(entry, line_of(data, ("delimiters", i), data.line))
                         for i, entry in enumerate(data["delimiters"])),
        models=tuple(data.get("models", ())),
        sample=data.get("sample", ""),
        order=data.get("order"),
        file=file,
        line=data.line,
    )


def _delimiter(entry: LineDict, line: int) -> Delimiter:
    kind = entry["kind"]
    if kind == "channel-grammar":
        grammar = ChannelGrammar(
            start=entry["start"], channel=entry["channel"], message=entry["message"],
            constrain=entry["constrain"], ends=tuple(entry["ends"]))
        return Delimiter(kind, grammar=grammar, line=line)
    if kind == "marker":
        return Delimiter(kind, text=entry["text"], line=line)
    close = entry["close"]
    closes = (close,) if isinstance(close, str) else tuple(close)
    assert kind in (*PAIR_KINDS, "answer-wrapper"), kind  # the schema's enum
    return Delimiter(kind, open=entry["open"], closes=closes, line=line,
                     ends_reasoning=bool(entry.get("ends_reasoning", False)))
