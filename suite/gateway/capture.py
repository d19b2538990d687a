"""Captures: what a gateway streamed, chunk by chunk, as data and as a JSON file.

A capture keeps every chunk's channels exactly (a `content` of "" is not an
absent `content`), the arrival time of each chunk, how the stream ended and
any error, so that a failed recording still keeps everything received before
the failure. A capture file holds one or more captures; its shape is pinned
by `capture.schema.json`, shipped with the package.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator

FORMAT = "scrubcheck-capture"
VERSION = 1
SCHEMA_FILE = "capture.schema.json"
#: The request entry where `gateway audit` says how it judged a capture (see Capture.audit).
AUDIT_KEY = "scrubcheck_audit"

#: The chunk fields that carry text, in the order a client reads them.
TEXT_FIELDS = ("content", "reasoning_content", "reasoning")


class CaptureFileError(ValueError):
    """A capture file that cannot be read: not JSON, or not of the capture shape."""


@dataclass(frozen=True)
class Chunk:
    """One `chat.completion.chunk` of choice 0. None means the field was absent."""

    t: float = 0.0  # seconds since the request was sent
    content: str | None = None
    reasoning_content: str | None = None
    reasoning: str | None = None
    finish_reason: str | None = None
    role: str | None = None
    tool_calls: list[Any] | None = None

    @property
    def structured_reasoning(self) -> str | None:
        """The reasoning delta of this chunk; a server that fills both field names
        (some send the same text twice) counts once, `reasoning_content` first."""
        return self.reasoning_content if self.reasoning_content is not None else self.reasoning

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"t": round(self.t, 6)}
        for name in _CHUNK_FIELDS:
            value = getattr(self, name)
            if value is not None:
                out[name] = value
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Chunk:
        return cls(data.get("t", 0.0), *(data.get(name) for name in _CHUNK_FIELDS))


#: Chunk's fields after `t`, in order (looked up once: a long capture has many chunks).
_CHUNK_FIELDS = tuple(f.name for f in fields(Chunk)[1:])


@dataclass(frozen=True)
class CaptureError:
    """Why a stream did not end normally; `status` is the HTTP status when there was one."""

    kind: str  # http | stream | malformed | cut | connection | timeout
    message: str
    status: int | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "message": self.message}
        if self.status is not None:
            out["status"] = self.status
        return out


@dataclass
class Capture:
    """One streamed chat completion as a gateway sent it."""

    name: str
    source: str = "record"  # record | sse-import | sample
    request: dict[str, Any] = field(default_factory=dict)  # base_url, model, messages, extra_body
    response: dict[str, Any] = field(default_factory=dict)  # status, id, model, headers we keep
    chunks: list[Chunk] = field(default_factory=list)
    done: bool = False  # the `data: [DONE]` line arrived
    error: CaptureError | None = None
    started_at: str | None = None  # ISO 8601, UTC
    duration_s: float | None = None

    # ------------------------------------------------------------ channels
    @property
    def content_deltas(self) -> list[str]:
        """The answer channel, in the recorded chunking (empty deltas kept)."""
        return [c.content for c in self.chunks if c.content is not None]

    @property
    def reasoning_deltas(self) -> list[str]:
        """The structured reasoning channel (`reasoning_content`, else `reasoning`)."""
        out = []
        for chunk in self.chunks:
            text = chunk.structured_reasoning
            if text is not None:
                out.append(text)
        return out

    @property
    def content(self) -> str:
        return "".join(self.content_deltas)

    @property
    def structured_reasoning(self) -> str:
        return "".join(self.reasoning_deltas)

    @property
    def reasoning_fields(self) -> list[str]:
        """Which reasoning field names the stream used, in first-seen order."""
        seen: list[str] = []
        for chunk in self.chunks:
            for name in ("reasoning_content", "reasoning"):
                if getattr(chunk, name) is not None and name not in seen:
                    seen.append(name)
        return seen

    @property
    def finish_reason(self) -> str | None:
        """The last finish_reason the stream sent (None: it never sent one)."""
        for chunk in reversed(self.chunks):
            if chunk.finish_reason is not None:
                return chunk.finish_reason
        return None

    @property
    def model(self) -> str | None:
        return self.response.get("model") or self.request.get("model")

    @property
    def audit(self) -> dict[str, Any] | None:
        """What `gateway audit` wrote into a failing capture: the scenario, shape, request
        mode and the context its scrubbing client used (None for other captures)."""
        block = self.request.get(AUDIT_KEY)
        return block if isinstance(block, dict) else None

    @property
    def context_header(self) -> dict[str, Any] | None:
        """The stream context a scrubcheck replay server announced (x-scrubcheck-context)."""
        value = self.response.get("scrubcheck_context")
        return value if isinstance(value, dict) else None

    # ---------------------------------------------------------------- JSON
    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "source": self.source,
                               "request": self.request, "response": self.response}
        if self.started_at is not None:
            out["started_at"] = self.started_at
        if self.duration_s is not None:
            out["duration_s"] = round(self.duration_s, 6)
        out["finish_reason"] = self.finish_reason
        out["done"] = self.done
        out["error"] = self.error.to_dict() if self.error else None
        out["chunks"] = [c.to_dict() for c in self.chunks]
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Capture:
        error = data.get("error")
        return cls(
            name=data["name"],
            source=data.get("source", "record"),
            request=dict(data.get("request") or {}),
            response=dict(data.get("response") or {}),
            chunks=[Chunk.from_dict(c) for c in data.get("chunks", [])],
            done=bool(data.get("done", False)),
            error=CaptureError(error["kind"], error["message"], error.get("status"))
            if error else None,
            started_at=data.get("started_at"),
            duration_s=data.get("duration_s"),
        )


# ------------------------------------------------------------------- files
@cache
def capture_schema() -> dict[str, Any]:
    """The shipped draft 2020-12 JSON Schema of a capture file."""
    text = resources.files("scrubcheck.gateway").joinpath(SCHEMA_FILE).read_text("utf-8")
    return json.loads(text)


def captures_document(captures: list[Capture]) -> dict[str, Any]:
    return {"format": FORMAT, "version": VERSION, "captures": [c.to_dict() for c in captures]}


def dump_captures(captures: list[Capture]) -> str:
    """The capture file text; may hold lone surrogates until encoded (see write_captures)."""
    return json.dumps(captures_document(captures), ensure_ascii=False, indent=1) + "\n"


def write_captures(captures: list[Capture], path: Path) -> Path:
    """Write a capture file. A lone surrogate (streams do carry them) cannot be UTF-8
    encoded; "backslashreplace" writes it as its JSON escape, so the round trip is exact."""
    path.write_text(dump_captures(captures), encoding="utf-8", errors="backslashreplace")
    return path


def parse_captures(text: str, label: str = "<text>") -> list[Capture]:
    """The captures of a capture file's text; CaptureFileError says what is wrong and where."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise CaptureFileError(f"{label}: not JSON ({exc.msg} at line {exc.lineno}, "
                               f"column {exc.colno})") from exc
    if _valid_quickly(data):
        return [Capture.from_dict(item) for item in data["captures"]]
    errors = sorted(_validator().iter_errors(data),
                    key=lambda e: list(e.absolute_path))
    if errors:
        first = errors[0]
        where = "/".join(str(p) for p in first.absolute_path) or "top level"
        more = f" (and {len(errors) - 1} more problems)" if len(errors) > 1 else ""
        raise CaptureFileError(f"{label}: not a scrubcheck capture file: at {where}: "
                               f"{first.message}{more}")
    return [Capture.from_dict(item) for item in data["captures"]]


