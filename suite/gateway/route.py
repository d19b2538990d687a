"""Route templates: how `gateway audit` asks a gateway for one scenario.

Gateways route by model name, some also by a request field or header, and each
is configured differently, so the audit is told how to name a scenario. A
template is one or more space-separated `TARGET=VALUE` terms; in VALUE, `{id}`
stands for the scenario's upstream name (`ID` inline, `ID:native` native, see
`upstream.py`):

    model=VALUE         the request's model
    body.FIELD=VALUE    a field of the request body (dots for nested objects),
                        sent through the openai client's `extra_body`
    header:NAME=VALUE   a request header

Examples: `model={id}` (the default), `model=scrubcheck/{id}` (a LiteLLM
wildcard route), `model=replay body.scenario={id}` (a fixed model name and the
replay server's `scenario` field), `model=replay header:x-scrubcheck-scenario={id}`.
Without a `model` term the model is `{id}`. Some term must hold `{id}`, or
every request would ask for the same stream; an unknown `{placeholder}` is an
error, not literal text; the Authorization header is not a route (keys come
from the environment only).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

DEFAULT = "model={id}"
PLACEHOLDER = "{id}"
_BRACES = re.compile(r"\{[^{}]*\}")
_HEADER = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")  # an HTTP token (RFC 9110)
_FORBIDDEN_HEADERS = frozenset({"authorization", "api-key", "x-api-key", "content-length",
                                "content-type", "host"})


class RouteError(ValueError):
    """A template that cannot be used; the message says which term and why."""


@dataclass(frozen=True)
class Request:
    """What one request carries besides the messages."""

    model: str
    extra_body: dict[str, Any] | None
    headers: dict[str, str] | None


@dataclass(frozen=True)
class Route:
    text: str
    model: str
    body: tuple[tuple[tuple[str, ...], str], ...] = ()
    headers: tuple[tuple[str, str], ...] = ()

    @classmethod
    def parse(cls, text: str) -> Route:
        model: str | None = None
        body: list[tuple[tuple[str, ...], str]] = []
        headers: list[tuple[str, str]] = []
        terms = text.split()
        if not terms:
            raise RouteError("empty route template")
        for term in terms:
            target, sep, value = term.partition("=")
            if not sep or not target:
                raise RouteError(f"route term {term!r} is not TARGET=VALUE")
            for placeholder in _BRACES.findall(value):
                if placeholder != PLACEHOLDER:
                    raise RouteError(f"route term {term!r}: unknown placeholder "
                                     f"{placeholder} (only {PLACEHOLDER} is known)")
            if target == "model":
                if model is not None:
                    raise RouteError("the route template names the model twice")
                if not value:
                    raise RouteError("route term 'model=' has no value")
                model = value
            elif target.startswith("body."):
                path = tuple(target[5:].split("."))
                if not all(path):
                    raise RouteError(f"route term {term!r}: empty field name")
                if path[0] in ("model", "messages", "stream", "stream_options"):
                    raise RouteError(f"route term {term!r}: the audit sets {path[0]} itself")
                for other, _ in body:
                    shorter = min(len(path), len(other))
                    if path[:shorter] == other[:shorter]:
                        raise RouteError(f"route term {term!r}: body.{'.'.join(other)} "
                                         "is already set")
                body.append((path, value))
            elif target.startswith("header:"):
                name = target[7:]
                if not _HEADER.match(name):
                    raise RouteError(f"route term {term!r}: {name!r} is not a header name")
                if name.lower() in _FORBIDDEN_HEADERS:
                    raise RouteError(f"route term {term!r}: the {name} header cannot be set "
                                     "by a route (API keys come from --key-env)")
                headers.append((name, value))
            else:
                raise RouteError(f"route term {term!r}: the target must be model, body.FIELD "
                                 "or header:NAME")
        route = cls(text, model if model is not None else PLACEHOLDER, tuple(body),
                    tuple(headers))
        if PLACEHOLDER not in route.model and not any(
                PLACEHOLDER in v for v in [*(v for _, v in body), *(v for _, v in headers)]):
            raise RouteError(f"route template {text!r} has no {PLACEHOLDER}: every request "
                             "would ask for the same stream")
        return route

    def request(self, name: str) -> Request:
        """The request fields for the stream named `name` (an upstream selector)."""
        extra: dict[str, Any] = {}
        for path, value in self.body:
            node = extra
            for key in path[:-1]:
                node = node.setdefault(key, {})
            node[path[-1]] = value.replace(PLACEHOLDER, name)
        headers = {k: v.replace(PLACEHOLDER, name) for k, v in self.headers}
        return Request(self.model.replace(PLACEHOLDER, name), extra or None, headers or None)
