"""YAML reading that remembers where every mapping, key and list item stood.

Corpus errors are only useful when they name the exact line, so the parsed
mappings and lists carry their source lines alongside the data (instead of in
extra keys that would trip the schema's `additionalProperties: false`).

Corpus and format files are contributed by others and linted in CI, so reading
one must cost about what its size says. YAML anchors and aliases break that: PyYAML
shares an aliased node, but everything that walks the data afterwards (the
schema validation first) walks it once per reference, so a 1 KB "billion
laughs" file costs gigabytes. Neither format ever needs them (a scenario or a
delimiter is a few flat strings and lists), so the composer refuses the first anchor or
alias it meets, before anything is built, and refuses nesting deeper than any
scenario needs, before the recursive composer and constructor run out of stack.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

import yaml


class LineDict(dict):
    """A mapping that knows its own line, each key's line and any repeated keys."""

    line: int = 0
    key_lines: dict[object, int]
    repeated_keys: list[tuple[object, int]]

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        self.key_lines = {}
        self.repeated_keys = []


class LineList(list):
    """A list that knows its own line and the line of each item."""

    line: int = 0
    item_lines: list[int]

    def __init__(self, *args: object) -> None:
        super().__init__(*args)
        self.item_lines = []


#: the size limit per corpus or format file, and the variable that raises it
MAX_BYTES_ENV = "SCRUBCHECK_CORPUS_MAX_BYTES"
DEFAULT_MAX_BYTES = 1 << 20

# A scenario is at most list > item > context > features > string; generous above that.
MAX_DEPTH = 32


class YamlSyntaxError(Exception):
    """The file is not YAML the corpus accepts; `line` is 1-based (0 when PyYAML gave
    no position)."""

    def __init__(self, message: str, line: int) -> None:
        super().__init__(message)
        self.message = message
        self.line = line


class _LineLoader(yaml.SafeLoader):
    """SafeLoader whose maps and sequences are LineDict / LineList, and whose composer
    refuses anchors, aliases and deep nesting as it meets them (see the module docstring)."""

    _depth = 0
    #: what the refusals call the file being read ("corpus files", "format files")
    kind = "corpus files"

    def compose_node(self, parent: yaml.Node | None, index: int) -> yaml.Node | None:
        event = self.peek_event()
        line = event.start_mark.line + 1
        if isinstance(event, yaml.AliasEvent):
            raise YamlSyntaxError(_refusal(f"alias *{event.anchor}", self.kind), line)
        if getattr(event, "anchor", None) is not None:
            raise YamlSyntaxError(_refusal(f"anchor &{event.anchor}", self.kind), line)
        if self._depth >= MAX_DEPTH:
            raise YamlSyntaxError(f"YAML nested more than {MAX_DEPTH} levels deep; "
                                  "a scenario or a format needs at most 5", line)
        self._depth += 1
        try:
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


def _refusal(what: str, kind: str) -> str:
    return (f"YAML {what} refused: {kind} may not use anchors or aliases "
            "(a few lines of them can expand into gigabytes); write the value out in full")


def _construct_map(loader: _LineLoader, node: yaml.MappingNode) -> Iterator[LineDict]:
    data = LineDict()
    data.line = node.start_mark.line + 1
    yield data
    loader.flatten_mapping(node)
    for key_node, _value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        line = key_node.start_mark.line + 1
        try:
            if key in data.key_lines:
                data.repeated_keys.append((key, line))
            else:
                data.key_lines[key] = line
        except TypeError:  # an unhashable key; construct_mapping reports it below
            pass
    data.update(loader.construct_mapping(node))


def _construct_seq(loader: _LineLoader, node: yaml.SequenceNode) -> Iterator[LineList]:
    data = LineList()
    data.line = node.start_mark.line + 1
    yield data
    data.extend(loader.construct_sequence(node))
    data.item_lines = [child.start_mark.line + 1 for child in node.value]


_LineLoader.add_constructor("tag:yaml.org,2002:map", _construct_map)
_LineLoader.add_constructor("tag:yaml.org,2002:seq", _construct_seq)


def parse_yaml(text: str, *, kind: str = "corpus files") -> object:
    """Parse one YAML document with line tracking; raise YamlSyntaxError on bad input.
    `kind` names the files in the refusals ("corpus files", "format files")."""
    loader = _LineLoader(text)
    loader.kind = kind
    try:
        return loader.get_single_data()
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else 0
        problem = exc.problem or exc.context or "invalid YAML"
        context = ""
        if exc.context and exc.problem:
            started = exc.context_mark
            at = f" started at line {started.line + 1}" if started and mark is not started else ""
            context = f" ({exc.context}{at})"
        raise YamlSyntaxError(f"YAML syntax error: {problem}{context}", line) from exc
    except yaml.YAMLError as exc:
        raise YamlSyntaxError(f"YAML error: {exc}", 0) from exc
    finally:
        loader.dispose()


def line_of(root: object, path: Sequence[object], default: int) -> int:
    """The line of the deepest element of `path` inside `root` whose position is known."""
    line = getattr(root, "line", 0) or default
    node = root
    for step in path:
        if isinstance(node, LineDict) and step in node.key_lines:
            line = node.key_lines[step]
            node = node[step]
        elif isinstance(node, LineList) and isinstance(step, int) and step < len(node):
            if step < len(node.item_lines):
                line = node.item_lines[step]
            node = node[step]
        else:
            break
    return line


def read_text_within(file: Path, limit: int, what: str = "corpus file") -> str:
    """The file's text, refused (ValueError, in words) when it is not a regular file, is
    over `limit` bytes (checked before reading, and again while reading in case it grows)
    or is not UTF-8."""
    if not file.is_file():
        raise ValueError("not a regular file")
    size = file.stat().st_size
    if size <= limit:
        with file.open("rb") as handle:
            data = handle.read(limit + 1)
        size = max(size, len(data))
    if size > limit:
        raise ValueError(f"file is {size:,} bytes, over the limit of {limit:,} bytes per "
                         f"{what} (split it, or raise the limit with {MAX_BYTES_ENV})")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"not UTF-8 text: {exc.reason}") from exc
