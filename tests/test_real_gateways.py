"""Real gateways (`scrubcheck gateways install`) with the replay server as their upstream.

Two kinds of tests:

- `running_gateway` itself, on stand-in gateways (small Python servers described
  by a manifest built here): it waits until the gateway answers, says why when it
  does not start, refuses one that listens beyond loopback, and always stops the
  whole process group, on error and on Ctrl-C too. These need no install.
- The real products (marked `peers`), each skipped with its install command when
  not installed: a few corpus scenarios streamed through each configuration with
  the official openai client, asserting what the client received. These are observations of
  the pinned versions (LiteLLM proxy 1.108.7, Portkey's gateway 1.15.2): each
  would fail if the product changed what it does with reasoning.

Every gateway started here is stopped by its fixture, also when a test fails,
and the fixture then checks that no process of it is left.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import openai
import psutil
import pytest

from scrubcheck.cli import main
from scrubcheck.corpus import Corpus
from scrubcheck.gateway.products import (
    Endpoint,
    GatewayError,
    GatewayManifest,
    GatewayManifestError,
    find_gateway,
    installed,
    parse_choice,
    running_gateway,
    shipped_gateways,
)
from scrubcheck.gateway.products.envs import gateway_env, gateways_root
from scrubcheck.gateway.products.manifest import GatewayConfig, load_gateway
from scrubcheck.gateway.replay import Catalog
from scrubcheck.gateway.server import ReplayServer, running
from scrubcheck.gateway.upstream import Shape, selector
from scrubcheck.peers.envs import Installed, write_marker
from scrubcheck.peers.manifest import Package

PROMPT = [{"role": "user", "content": "hi"}]


# ----------------------------------------------------------------- helpers
def leftovers(marker: str) -> list[str]:
    """Command lines of live processes that mention `marker` (a gateway's folder)."""
    found = []
    for process in psutil.process_iter(["pid", "cmdline"]):
        cmdline = " ".join(process.info["cmdline"] or [])
        if marker in cmdline and process.info["pid"] != os.getpid():
            found.append(f"{process.info['pid']}: {cmdline[:200]}")
    return found


def wait_gone(marker: str) -> list[str]:
    """Processes mentioning `marker` still there after a while (one being reaped is not)."""
    return settle(lambda: leftovers(marker), until_empty=True)


def settle(check, until_empty: bool, bound_s: float = 10.0):
    """Poll `check()` until it is empty (or, without `until_empty`, until it is not) or
    `bound_s` has passed; its last value."""
    deadline = time.monotonic() + bound_s
    while bool(found := check()) == until_empty and time.monotonic() < deadline:
        time.sleep(0.05)
    return found


def group_members(group: int) -> list[int]:
    """Live processes in process group `group` (a gateway's session)."""
    members = []
    for pid in psutil.pids():
        try:
            if os.getpgid(pid) == group and psutil.Process(pid).status() != psutil.STATUS_ZOMBIE:
                members.append(pid)
        except (ProcessLookupError, psutil.NoSuchProcess):
            continue
    return members


def stream(endpoint: Endpoint, name: str) -> dict:
    """What an openai client receives streaming `name` through the gateway."""
    client = openai.OpenAI(base_url=endpoint.base_url, api_key=endpoint.api_key,
                           default_headers=endpoint.headers, max_retries=0, timeout=60)
    content, reasoning, finish = [], [], []
    for chunk in client.chat.completions.create(model=name, messages=PROMPT, stream=True):
        if not chunk.choices:
            continue
        delta = chunk.choices[0].delta
        if delta.content:
            content.append(delta.content)
        extra = getattr(delta, "reasoning_content", None)
        if extra:
            reasoning.append(extra)
        if chunk.choices[0].finish_reason:
            finish.append(chunk.choices[0].finish_reason)
    return {"content": content, "reasoning": reasoning, "finish": finish}


def complete(endpoint: Endpoint, name: str) -> dict:
    """What an openai client receives asking for `name` without streaming."""
    client = openai.OpenAI(base_url=endpoint.base_url, api_key=endpoint.api_key,
                           default_headers=endpoint.headers, max_retries=0, timeout=60)
    answer = client.chat.completions.create(model=name, messages=PROMPT)
    message = answer.choices[0].message
    return {"content": message.content, "reasoning": getattr(message, "reasoning_content", None),
            "finish": answer.choices[0].finish_reason}


# ------------------------------------------------------- stand-in gateways
#: A gateway stand-in: serves GET / (200) and nothing else, on the host and port it is
#: given; BEHAVIOUR picks a way to misbehave.
STAND_IN = textwrap.dedent("""
    import http.server, os, subprocess, sys, time
    host, port, behaviour = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    if behaviour == "exit":
        print("stand-in: cannot read its config", file=sys.stderr)
        sys.exit(3)
    if behaviour == "silent":
        time.sleep(600)
    if behaviour == "forks":
        subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)", "stand-in-child"])
    if behaviour == "ignores-term":
        import signal
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    http.server.ThreadingHTTPServer((host, port), http.server.SimpleHTTPRequestHandler
                                    ).serve_forever()
""")


@pytest.fixture
def stand_in_root(tmp_path, monkeypatch) -> Path:
    """A cache of its own (SCRUBCHECK_CACHE) and the stand-in's program."""
    monkeypatch.setenv("SCRUBCHECK_CACHE", str(tmp_path / "cache"))
    (tmp_path / "stand_in.py").write_text(STAND_IN, encoding="utf-8")
    return tmp_path


def stand_in(folder: Path, behaviour: str, host: str = "127.0.0.1",
             install: bool = True) -> GatewayManifest:
    package = Package("pypi", f"stand-in-{behaviour}", "1.0")
    manifest = GatewayManifest(
        name=f"stand-in-{behaviour}", title="stand-in", homepage="-", package=package,
        command=(sys.executable, str(folder / "stand_in.py"), host, "${port}", behaviour),
        ready="/", base_path="/v1", start_timeout_s=5, default_config="only",
        configs=(GatewayConfig("only", "the only one", "none"),), folder=folder)
    if install:
        gateway_env(manifest).mkdir(parents=True)
        write_marker(package, Installed(package.spec_hash(), "1.0", "now", 0.0), gateways_root())
    return manifest


def test_a_stand_in_starts_answers_and_is_stopped(stand_in_root):
    manifest = stand_in(stand_in_root, "good")
    with running_gateway(manifest, None, "http://127.0.0.1:9/v1") as endpoint:
        assert endpoint.base_url.startswith("http://127.0.0.1:")
        assert endpoint.base_url.endswith("/v1") and endpoint.label == "stand-in-good:only"
        assert psutil.pid_exists(endpoint.pid)
    assert not wait_gone(str(stand_in_root / "stand_in.py"))


def test_not_installed_names_the_install_command(stand_in_root):
    manifest = stand_in(stand_in_root, "good", install=False)
    with pytest.raises(GatewayError, match="scrubcheck gateways install stand-in-good"):
        with running_gateway(manifest, None, "http://127.0.0.1:9/v1"):
            pass


def test_a_gateway_that_exits_quotes_its_output(stand_in_root):
    manifest = stand_in(stand_in_root, "exit")
    with pytest.raises(GatewayError, match="exited while starting") as caught:
        with running_gateway(manifest, None, "http://127.0.0.1:9/v1"):
            pass
    assert "cannot read its config" in str(caught.value) and "exit code 3" in str(caught.value)


def test_a_gateway_that_never_answers_is_stopped_within_its_start_time(stand_in_root):
    manifest = stand_in(stand_in_root, "silent")
    started = time.monotonic()
    with pytest.raises(GatewayError, match="did not answer GET .* within 2 s"):
        with running_gateway(manifest, None, "http://127.0.0.1:9/v1", start_timeout_s=2):
            pass
    assert time.monotonic() - started < 30
    assert not wait_gone(str(stand_in_root / "stand_in.py"))


def test_a_gateway_listening_beyond_loopback_is_refused_and_stopped(stand_in_root):
    manifest = stand_in(stand_in_root, "good", host="0.0.0.0")
    with pytest.raises(GatewayError, match=r"listens on 0\.0\.0\.0:\d+, not on loopback only"):
        with running_gateway(manifest, None, "http://127.0.0.1:9/v1"):
            pass
    assert not wait_gone(str(stand_in_root / "stand_in.py"))


@pytest.mark.parametrize("behaviour", ["forks", "ignores-term"])
def test_an_error_in_the_block_stops_the_whole_process_group(stand_in_root, behaviour):
    manifest = stand_in(stand_in_root, behaviour)
    with pytest.raises(RuntimeError, match="the audit failed"):
        with running_gateway(manifest, None, "http://127.0.0.1:9/v1"):
            if behaviour == "forks":
                assert settle(lambda: leftovers("stand-in-child"), until_empty=False)
            raise RuntimeError("the audit failed")
    assert not wait_gone(str(stand_in_root / "stand_in.py"))
    assert not wait_gone("stand-in-child")


def test_ctrl_c_in_the_block_stops_the_gateway(stand_in_root):
    manifest = stand_in(stand_in_root, "good")
    with pytest.raises(KeyboardInterrupt):
        with running_gateway(manifest, None, "http://127.0.0.1:9/v1"):
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(5)  # the signal arrives here
    assert not wait_gone(str(stand_in_root / "stand_in.py"))




# --------------------------------------------------------------- manifests
def test_shipped_manifests_load_with_their_configurations():
    manifests = {m.name: m for m in shipped_gateways()}
    assert [c.name for c in manifests["litellm-proxy"].configs] == ["plain", "vllm", "merge"]
    assert [c.name for c in manifests["portkey"].configs] == ["openai"]
    assert manifests["litellm-proxy"].package.label == "litellm==1.108.7"
    assert manifests["portkey"].package.label == "npm @portkey-ai/gateway@1.15.2"
    manifest, config = parse_choice("litellm-proxy:merge")
    assert config.file is not None and "merge_reasoning_content_in_choices: true" in \
        config.file.read_text(encoding="utf-8")
    assert parse_choice("portkey")[1].name == "openai"


@pytest.mark.parametrize("choice, message", [
    ("nope", "unknown gateway 'nope'"),
    ("litellm-proxy:nope", "has no configuration 'nope' .*plain, vllm, merge"),
])
def test_an_unknown_choice_is_named(choice, message):
    with pytest.raises(GatewayManifestError, match=message):
        parse_choice(choice)


def test_a_manifest_with_an_unknown_template_field_is_refused(tmp_path):
    folder = tmp_path / "bad"
    folder.mkdir()
    (folder / "c.yaml").write_text("api_base: ${upstreem}\n", encoding="utf-8")
    (folder / "gateway.toml").write_text(textwrap.dedent("""
        name = "bad"
        title = "t"
        homepage = "h"
        command = ["x", "${port}"]
        ready = "/"
        default_config = "c"
        [package]
        ecosystem = "pypi"
        name = "x"
        version = "1.0"
        [configs.c]
        title = "t"
        reasoning = "r"
        file = "c.yaml"
    """), encoding="utf-8")
    with pytest.raises(GatewayManifestError, match=r"gateway.toml: \[configs.c\] c.yaml: "
                                                   r"unknown field\(s\) upstreem"):
        load_gateway(folder / "gateway.toml")


def test_gateways_list_and_install_on_the_command_line(capsys):
    assert main(["gateways", "list"]) == 0
    out = capsys.readouterr().out
    for line in ("litellm-proxy:plain (default)", "litellm-proxy:vllm", "litellm-proxy:merge",
                 "portkey:openai (default)"):
        assert line in out
    assert main(["gateways", "install", "nope"]) == 2
    assert "unknown gateway(s) nope; known: litellm-proxy, portkey" in capsys.readouterr().err


# ------------------------------------------------------------ real gateways
@pytest.fixture(scope="module")
def upstream(corpus: Corpus) -> Iterator[ReplayServer]:
    with running(ReplayServer(Catalog(corpus.scenarios))) as server:
        yield server


def gateway_fixture(choice: str):
    """A module-scoped fixture: gateway `choice` running with the replay server as its
    upstream (skipped, naming the install command, when not installed); stopped at the
    end of the module, whatever happened, and then none of its processes may be left."""
    @pytest.fixture(scope="module")
    def fixture(upstream: ReplayServer) -> Iterator[Endpoint]:
        manifest, config = parse_choice(choice)
        if installed(manifest) is None:
            pytest.skip(f"gateway {manifest.name} is not installed "
                        f"({manifest.install_command})")
        with running_gateway(manifest, config.name, upstream.url) as endpoint:
            yield endpoint
        left = settle(lambda: group_members(endpoint.pid), until_empty=True)
        assert not left, f"{choice} left processes behind: {left}"
    return fixture


litellm_plain = gateway_fixture("litellm-proxy:plain")
litellm_vllm = gateway_fixture("litellm-proxy:vllm")
litellm_merge = gateway_fixture("litellm-proxy:merge")
portkey = gateway_fixture("portkey:openai")


TWO_BLOCKS = "blocks-two-blocks-answer-between"
TWO_BLOCKS_DELTAS = ["<think>", "First, list the base hues.", "</think>",
                     "The primary colours are red, yellow and blue.", "<think>",
                     "now add a tip on blending pairs", "</think>",
                     " Mix two of them to get a secondary colour."]
ANSWER = "The primary colours are red, yellow and blue. Mix two of them to get a secondary colour."
SPLIT_CLOSE = "split-close-inside-name"  # "<think>…</thin" + "k>Son las 15:30."
NATIVE = Shape.NATIVE


@pytest.mark.peers
@pytest.mark.parametrize("config", ["litellm_plain", "litellm_vllm"])
def test_litellm_streams_inline_reasoning_through_untouched(config, request):
    """Neither the plain route nor the hosted_vllm provider parses tags in a stream:
    the deltas arrive as the model server sent them, boundaries and all."""
    endpoint = request.getfixturevalue(config)
    got = stream(endpoint, TWO_BLOCKS)
    assert got == {"content": TWO_BLOCKS_DELTAS, "reasoning": [], "finish": ["stop"]}
    got = stream(endpoint, SPLIT_CLOSE)
    assert got["content"][1] == "k>Son las 15:30." and got["reasoning"] == []


@pytest.mark.peers
@pytest.mark.parametrize("config", ["litellm_plain", "litellm_vllm"])
def test_litellm_splits_only_a_leading_block_of_a_non_streamed_answer(config, request):
    """Without streaming, LiteLLM moves a block at the very start of content to
    reasoning_content; a later block stays in content, tags and all."""
    endpoint = request.getfixturevalue(config)
    assert complete(endpoint, TWO_BLOCKS) == {
        "content": "The primary colours are red, yellow and blue.<think>now add a tip on "
                   "blending pairs</think> Mix two of them to get a secondary colour.",
        "reasoning": "First, list the base hues.", "finish": "stop"}
    assert complete(endpoint, SPLIT_CLOSE)["content"] == "Son las 15:30."


SEPARATORS = "unicode-line-and-paragraph-separators-around-block"  # U+2029 and U+2028 in content


@pytest.mark.peers
def test_litellm_hosted_vllm_drops_every_streamed_chunk_holding_a_line_separator(
        litellm_plain, litellm_vllm):
    """hosted_vllm reads the SSE body with httpx's aiter_lines, which breaks lines where
    str.splitlines does, at U+2028 and U+2029 too: the halves of such a `data:` line
    are no JSON and the chunk is gone. The plain route (the openai SDK's SSE reader)
    keeps it."""
    sent = ["Para one.\u2029", "Para two,\u2028same paragraph."]
    assert stream(litellm_plain, selector(SEPARATORS, NATIVE))["content"] == sent
    dropped = stream(litellm_vllm, selector(SEPARATORS, NATIVE))
    assert dropped == {"content": [], "reasoning": ["keep the separators the source used"],
                       "finish": ["stop"]}


@pytest.mark.peers
def test_litellm_keeps_native_reasoning_on_its_channel(litellm_plain):
    got = stream(litellm_plain, selector(TWO_BLOCKS, NATIVE))
    assert got == {"content": ["The primary colours are red, yellow and blue.",
                               " Mix two of them to get a secondary colour."],
                   "reasoning": ["First, list the base hues.", "now add a tip on blending pairs"],
                   "finish": ["stop"]}


@pytest.mark.peers
def test_litellm_keeps_length_and_makes_a_missing_finish_reason_stop(litellm_plain):
    """`length` passes; a stream that ends without a finish_reason (the model server
    was cut off) reaches the client as `stop`, a normal end."""
    assert stream(litellm_plain, "field-reuse-stream-ends-in-block")["finish"] == ["length"]
    assert stream(litellm_plain, "inline-finish-null-not-recovered")["finish"] == ["stop"]


@pytest.mark.peers
def test_litellm_merge_writes_native_reasoning_into_content(litellm_merge):
    """merge_reasoning_content_in_choices: the first reasoning piece gets <think>, the
    content after it </think>; a second piece goes into content without any tag."""
    got = stream(litellm_merge, selector(TWO_BLOCKS, NATIVE))
    assert got == {"content": ["<think>First, list the base hues.",
                               "</think>The primary colours are red, yellow and blue.",
                               "now add a tip on blending pairs",
                               " Mix two of them to get a secondary colour."],
                   "reasoning": [], "finish": ["stop"]}
    split = stream(litellm_merge, selector("split-sglang-qwen3-hi-thi", NATIVE))
    assert split["content"] == ["Hi ", "<think>secret", "</think>answer"]
    cut = stream(litellm_merge, selector("field-reuse-stream-ends-in-block", NATIVE))
    assert cut["content"] == ["Partial answer: the first two steps are done.",
                              "<think>next I need to verify step three against the logs"]
    assert cut["finish"] == ["length"]  # the block is never closed


@pytest.mark.peers
def test_litellm_merge_leaves_inline_streams_and_non_streamed_answers_alone(litellm_merge):
    assert stream(litellm_merge, TWO_BLOCKS)["content"] == TWO_BLOCKS_DELTAS
    assert complete(litellm_merge, selector(TWO_BLOCKS, NATIVE))["content"] == ANSWER


@pytest.mark.peers
def test_portkey_passes_non_streamed_answers_through(portkey):
    assert complete(portkey, TWO_BLOCKS) == {"content": "".join(TWO_BLOCKS_DELTAS),
                                             "reasoning": None, "finish": "stop"}
    native = complete(portkey, selector(TWO_BLOCKS, NATIVE))
    assert native["content"] == ANSWER and native["reasoning"]
    assert complete(portkey, "inline-finish-null-not-recovered")["finish"] is None


@pytest.mark.peers
def test_portkey_fails_every_stream_on_node(portkey):
    """Portkey 1.15.2 on Node appends headers to the upstream's immutable fetch
    response (https://github.com/Portkey-AI/gateway/issues/1389): HTTP 500."""
    with pytest.raises(openai.InternalServerError, match="Something went wrong"):
        stream(portkey, TWO_BLOCKS)
    log = Path(portkey.log).read_text(encoding="utf-8", errors="replace")
    assert "TypeError: immutable" in log


@pytest.mark.peers
def test_litellm_without_a_database_answers_a_wrong_key_with_400(litellm_plain):
    """The master key is required, but a wrong key is looked up as a virtual key,
    and without a database that is HTTP 400, not 401."""
    wrong = Endpoint(litellm_plain.gateway, litellm_plain.config, litellm_plain.base_url,
                     "sk-wrong")
    with pytest.raises(openai.BadRequestError, match="No connected db"):
        complete(wrong, TWO_BLOCKS)
    assert complete(litellm_plain, TWO_BLOCKS)["finish"] == "stop"


def test_find_gateway_names_the_shipped_ones():
    assert find_gateway("portkey").name == "portkey"
    with pytest.raises(GatewayManifestError, match="shipped gateways: litellm-proxy, portkey"):
        find_gateway("kong")


# ------------------------------------------------- gateway audit --gateway-name
def gateway_pids(manifest: GatewayManifest) -> set[int]:
    marker = str(gateway_env(manifest))
    return {int(line.split(":", 1)[0]) for line in leftovers(marker)}


def test_gateway_audit_of_an_unknown_or_missing_gateway_exits_2(tmp_path, monkeypatch, capsys):
    args = ["gateway", "audit", "--id", TWO_BLOCKS, "--upstream-port", "0", "--no-progress"]
    assert main([*args, "--gateway-name", "kong"]) == 2
    assert "unknown gateway 'kong'" in capsys.readouterr().err
    monkeypatch.setenv("SCRUBCHECK_CACHE", str(tmp_path / "empty"))
    assert main([*args, "--gateway-name", "litellm-proxy:merge"]) == 2
    assert "run `scrubcheck gateways install litellm-proxy`" in capsys.readouterr().err


@pytest.mark.peers
def test_gateway_audit_starts_litellm_audits_it_and_stops_it(tmp_path, capsys):
    """The bounded CI run of the issue: three scenarios through the plain route, both
    upstream shapes, streaming and not; the verdicts are what this LiteLLM does."""
    manifest = find_gateway("litellm-proxy")
    if installed(manifest) is None:
        pytest.skip(f"gateway litellm-proxy is not installed ({manifest.install_command})")
    before = gateway_pids(manifest)
    code = main(["gateway", "audit", "--gateway-name", "litellm-proxy:plain", "--id", TWO_BLOCKS,
                 "--id", SPLIT_CLOSE, "--id", "inline-finish-null-not-recovered",
                 "--upstream-port", "0", "--no-progress", "--out", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 1, out
    report = json.loads((tmp_path / "litellm-proxy-plain.json").read_text(encoding="utf-8"))
    passes = {(r["id"], r["shape"]): [(p["action"], p["clients"]["raw"]["outcome"],
                                        p["clients"]["scrubbed"]["outcome"])
                                       for p in r["passes"]] for r in report["results"]}
    fine = ("passed-through", "right", "right")
    assert passes == {  # per shape: [streamed, not streamed]
        # a leading block split out of a non-streamed answer, a later one left in content
        (TWO_BLOCKS, "inline"): [("passed-through", "LEAK", "right"), ("split", "LEAK", "right")],
        (TWO_BLOCKS, "native"): [fine, fine],
        (SPLIT_CLOSE, "inline"): [("passed-through", "LEAK", "right"), ("split", "right", "right")],
        (SPLIT_CLOSE, "native"): [fine, fine],
        # no finish_reason upstream arrives as stop, streamed or not: the scrubbing client
        # then recovers the unclosed block as the answer
        ("inline-finish-null-not-recovered", "inline"): [("finish-changed", "LEAK", "LEAK")] * 2,
        ("inline-finish-null-not-recovered", "native"): [("finish-changed", "right",
                                                          "right")] * 2,
    }
    assert report["label"] == "litellm-proxy:plain (LiteLLM proxy 1.108.7)"
    for r in report["results"]:
        failed = {p["mode"] for p in r["passes"] if set(p["clients"][c]["outcome"]
                                                        for c in ("raw", "scrubbed")) != {"right"}}
        assert r["reproduce"] == ([] if not failed else [
            f"scrubcheck gateway audit --gateway-name litellm-proxy:plain --upstream "
            f"{r['shape']} --id {r['id']} --upstream-port 0"
            + (" --stream-only" if failed == {"stream"} else "")]), r["id"]
    assert "sk-scrubcheck-" not in (tmp_path / "litellm-proxy-plain.json").read_text("utf-8")
    assert not settle(lambda: gateway_pids(manifest) - before, until_empty=True)


@pytest.mark.peers
def test_gateway_audit_of_portkey_errs_on_every_stream(tmp_path, capsys):
    manifest = find_gateway("portkey")
    if installed(manifest) is None:
        pytest.skip(f"gateway portkey is not installed ({manifest.install_command})")
    before = gateway_pids(manifest)
    code = main(["gateway", "audit", "--gateway-name", "portkey", "--id", TWO_BLOCKS,
                 "--upstream-port", "0", "--no-progress", "--out", str(tmp_path)])
    capsys.readouterr()
    assert code == 1
    report = json.loads((tmp_path / "portkey-openai.json").read_text(encoding="utf-8"))
    passes = {(r["shape"], p["mode"]): (p["action"], p["clients"]["scrubbed"]["outcome"])
              for r in report["results"] for p in r["passes"]}
    assert passes == {("inline", "stream"): ("error", "ERROR"),
                      ("inline", "complete"): ("passed-through", "right"),
                      ("native", "stream"): ("error", "ERROR"),
                      ("native", "complete"): ("passed-through", "right")}
    assert report["route"] == ("model={id} header:x-portkey-provider=[redacted] "
                               "header:x-portkey-custom-host=[redacted]")
    assert not settle(lambda: gateway_pids(manifest) - before, until_empty=True)
