"""Real gateway products (LiteLLM proxy, Portkey's gateway), installed and run as a user would.

    manifest.py     gateway.toml: the package, the command line, the configurations
    envs.py         their environments under the user cache (the peers' installer)
    running.py      running_gateway(): start on loopback, wait until it answers, always stop
    <name>/         one folder per gateway: gateway.toml and its config templates

`scrubcheck gateways install|list` builds and shows them; `scrubcheck gateway
audit --gateway-name NAME[:CONFIG]` starts one with the replay server as its
upstream and audits it. It lives inside `scrubcheck.gateway`, beside the tools that
record, replay and audit any OpenAI-compatible gateway, because these products are
only ever run to be audited by them: one home for everything about gateways.
"""

from scrubcheck.gateway.products.envs import gateways_root, installed
from scrubcheck.gateway.products.manifest import (
    GatewayConfig,
    GatewayManifest,
    GatewayManifestError,
    find_gateway,
    parse_choice,
    shipped_gateways,
)
from scrubcheck.gateway.products.running import Endpoint, GatewayError, running_gateway

__all__ = [
    "Endpoint",
    "GatewayConfig",
    "GatewayError",
    "GatewayManifest",
    "GatewayManifestError",
    "find_gateway",
    "gateways_root",
    "installed",
    "parse_choice",
    "running_gateway",
    "shipped_gateways",
]
