"""Which scrubbers `gateway check` runs: the ones asked for, then every installed peer.

Peers (third-party scrubbers in isolated environments) come from the optional
`scrubcheck.peers` package. Its contract with this module: a function
`installed_specs() -> list[str]` returning a scrubber spec for each installed
peer that `scrubcheck.adapters.load_adapter` accepts. Without that package, or
that function, the check runs without peers and says so.
"""

from __future__ import annotations

import importlib


def peer_specs() -> tuple[list[str], str]:
    """(specs of the installed peers, a sentence saying what was found)."""
    try:
        peers = importlib.import_module("scrubcheck.peers")
    except ModuleNotFoundError as exc:
        if exc.name not in ("scrubcheck.peers", "scrubcheck"):
            return [], f"peers not run: importing scrubcheck.peers failed ({exc})"
        return [], "no peers installed (scrubcheck.peers is not available)"
    listing = getattr(peers, "installed_specs", None)
    if not callable(listing):
        return [], "peers not run: scrubcheck.peers has no installed_specs()"
    try:
        specs = [str(s) for s in listing()]
    except Exception as exc:  # a broken peer setup must not hide the other verdicts
        return [], f"peers not run: scrubcheck.peers.installed_specs() raised {exc!r}"
    if not specs:
        return [], "no peers installed (scrubcheck.peers lists none)"
    return specs, f"{len(specs)} installed peer(s): " + ", ".join(specs)


def scrubber_specs(requested: list[str] | None, with_peers: bool = True) -> tuple[list[str], str]:
    """The specs to run, in order, without repeats, and the peers sentence."""
    specs = list(dict.fromkeys(requested or ["reference"]))
    if not with_peers:
        return specs, "peers not run (--no-peers)"
    peers, note = peer_specs()
    specs.extend(s for s in peers if s not in specs)
    return specs, note
