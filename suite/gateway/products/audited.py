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
import shutil
import subprocess
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from scrubcheck.gateway.audit import AuditOptions, AuditResult, ScenarioAudit, audit
from scrubcheck.gateway.products.envs import gateway_env, installed
from scrubcheck.gateway.products.manifest import GatewayManifest, parse_choice
from scrubcheck.gateway.products.running import GatewayError, running_gateway
from scrubcheck.gateway.route import DEFAULT as DEFAULT_ROUTE
from scrubcheck.gateway.route import RouteError
from scrubcheck.gateway.server import ReplayServer
from scrubcheck.model import Scenario

if TYPE_CHECKING:
    from scrubcheck.runner.cache import ResultCache


def audit_named(choice: str, scenarios: list[Scenario], options: AuditOptions, *,
                upstream: ReplayServer | str,
                progress: Callable[[ScenarioAudit], None] | None = None,
                say: Callable[[str], None] | None = None,
                cache: ResultCache | None = None) -> AuditResult:
    """Start gateway `choice` (`NAME[:CONFIG]`) with `upstream` behind it, audit it on
    `scenarios`, stop it. With `cache` (a ResultCache, whose folder holds the stored
    answers) the audit answers each request the store holds for this product, installed
    version, runtime and configuration (`product_cache_key`) from it, requests the rest
    and judges them all (gateway/answers.py); `upstream` must then be
    the replay server (ValueError). Raises GatewayManifestError for an unknown choice
    and GatewayError when the gateway is not installed or does not start."""
    manifest, config = parse_choice(choice)
    choice = f"{manifest.name}:{config.name}"
    cache_key = None if cache is None else product_cache_key(choice)
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
                       progress=progress, cache=cache, cache_key=cache_key)
    for audited in result.results:
        if audited.reproduce:
            audited.reproduce = [reproduction(choice, options, audited)]
    return result


def product_cache_key(choice: str) -> dict[str, Any]:
    """What a cached audit of gateway `choice` is keyed by: the product and configuration,
    the package and the version that really installed (with the install's spec hash),
    and the runtime it runs on (its environment's Python, or node: Portkey's streams fail
    on Node 20 and may not on another). The manifest and config templates are in the
    answers' wire digest (gateway/answers.py). GatewayError when the gateway is not installed."""
    manifest, config = parse_choice(choice)
    record = installed(manifest)
    if record is None:
        raise GatewayError(f"gateway {manifest.name} is not installed: run "
                           f"`{manifest.install_command}`")
    return {"product": manifest.name, "config": config.name,
            "package": manifest.package.label, "version": record.version,
            "install": record.spec_hash, "runtime": runtime(manifest)}


def runtime(manifest: GatewayManifest) -> str:
    """The interpreter a gateway runs on, as its version says: `python 3.11.7` from its
    virtualenv's pyvenv.cfg, `node v20.11.1` from `node --version` ("unknown" when it
    cannot be told: a cached audit is then keyed by that)."""
    if manifest.package.ecosystem == "pypi":
        cfg = gateway_env(manifest) / "venv" / "pyvenv.cfg"
        try:
            for line in cfg.read_text(encoding="utf-8").splitlines():
                key, _, value = line.partition("=")
                if key.strip() == "version":
                    return f"python {value.strip()}"
        except OSError:
            pass
        return "python unknown"
    node = shutil.which("node")
    if node is None:
        return "node unknown"
    try:
        done = subprocess.run([node, "--version"], capture_output=True, text=True,
                              timeout=30, check=False)
    except (OSError, subprocess.SubprocessError):
        return "node unknown"
    return f"node {done.stdout.strip() or 'unknown'}"


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
