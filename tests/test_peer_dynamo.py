"""dynamo's Rust reasoning parsers through its own HTTP frontend (scrubbers/peers/engines/dynamo).

The manifest test always runs. The others need the peer environment (`scrubcheck peers
install dynamo-qwen3-stream`), are marked `peers` and are skipped, with that command as
the reason, where it has not been built. Every behaviour test checks afterwards that no
dynamo server process it started is left running.
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import psutil
import pytest

from scrubcheck.adapters import load_adapter
from scrubcheck.adapters.drive import run_stream
from scrubcheck.adapters.resolve import AdapterError
from scrubcheck.model import Context
from scrubcheck.peers import find_manifest, read_marker

NAME = "dynamo-qwen3-stream"
PREFILLED = Context(starts_in_reasoning=True)
SERVER = "engines/dynamo/server.py"


def _servers(program: int | None = None) -> set[int]:
    """Pids of the dynamo server processes of this worktree's engine adapter: all of them,
    or those started by the adapter program `program` (other runs may have their own)."""
    engine = str(Path(find_manifest(NAME).folder).parent / "engines" / "dynamo")
    if program is None:
        procs = list(psutil.process_iter())
    else:
        try:
            procs = psutil.Process(program).children(recursive=True)
        except psutil.NoSuchProcess:
            return set()
    found = set()
    for proc in procs:
        try:
            cmdline = " ".join(proc.cmdline())
        except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
            continue
        if SERVER in cmdline and engine in cmdline:
            found.add(proc.pid)
    return found


def _gone(pids: set[int], wait: float = 10.0) -> bool:
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        if not any(psutil.pid_exists(p) and psutil.Process(p).status() != psutil.STATUS_ZOMBIE
                   for p in pids):
            return True
        time.sleep(0.1)
    return False


@pytest.fixture
def peer():
    """The installed probe peer; afterwards, none of the servers it started is running."""
    if read_marker(find_manifest(NAME).package) is None:
        pytest.skip(f"heavy peer {NAME} is not installed (scrubcheck peers install {NAME})")
    adapter = load_adapter(f"peer:{NAME}")
    adapter.request({"op": "hello"})  # (re)starts the program: an earlier test closed it
    started = _servers(adapter.process.proc.pid)
    try:
        yield adapter, started
    finally:
        if adapter.process.proc is not None:
            started |= _servers(adapter.process.proc.pid)
        adapter.close()
        assert _gone(started), "a dynamo server outlived its adapter"


def test_manifest_is_heavy_and_names_the_engine_adapter():
    manifest = find_manifest(NAME)
    assert manifest.heavy and manifest.package.label == "ai-dynamo-runtime==1.6.1"
    assert manifest.claims == ("think",) and "starts_in_reasoning" in manifest.context
    program = manifest.program.read_text()
    assert 'SCRUBCHECK_ENGINE_PARSER"] = "qwen3"' in program
    assert (manifest.folder.parent / "engines" / "dynamo" / "adapter.py").is_file()


@pytest.mark.peers
def test_prefilled_stream_splits_per_delta(peer):
    adapter, started = peer
    assert adapter.installed_version == "1.6.1" and len(started) == 1
    trace = run_stream(adapter, PREFILLED, ["plan", "</think>", "ans", "wer"])
    assert trace.ok and trace.reasoning == "plan" and trace.output == "answer"
    assert trace.returns == ["", "", "ans", "wer", ""]  # what the frontend sent per frame


@pytest.mark.peers
def test_split_tags_whole_blocks_and_a_second_block(peer):
    adapter, _ = peer
    split = run_stream(adapter, Context(), ["Hi <thi", "nk>secret</th", "ink>answer"])
    assert split.output == "Hi answer" and split.reasoning == "secret"
    second = run_stream(adapter, PREFILLED, ["r1", "</think>", "ans ", "<think>", "r2",
                                             "</think>", " tail"])
    assert second.reasoning == "r1r2" and second.output == "ans  tail"


@pytest.mark.peers
def test_without_the_prefill_a_bare_close_tag_is_dropped_and_the_reasoning_kept(peer):
    adapter, _ = peer
    trace = run_stream(adapter, Context(), ["R</think>C"])
    assert trace.output == "RC" and trace.reasoning == ""


@pytest.mark.peers
def test_an_open_tag_split_after_its_first_character_is_not_seen(peer):
    """Found with this adapter: '<' alone is emitted at once, so the tag is missed."""
    adapter, _ = peer
    trace = run_stream(adapter, Context(), ["<", "think>", "R", "</think>", "C"])
    assert trace.output == "<think>RC" and trace.reasoning == ""


@pytest.mark.peers
def test_a_name_dynamo_does_not_have_is_refused_naming_it(tmp_path):
    manifest = find_manifest(NAME)
    if read_marker(manifest.package) is None:
        pytest.skip(f"heavy peer {NAME} is not installed (scrubcheck peers install {NAME})")
    folder = tmp_path / "dynamo-nosuch-probe"
    folder.mkdir()
    text = manifest.program.read_text().replace('"qwen3"', '"nosuch_parser"')
    text = text.replace('os.environ.get("SCRUBCHECK_PEERLOOP_DIR", os.path.dirname(here))',
                        'os.environ["SCRUBCHECK_PEERLOOP_DIR"]')
    (folder / "adapter.py").write_text(text)
    toml = (manifest.folder / "peer.toml").read_text().replace(NAME, "dynamo-nosuch-probe")
    (folder / "peer.toml").write_text(toml)
    with pytest.raises(AdapterError, match="no reasoning parser named 'nosuch_parser'"):
        load_adapter(f"peer:{folder / 'peer.toml'}")
    # it exits before it starts a server: no server names the temporary folder's model
    assert not any(str(tmp_path) in " ".join(p.cmdline()) for p in psutil.process_iter()
                   if p.pid in _servers())


@pytest.mark.peers
def test_a_server_that_dies_makes_the_stream_raise_not_hang(peer):
    adapter, started = peer
    assert run_stream(adapter, PREFILLED, ["a", "</think>", "b"]).ok
    (pid,) = started
    os.kill(pid, signal.SIGKILL)
    clock = time.monotonic()
    trace = run_stream(adapter, PREFILLED, ["a", "</think>", "b"])
    assert time.monotonic() - clock < 15
    assert trace.error is not None
    assert "dynamo server" in str(trace.error) and str(pid) in str(trace.error)


@pytest.mark.peers
def test_the_server_stops_with_its_adapter_on_sigterm(peer):
    adapter, started = peer
    program = adapter.process.proc
    assert program is not None and started
    program.send_signal(signal.SIGTERM)
    program.wait(15)
    assert _gone(started)
