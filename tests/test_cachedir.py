"""One cache folder: every part that keeps files in the user cache agrees where it is.

The peers once ignored XDG_CACHE_HOME while the hunt honoured it, so a run could keep
its files in two caches; now the peers, the gateways, the hunt and the fuzzer all ask
scrubcheck.cachedir.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from scrubcheck.cachedir import cache_dir
from scrubcheck.gateway.products.envs import gateways_root
from scrubcheck.hunt.database import open_database
from scrubcheck.hunt.fuzzing import work_directory
from scrubcheck.peers.envs import cache_root


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.delenv("SCRUBCHECK_CACHE", raising=False)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    return tmp_path / "home"


def test_the_default_is_under_the_home_cache(home):
    assert cache_dir() == home / ".cache" / "scrubcheck"


def test_xdg_cache_home_is_honoured(home, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_dir() == tmp_path / "xdg" / "scrubcheck"


@pytest.mark.parametrize("value", ["", "relative/cache"])
def test_an_empty_or_relative_xdg_cache_home_is_ignored(home, monkeypatch, value):
    monkeypatch.setenv("XDG_CACHE_HOME", value)  # the XDG rule: only absolute paths count
    assert cache_dir() == home / ".cache" / "scrubcheck"


def test_scrubcheck_cache_wins(home, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("SCRUBCHECK_CACHE", "~/own")
    assert cache_dir() == home / "own"


def test_peers_gateways_hunt_and_fuzzer_share_the_folder(home, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    root = tmp_path / "xdg" / "scrubcheck"
    assert cache_root() == root / "peers"
    assert gateways_root() == root / "gateways"
    assert work_directory("pkg.mod:Cls", None, None) == root / "fuzz" / "pkg.mod-Cls"
    database = open_database("pkg.mod:Cls", None).inner
    assert Path(database.path) == root / "hypothesis" / "pkg.mod-Cls"
