"""Serving engines as peers: every registered parser name is a row or a listed row.

Most tests drive a made-up engine (a driver of plain Python in a folder of their own,
package ecosystem "none"), so the listing, the probe, the class it reads, aliases,
names that raise or hang, a parser that dies mid-stream and a name the engine does not
register are all checked without an engine installed. The tests marked `peers` read
the real vLLM, SGLang and lmdeploy registries where their environments are built.
"""

from __future__ import annotations

import os
import shutil
import signal
import textwrap
from pathlib import Path

import pytest

from scrubcheck.adapters import AdapterError, load_adapter
from scrubcheck.adapters.drive import run_stream
from scrubcheck.model import Context
from scrubcheck.peers import ManifestError, engines, find_manifest, read_marker, shipped_rows
from scrubcheck.peers.manifest import find_manifest as find_folder
from scrubcheck.peers.manifest import shipped_dir

DRIVER = '''
"""A made-up engine: a few parsers with the behaviours the listing must tell apart."""
import os
import time

PACKAGE = "fake-engine"
NAMES = {NAMES}


def version():
    return "1.0"


def names():
    return [{{"name": n, "code": c}} for n, c in NAMES.items()]


class Think:
    """<think> ... </think>, starting in reasoning when asked to (or always)."""

    def __init__(self, inside):
        self.inside, self.held = inside, ""

    def feed(self, delta):
        if delta == "DIE":
            os._exit(3)
        text, reasoning, content = self.held + delta, "", ""
        self.held = ""
        while text:
            tag = "</think>" if self.inside else "<think>"
            at = text.find(tag)
            if at < 0:
                keep = next((k for k in range(len(tag) - 1, 0, -1) if text.endswith(tag[:k])), 0)
                part, self.held = text[:len(text) - keep], text[len(text) - keep:]
                if self.inside:
                    reasoning += part
                else:
                    content += part
                break
            if self.inside:
                reasoning += text[:at]
            else:
                content += text[:at]
            text, self.inside = text[at + len(tag):], not self.inside
        return reasoning, content

    def flush(self):
        held, self.held = self.held, ""
        return ("", held) if not self.inside else (held, "")


class Nothing:
    def feed(self, delta):
        return "", delta

    def flush(self):
        return "", ""


def open_stream(name, tags, context):
    if name == "raises":
        raise ValueError("this parser needs a tokenizer entry it cannot find")
    if name == "hangs":
        time.sleep(3600)
    if name == "nothing":
        return Nothing()
    return Think(name == "always" or bool(context.get("starts_in_reasoning")))
'''

NAMES = {"think": "fake.Think", "think-again": "fake.Think", "always": "fake.Think",
         "dies": "fake.Dying", "raises": "fake.Raises", "hangs": "fake.Hangs",
         "nothing": "fake.Nothing"}


def _engine_folder(root: Path, names: dict[str, str]) -> Path:
    """An engines folder holding the shipped probe and loop, and the made-up engine."""
    shipped = shipped_dir() / "engines"
    root.mkdir(parents=True, exist_ok=True)
    for helper in ("probe.py", "engine_loop.py"):
        shutil.copy(shipped / helper, root / helper)
    folder = root / "fake"
    folder.mkdir(exist_ok=True)
    shutil.copy(shipped / "vllm" / "adapter.py", folder / "adapter.py")
    (folder / "driver.py").write_text(DRIVER.format(NAMES=repr(names)), encoding="utf-8")
    (folder / "engine.toml").write_text(textwrap.dedent('''\
        engine = "fake"
        title = "fake {name} parser"
        kind = "streaming splitter"
        entry = "fake.parser({name})"
        source = "https://example.org/fake/v{version}/{module_path}.py"
        heavy = false
        restrictions = ["a made-up engine for the tests"]
        [package]
        ecosystem = "none"
        '''), encoding="utf-8")
    return root


