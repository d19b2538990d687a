"""Real scrubbers as peers: manifests, isolated environments, the protocol client.

    from scrubcheck.peers import shipped_manifests, install
    for manifest in shipped_manifests():
        install(manifest.package)

The harness drives a peer through `scrubcheck.adapters.peer.PeerAdapter`
(`load_adapter("peer:NAME")`); nothing here imports a peer's package. A name
`ENGINE:NAME` is a serving engine's registered parser (`scrubcheck.peers.engines`).
"""

from scrubcheck.peers.catalogue import find_manifest, shipped_rows
from scrubcheck.peers.envs import cache_root, env_dir, installed_version, launch_for, read_marker
from scrubcheck.peers.install import InstallError, install
from scrubcheck.peers.manifest import (
    Manifest,
    ManifestError,
    Package,
    load_manifest,
    shipped_manifests,
)

__all__ = [
    "InstallError",
    "Manifest",
    "ManifestError",
    "Package",
    "cache_root",
    "env_dir",
    "find_manifest",
    "install",
    "installed_version",
    "launch_for",
    "load_manifest",
    "read_marker",
    "shipped_manifests",
    "shipped_rows",
]
