"""Which scrubbers `gateway check` runs: the ones asked for, then every installed peer.

Peers (third-party scrubbers in isolated environments) come from the
`scrubcheck.peers` package: `installed_specs() -> list[str]` when it offers one
(a spec per installed peer that `load_adapter` accepts), else each shipped
manifest whose environment is installed, as `peer:NAME`. Without that package
the check runs without peers and says so.
"""

from __future__ import annotations

import importlib

PEERS_MODULE = "scrubcheck.peers"


def peer_specs() -> tuple[list[str], str]:
    """(specs of the installed peers, a sentence saying what was found)."""
    try:
        peers = importlib.import_module(PEERS_MODULE)
    except ModuleNotFoundError as exc:
        if exc.name != PEERS_MODULE:
            return [], f"peers not run: importing {PEERS_MODULE} failed ({exc})"
        return [], f"no peers installed ({PEERS_MODULE} is not available)"
    try:
        specs = _listed(peers)
    except Exception as exc:  # a broken peer setup must not hide the other verdicts
        return [], f"peers not run: listing the installed peers raised {exc!r}"
    if specs is None:
        return [], f"peers not run: {PEERS_MODULE} lists no installed peers"
    if not specs:
        return [], f"no peers installed ({PEERS_MODULE} lists none)"
    return specs, f"{len(specs)} installed peer(s): " + ", ".join(specs)


def _listed(peers: object) -> list[str] | None:
    """`installed_specs()` when the package has it; else every shipped manifest whose
    environment is installed (`shipped_manifests()` + `read_marker()`), as `peer:NAME`."""
    listing = getattr(peers, "installed_specs", None)
    if callable(listing):
        return [str(s) for s in listing()]
    manifests = getattr(peers, "shipped_manifests", None)
    marker = getattr(peers, "read_marker", None)
    if callable(manifests) and callable(marker):
        return [f"peer:{m.name}" for m in manifests() if marker(m.package) is not None]
    return None


def scrubber_specs(requested: list[str] | None, with_peers: bool = True) -> tuple[list[str], str]:
    """The specs to run, in order, without repeats, and the peers sentence."""
    specs = list(dict.fromkeys(requested or ["reference"]))
    if not with_peers:
        return specs, "peers not run (--no-peers)"
    peers, note = peer_specs()
    specs.extend(s for s in peers if s not in specs)
    return specs, note
