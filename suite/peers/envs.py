"""Where peer environments live and how a peer program is started in one.

Environments sit in a cache outside the repository: `peers/` in scrubcheck's cache
folder (`scrubcheck.cachedir`: `$SCRUBCHECK_CACHE`, else `$XDG_CACHE_HOME/scrubcheck`,
else `~/.cache/scrubcheck`), one folder per package and version
(`pypi-hermes-agent-0.19.0/`, `npm-ai-6.0.326/`), shared by the peers that use
the same package. A folder counts as installed only when its marker file holds
the manifest's install hash, so an interrupted or outdated install is redone.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path

from scrubcheck.cachedir import cache_dir
from scrubcheck.peers.manifest import Manifest, Package, shipped_dir
from scrubcheck.peers.process import Launch

MARKER = "scrubcheck-installed.json"


def cache_root() -> Path:
    return cache_dir() / "peers"


def env_dir(package: Package, root: Path | None = None) -> Path:
    return (root or cache_root()) / package.env_name


def python_of(folder: Path) -> Path:
    return folder / "venv" / "bin" / "python"


@dataclass(frozen=True)
class Installed:
    """What the marker of an installed environment says."""

    spec_hash: str
    version: str  # the version that really installed (read back from the environment)
    installed_at: str
    seconds: float


def read_marker(package: Package, root: Path | None = None) -> Installed | None:
    """The install record when the environment is complete and current, else None."""
    if package.ecosystem == "none":
        return Installed(package.spec_hash(), "", "", 0.0)
    path = env_dir(package, root) / MARKER
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        record = Installed(data["spec_hash"], data["version"], data["installed_at"],
                           float(data["seconds"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return record if record.spec_hash == package.spec_hash() else None


def installed_version(package: Package, root: Path | None = None) -> str:
    """The version a row names: the one that really installed, else the one the manifest
    asks for (a peer not installed yet, or one with no package). One rule for the matrix's
    rows and the native runner's, so both name a row's version alike."""
    record = read_marker(package, root)
    return (record.version if record else "") or package.version


def write_marker(package: Package, record: Installed, root: Path | None = None) -> None:
    path = env_dir(package, root) / MARKER
    path.write_text(json.dumps(record.__dict__, indent=1) + "\n", encoding="utf-8")


def launch_for(manifest: Manifest, root: Path | None = None) -> Launch:
    """The command line that runs the peer's adapter program in its environment."""
    folder = env_dir(manifest.package, root)
    env = dict(manifest.package.env)
    env["SCRUBCHECK_PEER_ENV"] = str(folder)
    env["SCRUBCHECK_PEERLOOP_DIR"] = str(shipped_dir())  # peerloop.py and peerloop.mjs
    env["PYTHONUNBUFFERED"] = "1"
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    if manifest.language == "node":
        node = shutil.which("node") or "node"
        argv: tuple[str, ...] = (node, str(manifest.program))
    elif manifest.package.ecosystem == "none":
        import sys

        argv = (sys.executable, str(manifest.program))
    else:
        argv = (str(python_of(folder)), str(manifest.program))
    argv = (*argv, *manifest.args)
    return Launch(argv=argv, cwd=str(manifest.folder), env=tuple(sorted(env.items())),
                  log_dir=str((root or cache_root()) / "logs"))
