"""smg's reasoning parsers, driven through the gateway (scrubbers/peers/engines/smg/).

The behaviour tests need the peer environment (`scrubcheck peers install
smg-qwen3-stream`), are marked `peers` and are skipped, with that command as the reason,
where it has not been built. Each one checks that no smg process outlives its peer.
"""

from __future__ import annotations

import os
import shutil
import signal
import time
from pathlib import Path

import pytest

from scrubcheck.adapters import load_adapter
from scrubcheck.adapters.drive import run_stream
from scrubcheck.adapters.resolve import AdapterError
from scrubcheck.model import Context
from scrubcheck.peers import find_manifest, read_marker

NAME = "smg-qwen3-stream"
PREFILLED = Context(starts_in_reasoning=True)
SMG_TITLE = "smg::router"  # the title smg gives its process (setproctitle)

pytestmark = pytest.mark.peers


def _processes() -> dict[int, tuple[int, str]]:
    """pid -> (parent pid, command line) of every process."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(
                "utf-8", "replace")
        except OSError:
            continue
        state, parent = stat.rsplit(")", 1)[1].split()[:2]
        if state != "Z":  # a zombie has ended (its parent has not waited for it yet)
            found[int(entry.name)] = (int(parent), cmdline)
    return found


def _smg_children(pid: int) -> list[int]:
    return [p for p, (parent, cmd) in _processes().items()
            if parent == pid and cmd.startswith(SMG_TITLE)]


def _gone(pids: list[int], within: float = 5.0) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        alive = _processes()
        if not any(p in alive for p in pids):
            return True
        time.sleep(0.1)
    return False


@pytest.fixture
def peer():
    manifest = find_manifest(NAME)
    if read_marker(manifest.package) is None:
        pytest.skip(f"peer {NAME} is not installed (scrubcheck peers install {NAME})")
    adapter = load_adapter(f"peer:{NAME}")
    if not adapter.process.alive():  # load_adapter keeps adapters: a closed one restarts
        adapter.request({"op": "hello"})
    pid = adapter.process.proc.pid
    servers = _smg_children(pid)
    assert len(servers) == 1, f"one smg process under the adapter, found {servers}"
    yield adapter, servers[0]
    adapter.close()
    assert _gone([pid, servers[0]]), "the adapter or its smg outlived the peer's close"


def test_legacy_qwen3_splits_the_first_block_and_leaks_the_second(peer):
    adapter, _ = peer
    assert adapter.installed_version == "1.13.0"
    trace = run_stream(adapter, Context(), ["<think>a</think>b<think>c</think>d"])
    assert trace.ok and trace.reasoning == "a"
    assert trace.output == "bc</think>d"  # a second open tag is dropped, its close kept


def test_answers_come_per_delta_not_at_flush(peer):
    adapter, _ = peer
    trace = run_stream(adapter, Context(), ["<think>plan", "</think>", "ans", "wer"])
    assert trace.ok and trace.returns == ["", "", "ans", "wer", ""]
    assert trace.reasoning == "plan"


def test_thinking_on_starts_in_reasoning(peer):
    adapter, _ = peer
    trace = run_stream(adapter, PREFILLED, ["r1", "</think>", "answer"])
    assert trace.ok and trace.reasoning == "r1" and trace.output == "answer"
    off = run_stream(adapter, Context(), ["r1", "</think>", "answer"])
    assert off.output == "r1</think>answer" and off.reasoning == ""


def test_a_close_tag_split_across_deltas_is_never_found(peer):
    adapter, _ = peer
    trace = run_stream(adapter, PREFILLED, ["r</th", "ink>answer"])
    assert trace.ok and trace.output == "" and trace.reasoning == "r</think>answer"


def test_an_unknown_parser_name_fails_the_start_naming_it(tmp_path):
    manifest = find_manifest(NAME)
    if read_marker(manifest.package) is None:
        pytest.skip(f"peer {NAME} is not installed (scrubcheck peers install {NAME})")
    folder = tmp_path / "smg-no-such-parser"
    folder.mkdir()
    text = (manifest.folder / "peer.toml").read_text(encoding="utf-8")
    (folder / "peer.toml").write_text(text.replace(f'name = "{NAME}"',
                                                   'name = "smg-no-such-parser"'))
    program = (manifest.folder / "adapter.py").read_text(encoding="utf-8")
    (folder / "adapter.py").write_text(program.replace('"qwen3"', '"no_such_parser"'))
    before = {p for p, (_, cmd) in _processes().items() if cmd.startswith(SMG_TITLE)}
    started = time.monotonic()
    with pytest.raises(AdapterError, match="no_such_parser") as raised:
        load_adapter(f"peer:{folder / 'peer.toml'}")
    assert "no reasoning parser named 'no_such_parser'" in str(raised.value)
    assert time.monotonic() - started < 30
    orphans = {p for p, (parent, cmd) in _processes().items()
               if cmd.startswith(SMG_TITLE) and parent == 1}
    assert orphans <= before  # nothing was left running
    shutil.rmtree(folder)


def test_a_server_that_dies_makes_the_stream_raise_without_hanging(peer):
    adapter, smg = peer
    assert run_stream(adapter, Context(), ["<think>a</think>b"]).ok
    os.kill(smg, signal.SIGKILL)
    started = time.monotonic()
    trace = run_stream(adapter, Context(), ["<think>a", "</think>b"])
    assert time.monotonic() - started < 15
    assert trace.error is not None and "smg" in trace.error.summary
    assert "RigError" in trace.error.summary


def test_sigterm_stops_the_adapter_and_its_smg(peer):
    adapter, smg = peer
    pid = adapter.process.proc.pid
    os.kill(pid, signal.SIGTERM)
    assert _gone([pid, smg]), "SIGTERM left the adapter or smg running"


def test_the_registry_lists_the_engines_names_and_probes_a_parsers_tokens():
    import json
    import subprocess

    from scrubcheck.peers.envs import env_dir, python_of

    manifest = find_manifest(NAME)
    if read_marker(manifest.package) is None:
        pytest.skip(f"peer {NAME} is not installed (scrubcheck peers install {NAME})")
    program = manifest.folder.parent / "engines" / "smg" / "registry.py"
    before = {p for p, (_, cmd) in _processes().items() if cmd.startswith(SMG_TITLE)}
    python = str(python_of(env_dir(manifest.package)))
    refused = subprocess.run([python, str(program), "--names", "qwen3,no_such_parser"],
                             capture_output=True, text=True, timeout=60)
    assert refused.returncode != 0 and "no_such_parser" in refused.stderr
    done = subprocess.run([python, str(program), "--names", "qwen3,deepseek_r1",
                           "--variants", "legacy"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    listing = json.loads(done.stdout)
    assert (listing["engine"], listing["version"]) == ("smg", "1.13.0")
    qwen3, r1 = sorted(listing["parsers"], key=lambda p: p["name"], reverse=True)
    assert qwen3["name"] == "qwen3" and qwen3["variant"] == "legacy" and qwen3["runnable"]
    assert qwen3["tokens"] == ["<think>", "</think>"] and qwen3["alias_of"] is None
    assert qwen3["flags"] == {"enable_thinking": True}
    assert r1["starts_in_reasoning"] == "always" and r1["flags"] == {}
    leftover = [p for p, (parent, cmd) in _processes().items() if cmd.startswith(SMG_TITLE)
                and parent == 1 and p not in before]  # an orphan: its registry has ended
    assert not leftover
