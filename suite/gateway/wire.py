"""The OpenAI chat-completions wire shapes, both ways, in one place.

The replay server builds `chat.completion.chunk` and `chat.completion` objects
here, and the SSE importer reads chunks back with the same field names, so the
two cannot drift apart. The scrubcheck extension, a stream's context, travels
in the `x-scrubcheck-context` response header (compact JSON), because
`starts_in_reasoning` and `inline_answer` are not wire fields.
"""

from __future__ import annotations

import json
from typing import Any

from scrubcheck.gateway.capture import Chunk
from scrubcheck.model import Context
from scrubcheck.vocabulary import custom_delimiters

CONTEXT_HEADER = "x-scrubcheck-context"
SCENARIO_HEADER = "x-scrubcheck-scenario"


def chunk_object(chunk: Chunk, *, completion_id: str, model: str, created: int) -> dict[str, Any]:
    """One `chat.completion.chunk` carrying `chunk` as choice 0."""
    delta: dict[str, Any] = {}
    for name in ("role", "content", "reasoning_content", "reasoning", "tool_calls"):
        value = getattr(chunk, name)
        if value is not None:
            delta[name] = value
    return {
        "id": completion_id,
        "object": "chat.completion.chunk",
        "created": created,
        "model": model,
        "system_fingerprint": None,
        "choices": [{"index": 0, "delta": delta, "logprobs": None,
                     "finish_reason": chunk.finish_reason}],
    }


def completion_object(chunks: list[Chunk], *, completion_id: str, model: str,
                      created: int) -> dict[str, Any]:
    """The non-streaming `chat.completion` for the same stream: channels joined."""
    content = [c.content for c in chunks if c.content is not None]
    message: dict[str, Any] = {"role": "assistant", "content": "".join(content)}
    reasoning = [c.structured_reasoning for c in chunks if c.structured_reasoning is not None]
    if reasoning:
        message["reasoning_content"] = "".join(reasoning)
    finish = next((c.finish_reason for c in reversed(chunks) if c.finish_reason), None)
    return {
        "id": completion_id,
        "object": "chat.completion",
        "created": created,
        "model": model,
        "system_fingerprint": None,
        "choices": [{"index": 0, "message": message, "logprobs": None, "finish_reason": finish}],
        "usage": {"prompt_tokens": 0, "completion_tokens": len(content),
                  "total_tokens": len(content)},
    }


def error_object(message: str, *, type_: str = "invalid_request_error",
                 param: str | None = None, code: str | None = None) -> dict[str, Any]:
    """An OpenAI-style error body, so clients raise their usual exceptions."""
    return {"error": {"message": message, "type": type_, "param": param, "code": code}}


def chunk_from_object(data: Any, t: float = 0.0) -> Chunk | None:
    """Choice 0 of a parsed chunk object, or None when the chunk has no choices
    (a usage-only chunk). Raises ValueError for something that is not a chunk."""
    if not isinstance(data, dict) or "choices" not in data:
        raise ValueError("not a chat.completion.chunk (no 'choices')")
    choices = data["choices"]
    if not isinstance(choices, list):
        raise ValueError("'choices' is not a list")
    choice = next((c for c in choices if isinstance(c, dict) and c.get("index", 0) == 0), None)
    if choice is None:
        return None
    delta = choice.get("delta") or {}
    if not isinstance(delta, dict):
        raise ValueError("'delta' is not an object")
    texts = {}
    for name in ("content", "reasoning_content", "reasoning", "role"):
        value = delta.get(name)
        texts[name] = value if isinstance(value, str) else None
    tool_calls = delta.get("tool_calls")
    finish = choice.get("finish_reason")
    return Chunk(t=t, **texts, finish_reason=finish if isinstance(finish, str) else None,
                 tool_calls=tool_calls if isinstance(tool_calls, list) and tool_calls else None)


def context_header(context: Context) -> str:
    """Every context entry (Context.as_kwargs is the one list of them), as compact JSON."""
    data = {**context.as_kwargs(), "features": list(context.features)}
    return json.dumps(data, separators=(",", ":"), ensure_ascii=True)


def parse_context_header(value: str | None) -> dict[str, Any] | None:
    """The announced context as a dict, or None when absent or unreadable."""
    if not value:
        return None
    try:
        data = json.loads(value)
    except json.JSONDecodeError:
        return None
    if not isinstance(data, dict):
        return None
    keys = Context().as_kwargs()
    return {k: data[k] for k in keys if k in data}


def context_from_dict(data: dict[str, Any]) -> Context:
    """The Context an announced header (or a capture's `context`) describes."""
    return Context(
        starts_in_reasoning=bool(data.get("starts_in_reasoning", False)),
        inline_answer=bool(data.get("inline_answer", False)),
        finish_reason=data.get("finish_reason", "stop"),
        features=tuple(data.get("features") or ()),
        may_skip_reasoning=bool(data.get("may_skip_reasoning", False)),
        delimiters=custom_delimiters(data.get("delimiters") or ()),
    )
