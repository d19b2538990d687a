"""Peer environments are built once, rebuilt when their install changes, and checked.

Uses a tiny wheel made here and pip with --no-index, so no network is needed.
"""

from __future__ import annotations

import base64
import hashlib
import zipfile
from pathlib import Path

import pytest

from scrubcheck.peers import InstallError, Package, install, read_marker
from scrubcheck.peers.envs import env_dir, python_of


def _wheel(folder: Path, version: str = "1.2.3") -> Path:
    """A minimal valid wheel of `demo-pkg`."""
    files = {
        "demo_pkg/__init__.py": "def strip(text):\n    return text\n",
        f"demo_pkg-{version}.dist-info/METADATA":
            f"Metadata-Version: 2.1\nName: demo-pkg\nVersion: {version}\n",
        f"demo_pkg-{version}.dist-info/WHEEL":
            "Wheel-Version: 1.0\nGenerator: scrubcheck-test\nRoot-Is-Purelib: true\n"
            "Tag: py3-none-any\n",
    }
    record = []
    for name, text in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=")
        record.append(f"{name},sha256={digest.decode()},{len(text.encode())}")
    record.append(f"demo_pkg-{version}.dist-info/RECORD,,")
    files[f"demo_pkg-{version}.dist-info/RECORD"] = "\n".join(record) + "\n"
    path = folder / f"demo_pkg-{version}-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as archive:
        for name, text in files.items():
            archive.writestr(name, text)
    return path


@pytest.fixture()
def local_index(tmp_path: Path) -> list[str]:
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    _wheel(wheels)
    return ["--no-index", "--find-links", str(wheels)]


def test_install_is_idempotent_and_redone_when_the_install_changes(tmp_path, local_index):
    root = tmp_path / "cache"
    package = Package("pypi", "demo-pkg", "1.2.3")
    said: list[str] = []
    first = install(package, root=root, say=said.append, pip_args=local_index)
    assert first.status == "installed" and first.record.version == "1.2.3"
    assert any("pip install demo-pkg==1.2.3" in line for line in said)
    assert python_of(env_dir(package, root)).exists()
    assert read_marker(package, root) == first.record

    venv = env_dir(package, root) / "venv"
    before = venv.stat().st_mtime_ns
    second = install(package, root=root, say=said.append, pip_args=local_index)
    assert second.status == "already installed"
    assert venv.stat().st_mtime_ns == before  # nothing was rebuilt

    changed = Package("pypi", "demo-pkg", "1.2.3", no_deps=True)
    assert read_marker(changed, root) is None  # another install spec: not installed


def test_an_unfinished_install_does_not_count(tmp_path):
    root = tmp_path / "cache"
    package = Package("pypi", "demo-pkg", "1.2.3")
    env_dir(package, root).mkdir(parents=True)  # a folder without a marker
    assert read_marker(package, root) is None
    (env_dir(package, root) / "scrubcheck-installed.json").write_text('{"spec_hash": "x"}')
    assert read_marker(package, root) is None  # a broken marker is no marker


def test_a_version_that_is_not_the_pin_fails_loudly(tmp_path, local_index):
    package = Package("pypi", "demo-pkg", "9.9.9")
    with pytest.raises(InstallError, match="failed"):
        install(package, root=tmp_path / "cache", say=lambda _: None, pip_args=local_index)
    assert read_marker(package, tmp_path / "cache") is None
