"""A peer named NAME@VERSION: the same adapter on another release of its package, in an
environment of its own, so several releases can be rows of one matrix."""

from __future__ import annotations

from dataclasses import replace

import pytest

from scrubcheck.cli import main
from scrubcheck.peers import ManifestError, find_manifest, shipped_manifests
from scrubcheck.peers.manifest import released, split_release, with_releases


def test_a_release_is_the_same_peer_on_another_version_in_its_own_environment() -> None:
    shipped = find_manifest("hermes-stream")
    old = find_manifest("hermes-stream@0.18.2")
    assert old.name == "hermes-stream@0.18.2" and old.package.version == "0.18.2"
    assert old.program == shipped.program and old.kind == shipped.kind
    assert old.package.env_name != shipped.package.env_name
    assert old.package.spec_hash() != shipped.package.spec_hash()
    assert old.package.label == "hermes-agent==0.18.2"


def test_release_names_are_split_only_when_well_formed() -> None:
    assert split_release("litellm-batch@1.109.3") == ("litellm-batch", "1.109.3")
    assert split_release("litellm-batch") == ("litellm-batch", None)
    assert split_release("x@../../etc") == ("x@../../etc", None)  # never a path


def test_with_releases_adds_variants_and_names_an_unknown_peer() -> None:
    manifests = shipped_manifests()
    more = with_releases(manifests, ["agno-batch@3.0.11", "agno-batch", "agno-batch@3.0.11"])
    assert [m.name for m in more[len(manifests):]] == ["agno-batch@3.0.11"]
    with pytest.raises(ManifestError, match="unknown peer 'nobody'"):
        with_releases(manifests, ["nobody@1.0"])


def test_a_peer_without_a_package_has_no_releases() -> None:
    shipped = find_manifest("hermes-stream")
    none = replace(shipped, package=replace(shipped.package, ecosystem="none"))
    with pytest.raises(ManifestError, match="no package"):
        released(none, "1.0")


def test_the_matrix_refuses_a_release_of_an_unknown_peer(capsys: pytest.CaptureFixture[str]
                                                         ) -> None:
    assert main(["matrix", "--peers", "nobody@1.0", "--out", "/nonexistent"]) == 2
    assert "unknown peer(s) nobody@1.0" in capsys.readouterr().err