# jsonschema spends ~80 µs on each chunk object, which is most of the time to read a long
# capture (seconds for 65,000 chunks). Chunks are therefore checked by a direct test built
# from the schema's own chunk definition, and the rest of the document, its chunk lists
# emptied, by jsonschema. The direct test only ever accepts what the schema accepts; a file
# it does not accept is validated in full by jsonschema, which then says what is wrong.
_JSON_TYPES: dict[str, Callable[[Any], bool]] = {
    "string": lambda v: type(v) is str,
    "number": lambda v: type(v) is int or type(v) is float,
    "integer": lambda v: type(v) is int,
    "boolean": lambda v: type(v) is bool,
    "array": lambda v: type(v) is list,
    "object": lambda v: type(v) is dict,
    "null": lambda v: v is None,
}


@cache
def _chunk_test() -> Callable[[Any], bool] | None:
    """A direct test of `$defs/chunk`, or None when the definition uses a keyword this
    test does not know (then jsonschema checks every chunk)."""
    schema = capture_schema()["$defs"]["chunk"]
    if (set(schema) - {"description", "type", "required", "additionalProperties",
                       "properties"} or schema.get("type") != "object"
            or schema.get("additionalProperties") is not False):
        return None
    properties: dict[str, tuple[Callable[[Any], bool], float | None]] = {}
    for name, spec in schema.get("properties", {}).items():
        if set(spec) - {"description", "type", "minimum"} or spec.get("type") not in _JSON_TYPES:
            return None
        minimum = spec.get("minimum")
        if minimum is not None and spec["type"] not in ("number", "integer"):
            return None
        properties[name] = (_JSON_TYPES[spec["type"]], minimum)
    required = tuple(schema.get("required", ()))

    def test(chunk: Any) -> bool:
        if type(chunk) is not dict or any(key not in chunk for key in required):
            return False
        for key, value in chunk.items():
            spec = properties.get(key)
            if spec is None or not spec[0](value):
                return False
            if spec[1] is not None and not value >= spec[1]:
                return False
        return True

    return test


def _valid_quickly(data: Any) -> bool:
    """True when `data` certainly conforms to the schema (see above); False when only a
    full validation can tell."""
    test = _chunk_test()
    if test is None or type(data) is not dict or type(data.get("captures")) is not list:
        return False
    skeleton = []
    for item in data["captures"]:
        if type(item) is not dict or type(item.get("chunks")) is not list:
            return False
        if not all(test(chunk) for chunk in item["chunks"]):
            return False
        skeleton.append({**item, "chunks": []})
    return _validator().is_valid({**data, "captures": skeleton})


@cache
def _validator() -> Draft202012Validator:
    return Draft202012Validator(capture_schema())


def read_captures(path: Path) -> list[Capture]:
    """Read a capture file; raises CaptureFileError (or OSError for a missing file)."""
    return parse_captures(Path(path).read_text(encoding="utf-8"), str(path))
