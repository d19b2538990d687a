"""`gateway audit --gateway-name NAME[:CONFIG]`: audit a real gateway started from its manifest.

The replay server the audit runs is the gateway's upstream: the gateway is
started with its URL in its config (`running_gateway`), audited through the
endpoint it answers on, with the key this start requires and the headers the
configuration routes by, and stopped when the audit ends, however it ends.

Everything a started gateway is reached by (its port, its key, the upstream's
port) dies with the run, so each failure's reproduction is the one command
that starts the same gateway again and audits that scenario alone.
"""

from __future__ import annotations

import dataclasses
import shlex
from collections.abc import Callable

from scrubcheck.gateway.audit import AuditOptions, AuditResult, ScenarioAudit, audit
from scrubcheck.gateway.products.envs import installed
from scrubcheck.gateway.products.manifest import parse_choice
from scrubcheck.gateway.products.running import GatewayError, running_gateway
from scrubcheck.gateway.route import DEFAULT as DEFAULT_ROUTE
from scrubcheck.gateway.route import RouteError
from scrubcheck.gateway.server import ReplayServer
from scrubcheck.model import Scenario


def audit_named(choice: str, scenarios: list[Scenario], options: AuditOptions, *,
                upstream: ReplayServer | str,
                progress: Callable[[ScenarioAudit], None] | None = None,
                say: Callable[[str], None] | None = None) -> AuditResult:
    """Start gateway `choice` (`NAME[:CONFIG]`) with `upstream` behind it, audit it on
    `scenarios`, stop it. Raises GatewayManifestError for an unknown choice and
    GatewayError when the gateway is not installed or does not start."""
    manifest, config = parse_choice(choice)
    choice = f"{manifest.name}:{config.name}"
    upstream_url = upstream.url if isinstance(upstream, ReplayServer) else upstream
    with running_gateway(manifest, config.name, upstream_url) as endpoint:
        record = installed(manifest)
        version = record.version if record is not None else manifest.package.version
        if say is not None:
            say(f"gateway: {manifest.title} {version} ({choice}) at {endpoint.base_url}, "
                f"upstream {upstream_url}; stopped when the audit ends")
        try:
            route = options.route.with_hidden_headers(endpoint.headers)
        except RouteError as exc:
            raise GatewayError(str(exc)) from exc
        started = dataclasses.replace(
            options, route=route, api_key=endpoint.api_key, key_env=None,
            label=options.label or f"{choice} ({manifest.title} {version})")
        result = audit(endpoint.base_url, scenarios, started, upstream=upstream,
                       progress=progress)
    for audited in result.results:
        if audited.reproduce:
            audited.reproduce = [reproduction(choice, options, audited)]
    return result


def report_stem(choice: str) -> str:
    """The reports' file name for a gateway choice: `litellm-proxy-plain` for
    `litellm-proxy` or `litellm-proxy:plain` alike (its default configuration named)."""
    manifest, config = parse_choice(choice)
    return f"{manifest.name}-{config.name}"


def reproduction(choice: str, options: AuditOptions, audited: ScenarioAudit) -> str:
    """The command that starts the gateway again and audits this scenario in this shape."""
    q = shlex.quote
    command = (f"scrubcheck gateway audit --gateway-name {q(choice)} --upstream "
               f"{audited.shape.value} --id {q(audited.scenario.id)} --upstream-port 0")
    if options.route.text != DEFAULT_ROUTE:
        command += f" --route {q(options.route.text)}"
    failed = {p.mode for p in audited.passes if p.failed}
    if failed == {"stream"}:
        command += " --stream-only"
    return command
