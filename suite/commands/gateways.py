"""`scrubcheck gateways install|list`: build and show the real gateway products.

`install` with no names builds every shipped gateway (LiteLLM proxy, Portkey's
gateway); environments live in the user cache (`gateway.products.envs`) and
are built once. `list` says what is installed, with the versions read back
from each environment, and each gateway's configurations. `scrubcheck gateway
audit --gateway-name NAME[:CONFIG]` then starts one and audits it.
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
from scrubcheck.gateway.products import (
    GatewayManifest,
    GatewayManifestError,
    gateways_root,
    installed,
    shipped_gateways,
)
from scrubcheck.peers.install import install_each

NAME = "gateways"
HELP = "install and list the real gateways (LiteLLM proxy, Portkey) that gateway audit runs"


_usage = usage_for(NAME)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_install_list_actions(
        parser, "gateways", install_help="build gateway environments (all by default)",
        list_help="show every gateway, its package, configurations and state")


def run(args: argparse.Namespace) -> int:
    try:
        manifests = shipped_gateways()
    except GatewayManifestError as exc:
        return _usage(str(exc))
    return install_or_list(args, NAME, lambda names, force: _install(manifests, names, force),
                           lambda: _list(manifests))


def _install(manifests: list[GatewayManifest], names: list[str], force: bool) -> int:
    by_name = {m.name: m for m in manifests}
    unknown = [n for n in names if n not in by_name]
    if unknown:
        return usage_error(f"{NAME} install", f"unknown gateway(s) {', '.join(unknown)}; "
                           "known: " + ", ".join(sorted(by_name)))
    chosen = [by_name[n] for n in names] if names else manifests
    print(f"gateway environments in {gateways_root()}")
    started = time.monotonic()
    jobs = [(f"{m.name}: {m.package.label}"
             + (f" + {' '.join(m.package.extra)}" if m.package.extra else ""), m.package)
            for m in chosen]
    failed = install_each(jobs, root=gateways_root(), force=force,
                          say=lambda line: print(line, flush=True))
    print(f"done in {time.monotonic() - started:.0f} s"
          + (f"; {failed} environment(s) FAILED" if failed else ""))
    return 1 if failed else 0


def _list(manifests: list[GatewayManifest]) -> int:
    print(f"gateway environments in {gateways_root()}")
    for manifest in manifests:
        record = installed(manifest)
        state = (f"installed {record.version}" if record is not None
                 else f"not installed ({manifest.install_command})")
        print(f"{manifest.name}  {manifest.title}  {manifest.package.label}  {state}")
        for config in manifest.configs:
            default = " (default)" if config.name == manifest.default_config else ""
            print(f"    {manifest.name}:{config.name}{default}  {config.title}")
            print(f"        reasoning: {config.reasoning}")
        for note in manifest.notes:
            print(f"    note: {note}")
    return 0
