"""Route templates: how `gateway audit` asks a gateway for one scenario.

Gateways route by model name, some also by a request field or header, and each
is configured differently, so the audit is told how to name a scenario. A
template is one or more `TARGET=VALUE` terms separated by spaces (a value with
spaces is quoted as in a shell: `header:x-tag='a b'`); in VALUE, `{id}` stands
for the scenario's upstream name (`ID` inline, `ID:native` native, see
`upstream.py`):

    model=VALUE         the request's model
    body.FIELD=VALUE    a field of the request body (dots for nested objects),
                        sent through the openai client's `extra_body`
    header:NAME=VALUE   a request header
    header:NAME=$VAR    a request header whose value is the environment
                        variable VAR (`--header-env NAME=VAR` says the same)

Examples: `model={id}` (the default), `model=scrubcheck/{id}` (a LiteLLM
wildcard route), `model=replay body.scenario={id}` (a fixed model name and the
replay server's `scenario` field), `model=replay header:x-scrubcheck-scenario={id}`.
Without a `model` term the model is `{id}`. Some term must hold `{id}`, or
every request would ask for the same stream; an unknown `{placeholder}` or a
stray brace is an error, not literal text; a header is named once.

Header values can be secrets (a gateway's virtual key in `x-portkey-api-key`),
and what is typed on a command line ends up in shell histories and reports,
so: a literal value in a header whose name looks like a credential is refused
(it must come from the environment), the Authorization header is no route at
all (keys come from --key-env), and the template a report shows names each
environment header by its variable (`$VAR`) and a header a program added
(a started gateway's) as `[redacted]`. `Route.secrets` are the values every
report and capture must not hold.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

DEFAULT = "model={id}"
PLACEHOLDER = "{id}"
REDACTED = "[redacted]"
_HEADER = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")  # an HTTP token (RFC 9110)
_VARIABLE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_FORBIDDEN_HEADERS = frozenset({"authorization", "api-key", "x-api-key", "content-length",
                                "content-type", "host"})
#: Header names that look like they carry a credential: their value must not be typed.
_CREDENTIAL = re.compile(r"key|token|auth|secret|passw|credential|cookie|session|signature",
                         re.IGNORECASE)


class RouteError(ValueError):
    """A template that cannot be used; the message says which term and why."""


@dataclass(frozen=True)
class Request:
    """What one request carries besides the messages."""

    model: str
    extra_body: dict[str, Any] | None
    headers: dict[str, str] | None


@dataclass(frozen=True)
class Header:
    """A header a route sends: its value, and where the value came from (`variable` for
    the environment, `hidden` for one a program added); only a typed value is shown."""

    name: str
    value: str
    variable: str | None = None
    hidden: bool = False

    @property
    def secret(self) -> bool:
        return self.variable is not None or self.hidden

    def shown(self) -> str:
        """The value as reports write it: `$VAR`, `[redacted]`, or the template typed."""
        if self.variable is not None:
            return f"${self.variable}"
        return REDACTED if self.hidden else self.value


@dataclass(frozen=True)
class Route:
    text: str  # the template as reports show it: no secret value in it
    model: str
    body: tuple[tuple[tuple[str, ...], str], ...] = ()
    headers: tuple[Header, ...] = ()

    @classmethod
    def parse(cls, text: str, *, header_env: Mapping[str, str] | None = None,
              environ: Mapping[str, str] | None = None) -> Route:
        """The route of `text`, with `header_env` (header name -> variable) added;
        variables are read from `environ` (default: the process environment)."""
        env = os.environ if environ is None else environ
        model: str | None = None
        body: list[tuple[tuple[str, ...], str]] = []
        headers: list[Header] = []
        try:
            terms = shlex.split(text)
        except ValueError as exc:
            raise RouteError(f"route template {text!r}: {exc} (quote values as in a shell)"
                             ) from exc
        terms += [f"header:{name}=${variable}" for name, variable in (header_env or {}).items()]
        if not terms:
            raise RouteError("empty route template")
        for term in terms:
            target, sep, value = term.partition("=")
            if not sep or not target:
                raise RouteError(f"route term {term!r} is not TARGET=VALUE")
            _check_braces(term, value)
            if target == "model":
                if model is not None:
                    raise RouteError("the route template names the model twice")
                if not value:
                    raise RouteError("route term 'model=' has no value")
                model = value
            elif target.startswith("body."):
                body.append(_body_term(term, target, value, body))
            elif target.startswith("header:"):
                header = _header_term(term, target[7:], value, env)
                if any(h.name.lower() == header.name.lower() for h in headers):
                    raise RouteError(f"route term {term!r}: the {header.name} header is "
                                     "already set (a header is named once)")
                headers.append(header)
            else:
                raise RouteError(f"route term {term!r}: the target must be model, body.FIELD "
                                 "or header:NAME")
        route = cls(_shown(terms), model if model is not None else PLACEHOLDER, tuple(body),
                    tuple(headers))
        if PLACEHOLDER not in route.model and not any(
                PLACEHOLDER in v for v in [*(v for _, v in body),
                                           *(h.value for h in headers if not h.secret)]):
            raise RouteError(f"route template {text!r} has no {PLACEHOLDER}: every request "
                             "would ask for the same stream")
        return route

    def with_hidden_headers(self, extra: Mapping[str, str]) -> Route:
        """This route plus headers a program sends (a started gateway's routing and key
        headers): sent, never shown (`header:NAME=[redacted]` in the text)."""
        added = tuple(Header(name, value, hidden=True) for name, value in extra.items())
        taken = {h.name.lower() for h in self.headers}
        for header in added:
            if header.name.lower() in taken:
                raise RouteError(f"the route sets the {header.name} header, which the "
                                 "gateway's own configuration sends")
        text = " ".join([self.text, *(f"header:{h.name}={REDACTED}" for h in added)])
        return Route(text, self.model, self.body, self.headers + added)

    @property
    def secrets(self) -> tuple[str, ...]:
        """Header values that no report, capture or message may hold."""
        return tuple(h.value for h in self.headers if h.secret and h.value)

    def request(self, name: str) -> Request:
        """The request fields for the stream named `name` (an upstream selector)."""
        extra: dict[str, Any] = {}
        for path, value in self.body:
            node = extra
            for key in path[:-1]:
                node = node.setdefault(key, {})
            node[path[-1]] = value.replace(PLACEHOLDER, name)
        headers = {h.name: h.value if h.secret else h.value.replace(PLACEHOLDER, name)
                   for h in self.headers}
        return Request(self.model.replace(PLACEHOLDER, name), extra or None, headers or None)

    def shown_headers(self, name: str) -> dict[str, str]:
        """The headers of the request for `name` as a command may show them: a value from
        the environment as `$VAR` (a shell expands it), a hidden one as `[redacted]`."""
        return {h.name: h.shown() if h.secret else h.value.replace(PLACEHOLDER, name)
                for h in self.headers}


def _check_braces(term: str, value: str) -> None:
    """Only `{id}` is a placeholder; any other brace (`{{id}}`, `{scenario}`, a lone `{`)
    is an error rather than literal text sent to the gateway."""
    for placeholder in re.findall(r"\{[^{}]*\}", value):
        if placeholder != PLACEHOLDER:
            raise RouteError(f"route term {term!r}: unknown placeholder {placeholder} (only "
                             f"{PLACEHOLDER} is known)")
    rest = value.replace(PLACEHOLDER, "")
    if "{" in rest or "}" in rest:
        raise RouteError(f"route term {term!r}: a brace outside {PLACEHOLDER} (write the "
                         f"placeholder as {PLACEHOLDER}, once per use)")


def _body_term(term: str, target: str, value: str,
               body: list[tuple[tuple[str, ...], str]]) -> tuple[tuple[str, ...], str]:
    path = tuple(target[5:].split("."))
    if not all(path):
        raise RouteError(f"route term {term!r}: empty field name")
    if path[0] in ("model", "messages", "stream", "stream_options"):
        raise RouteError(f"route term {term!r}: the audit sets {path[0]} itself")
    for other, _ in body:
        shorter = min(len(path), len(other))
        if path[:shorter] == other[:shorter]:
            raise RouteError(f"route term {term!r}: body.{'.'.join(other)} is already set")
    return path, value


def _header_term(term: str, name: str, value: str, env: Mapping[str, str]) -> Header:
    if not _HEADER.match(name):
        raise RouteError(f"route term {term!r}: {name!r} is not a header name")
    if name.lower() in _FORBIDDEN_HEADERS:
        raise RouteError(f"route term {term!r}: the {name} header cannot be set by a route "
                         "(API keys come from --key-env)")
    if value.startswith("$"):
        variable = value[1:].removeprefix("{").removesuffix("}")
        if not _VARIABLE.match(variable):
            raise RouteError(f"route term {term!r}: {value!r} is not $VARIABLE")
        got = env.get(variable)
        if not got:
            raise RouteError(f"route term {term!r}: environment variable {variable} is not "
                             "set or empty")
        if "\r" in got or "\n" in got:
            raise RouteError(f"route term {term!r}: environment variable {variable} holds a "
                             "line break, which no header value may")
        return Header(name, got, variable=variable)
    if _CREDENTIAL.search(name) and PLACEHOLDER not in value:
        raise RouteError(f"route term for header {name}: a literal value in a header that "
                         "looks like a credential is refused (it would be written to shell "
                         f"histories and reports); put it in a variable and write "
                         f"header:{name}=$VAR or --header-env {name}=VAR")
    return Header(name, value)


def _shown(terms: list[str]) -> str:
    """The template's terms rejoined; a term with a space quoted as a shell reads it."""
    return " ".join(shlex.quote(t) if any(c.isspace() for c in t) else t for t in terms)
