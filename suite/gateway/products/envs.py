"""Where gateway environments live: `gateways/` in scrubcheck's cache folder
(`scrubcheck.cachedir`; default `~/.cache/scrubcheck/gateways`), built by the peers'
installer.

A gateway's package is installed exactly as a peer's is (a virtualenv per
PyPI package, a folder per npm package, a marker that makes an interrupted
install count as not installed), only into a folder of its own, so a gateway
and a peer pinning the same library never share or overwrite an environment.
"""

from __future__ import annotations

from pathlib import Path

from scrubcheck.cachedir import cache_dir
from scrubcheck.gateway.products.manifest import GatewayManifest
from scrubcheck.peers.envs import Installed, env_dir, read_marker


def gateways_root() -> Path:
    return cache_dir() / "gateways"


def gateway_env(manifest: GatewayManifest) -> Path:
    """The gateway's environment folder (it exists once installed)."""
    return env_dir(manifest.package, gateways_root())


def installed(manifest: GatewayManifest) -> Installed | None:
    """The install record when the gateway's environment is complete and current."""
    return read_marker(manifest.package, gateways_root())


def logs_dir() -> Path:
    """Where a gateway's output goes while it runs (bounded, as the peers' stderr)."""
    return gateways_root() / "logs"