@pytest.fixture
def fake(tmp_path, monkeypatch):
    """The made-up engine in place of the shipped engines, its listing cached under tmp."""
    root = _engine_folder(tmp_path / "engines", NAMES)
    monkeypatch.setattr(engines, "engines_dir", lambda: root)
    monkeypatch.setenv("SCRUBCHECK_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("SCRUBCHECK_ENGINE_PROBE_SECONDS", "3")
    return root


def _rows(fake_root: Path) -> dict[str, object]:
    engine = engines.find_engine("fake")
    return {m.name: m for m in engines.engine_rows(engine)}


def test_every_registered_name_is_a_row_or_a_listed_row_with_its_reason(fake):
    rows = _rows(fake)
    assert sorted(rows) == sorted(f"fake:{n}" for n in NAMES)
    think = rows["fake:think"]
    assert not think.listed and think.claims == ("think",)
    assert "starts_in_reasoning" in think.context and not think.fixed_context
    assert think.claims_source == "https://example.org/fake/v1.0/fake.py"
    always = rows["fake:always"]
    assert not always.listed and dict(always.fixed_context) == {"starts_in_reasoning": True}
    assert "alias of fake:think" in rows["fake:think-again"].listed
    assert rows["fake:raises"].listed.startswith("cannot run here: ValueError: this parser")
    assert "did not finish within 3 s" in rows["fake:hangs"].listed
    assert "split none of the registry's reasoning delimiters" in rows["fake:nothing"].listed


def test_an_engine_row_is_driven_through_the_protocol(fake):
    adapter = load_adapter("peer:fake:think")
    try:
        out = run_stream(adapter, Context(), ["<thi", "nk>secret</think>", "answer"])
        assert out.ok and out.output == "answer" and out.reasoning == "secret"
        pre = run_stream(adapter, Context(starts_in_reasoning=True), ["secret</think>answer"])
        assert pre.ok and pre.output == "answer"
    finally:
        adapter.close()
    assert not adapter.process.alive()


def test_a_parser_that_dies_mid_stream_costs_its_stream_and_leaves_no_process(fake):
    adapter = load_adapter("peer:fake:dies")
    try:
        died = run_stream(adapter, Context(), ["<think>a</think>", "DIE", "b"])
        assert died.error is not None and "exit code 3" in str(died.error)
        again = run_stream(adapter, Context(), ["<think>a</think>b"])  # a fresh process
        assert again.ok and again.output == "b"
    finally:
        adapter.close()
    assert not adapter.process.alive()


def test_a_name_the_engine_does_not_register_is_a_clear_error(fake):
    with pytest.raises(ManifestError, match=r"fake registers no reasoning parser 'nope' "
                                            r"\(it registers: .*think"):
        find_manifest("fake:nope")
    with pytest.raises(AdapterError, match="nope"):
        load_adapter("peer:fake:nope")


def test_a_name_a_new_release_registers_becomes_a_row_without_code(fake, tmp_path):
    before = set(_rows(fake))
    _engine_folder(fake, {**NAMES, "think-v2": "fake.ThinkV2"})
    after = set(_rows(fake))
    assert after - before == {"fake:think-v2"}


def test_the_class_is_the_parser_s_own_format_else_the_narrowest_that_holds_its_pairs():
    every = engines.probes()
    think = next(p.id for p in every if p.open == ("<think>",))
    seed = next(p.id for p in every if p.open == ("<seed:think>",))
    ok = {"content": [True, True], "prefilled": True}

    def parser(name: str, *split: str) -> engines.Parser:
        return engines.Parser(name, "x.Y", "", {p: ok for p in split}, ("", "A"))

    assert engines.claimed_class(parser("qwen9", think), every)[0] == "think"
    assert engines.claimed_class(parser("kimi_k2", think), every)[0] == "kimi-k2"
    assert engines.claimed_class(parser("seed_oss", seed), every)[0] == "seed-oss"
    # named for a format whose pairs it did not split: not that format's class
    assert engines.claimed_class(parser("granite_thinking_parser", think), every)[0] \
        == "think"
    assert engines.claimed_class(parser("other", seed), every)[0] is None


def test_special_tokens_inside_a_delimiter_are_the_tokenizer_s_tokens():
    tags = engines.tokenizer_tags([engines.Probe("x", "kimi-xtml", ("<|open|>think",),
                                                 ("<|close|>think",))])
    assert tags == ["<|close|>", "<|open|>"]
    assert engines.tokenizer_tags([engines.Probe("y", "think", ("<think>",),
                                                 ("</think>",))]) == ["</think>", "<think>"]


def test_shipped_engines_share_their_hand_made_rows_environments_and_point_at_them():
    shipped = engines.shipped_engines()
    assert {e.name for e in shipped} >= {"vllm", "sglang", "lmdeploy"}
    for engine in shipped:
        assert engine.own_rows, engine.name
        for _, row in engine.own_rows:
            assert find_folder(row).package.spec_hash() == engine.package.spec_hash()


@pytest.mark.peers
@pytest.mark.parametrize("name, registered", [("vllm", 42), ("sglang", 36), ("lmdeploy", 8)])
def test_the_real_registries_are_read_whole(name, registered):
    engine = engines.find_engine(name)
    if read_marker(engine.package) is None:
        pytest.skip(f"engine {name} is not installed (scrubcheck peers install {name})")
    rows = engines.engine_rows(engine)
    assert len(rows) == registered  # the pinned release's registry, read from it
    assert all(m.listed or m.claims for m in rows)
    assert {m.name for m in rows} <= {m.name for m in shipped_rows()}


def test_no_process_is_left_by_the_listing(fake):
    _rows(fake)
    leftover = [pid for pid in os.listdir("/proc") if pid.isdigit()
                and "probe.py" in _cmdline(pid) and str(fake) in _cmdline(pid)]
    for pid in leftover:
        os.kill(int(pid), signal.SIGKILL)
    assert not leftover


def _cmdline(pid: str) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
    except OSError:
        return ""


def test_an_engine_row_runs_in_quick_mode_and_its_row_says_so(fake):
    from scrubcheck.matrix.runs import ENGINE_QUICK_NOTE, peer_row, row_settings
    from scrubcheck.runner import RunSettings

    manifest = find_manifest("fake:think")
    row = peer_row(manifest)
    assert row.engine == "fake" and ENGINE_QUICK_NOTE in row.restrictions
    base = RunSettings()
    assert row_settings(row, base) != base and row_settings(row, base).random_count == 2
    hand = peer_row(find_folder("hermes-stream"))
    assert row_settings(hand, base) == base and ENGINE_QUICK_NOTE not in hand.restrictions
