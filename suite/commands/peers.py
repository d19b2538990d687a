"""`scrubcheck peers install|list`: build and show the real scrubbers' environments.

`install` with no names builds every peer that is not heavy (heavy ones, such
as vLLM, only when named); environments live in the cache (see
`scrubcheck.peers.envs`) and are built once. `list` says what is installed,
with the versions read back from each environment.
"""

from __future__ import annotations

import argparse
import time

from scrubcheck.commands.options import (
    add_install_list_actions,
    install_or_list,
    usage_error,
    usage_for,
)
from scrubcheck.peers import (
    ManifestError,
    cache_root,
    env_dir,
    read_marker,
    shipped_manifests,
)
from scrubcheck.peers.catalogue import engine_installs
from scrubcheck.peers.install import install_each
from scrubcheck.peers.manifest import Manifest, with_releases

NAME = "peers"
HELP = "install and list the real scrubbers (peers) that the matrix compares"
_usage = usage_for(NAME)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_install_list_actions(
        parser, "peers", install_help="build peer environments (all non-heavy by default)",
        list_help="show every peer, its package and whether it is installed")


def run(args: argparse.Namespace) -> int:
    try:
        manifests = shipped_manifests() + engine_installs()
    except ManifestError as exc:
        return _usage(str(exc))
    return install_or_list(args, NAME, lambda names, force: _install(manifests, names, force),
                           lambda: _list(manifests))


def select_manifests(manifests: list[Manifest], names: list[str]) -> list[Manifest]:
    """The named peers (raising ManifestError for an unknown one), or every non-heavy one."""
    if not names:
        return [m for m in manifests if not m.heavy]
    # NAME@VERSION: that release of the peer's package, in an environment of its own
    by_name = {m.name: m for m in with_releases(manifests, names)}
    unknown = [n for n in names if n not in by_name]
    if unknown:
        raise ManifestError(f"unknown peer(s) {', '.join(unknown)}; known: "
                            + ", ".join(sorted(by_name)))
    return [by_name[n] for n in names]


def _install(manifests: list[Manifest], names: list[str], force: bool) -> int:
    try:
        chosen = select_manifests(manifests, names)
    except ManifestError as exc:
        return usage_error(f"{NAME} install", str(exc))
    packages: dict[str, list[Manifest]] = {}  # an engine shares its peers' environment
    for manifest in chosen:
        packages.setdefault(manifest.package.env_name, []).append(manifest)
    skipped = [m.name for m in manifests if m.heavy and m not in chosen]
    print(f"peer environments in {cache_root()}")
    started = time.monotonic()
    jobs = [(f"{users[0].package.label} (for {', '.join(m.name for m in users)})",
             users[0].package) for users in packages.values()]
    failed = install_each(jobs, force=force, say=lambda line: print(line, flush=True))
    if skipped:
        print(f"not installed (heavy, install by name): {', '.join(skipped)}")
    print(f"done in {time.monotonic() - started:.0f} s"
          + (f"; {failed} environment(s) FAILED" if failed else ""))
    return 1 if failed else 0


def _list(manifests: list[Manifest]) -> int:
    print(f"peer environments in {cache_root()}")
    width = max(len(m.name) for m in manifests)
    for manifest in manifests:
        record = read_marker(manifest.package)
        if record is None:
            state = "not installed" + (" (heavy: install by name)" if manifest.heavy else "")
        elif manifest.package.ecosystem == "none":
            state = "ready (no package)"
        else:
            state = f"installed {record.version} ({env_dir(manifest.package).name})"
        tag = " [model]" if manifest.model_of else ""
        print(f"{manifest.name:<{width}}  {manifest.kind:<18}  {manifest.package.label:<28}  "
              f"{state}{tag}")
    return 0
