"""Build peer environments: a virtualenv per PyPI package, a folder per npm package.

Idempotent: an environment whose marker holds the current install hash is left
alone (unless forced); anything else is wiped and built again, so an
interrupted install never passes for a finished one. The version that really
installed is read back from the environment and must equal the manifest's pin.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from scrubcheck.peers.envs import Installed, env_dir, python_of, read_marker, write_marker
from scrubcheck.peers.manifest import Package

Say = Callable[[str], None]


class InstallError(Exception):
    """An environment could not be built; the message names the step and its log."""


@dataclass(frozen=True)
class InstallOutcome:
    package: Package
    status: str  # "installed", "already installed"
    record: Installed


def install(
    package: Package,
    *,
    root: Path | None = None,
    force: bool = False,
    say: Say = print,
    pip_args: Sequence[str] = (),
) -> InstallOutcome:
    """Make sure `package`'s environment exists and is current."""
    current = read_marker(package, root)
    # a package of ecosystem "none" has nothing to install: its record is always there
    if current is not None and (not force or package.ecosystem == "none"):
        return InstallOutcome(package, "already installed", current)
    folder = env_dir(package, root)
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    started = time.monotonic()
    log = folder / "install.log"
    if package.ecosystem == "pypi":
        version = _install_pypi(package, folder, log, say, pip_args)
    else:
        version = _install_npm(package, folder, log, say)
    if version != package.version:
        raise InstallError(f"{package.env_name}: the manifest pins {package.version} but "
                           f"{version or 'nothing'} installed (see {log})")
    record = Installed(package.spec_hash(), version,
                       datetime.now(UTC).isoformat(timespec="seconds"),
                       round(time.monotonic() - started, 1))
    write_marker(package, record, root)
    return InstallOutcome(package, "installed", record)


def install_each(jobs: Sequence[tuple[str, Package]], *, root: Path | None = None,
                 force: bool = False, say: Say = print) -> int:
    """Install each (title, package) in turn, saying how each went; a failure is said
    and the next one is tried. Returns how many failed."""
    failed = 0
    for index, (title, package) in enumerate(jobs, 1):
        say(f"[{index}/{len(jobs)}] {title}")
        try:
            outcome = install(package, root=root, force=force, say=say)
        except InstallError as exc:
            failed += 1
            say(f"    FAILED: {exc}")
            continue
        if outcome.status == "already installed":
            say(f"    already installed ({package.env_name}; --force rebuilds it)")
        else:
            say(f"    installed {package.label} in {outcome.record.seconds:.0f} s")
    return failed


def _run(step: str, argv: list[str], log: Path, say: Say, env: dict | None = None,
         cwd: Path | None = None) -> None:
    say(f"    {step} ...")
    started = time.monotonic()
    with open(log, "a", encoding="utf-8") as handle:
        handle.write(f"$ {' '.join(argv)}\n")
        handle.flush()
        code = subprocess.call(argv, stdout=handle, stderr=subprocess.STDOUT, env=env,
                               cwd=cwd, stdin=subprocess.DEVNULL)
    if code != 0:
        tail = log.read_text(encoding="utf-8", errors="replace").strip().splitlines()[-5:]
        raise InstallError(f"{step} failed (exit {code}); log {log}:\n    " + "\n    ".join(tail))
    say(f"    {step}: done in {time.monotonic() - started:.0f} s")


def _env(package: Package) -> dict:
    import os

    env = dict(os.environ)
    env.update(dict(package.env))
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    return env


def _install_pypi(package: Package, folder: Path, log: Path, say: Say,
                  pip_args: Sequence[str]) -> str:
    env = _env(package)
    _run("create the virtualenv", [sys.executable, "-m", "venv", str(folder / "venv")], log,
         say, env)
    pip = [str(python_of(folder)), "-m", "pip", "install", *pip_args]
    pinned = f"{package.name}=={package.version}"
    _run(f"pip install {'--no-deps ' if package.no_deps else ''}{pinned}",
         [*pip, *(["--no-deps"] if package.no_deps else []), pinned], log, say, env)
    if package.extra:
        _run(f"pip install {' '.join(package.extra)}", [*pip, *package.extra], log, say, env)
    probe = ("import importlib.metadata as m, sys; print(m.version(sys.argv[1]))")
    out = subprocess.run([str(python_of(folder)), "-c", probe, package.name], env=env,
                         capture_output=True, text=True)
    return out.stdout.strip()


def _install_npm(package: Package, folder: Path, log: Path, say: Say) -> str:
    npm = shutil.which("npm")
    if npm is None:
        raise InstallError(f"{package.env_name}: npm is not on PATH (node peers need node 20+)")
    (folder / "package.json").write_text(
        json.dumps({"name": "scrubcheck-peer-env", "private": True, "type": "module"}) + "\n",
        encoding="utf-8")
    pinned = f"{package.name}@{package.version}"
    _run(f"npm install {pinned}",
         [npm, "install", "--no-audit", "--no-fund", "--save-exact", pinned, *package.extra],
         log, say, _env(package), cwd=folder)
    meta = folder / "node_modules" / package.name / "package.json"
    try:
        return json.loads(meta.read_text(encoding="utf-8"))["version"]
    except (OSError, ValueError, KeyError):
        return ""
