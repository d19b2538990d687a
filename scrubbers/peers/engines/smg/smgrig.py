"""A rig that drives smg's reasoning parsers offline: smg in gRPC mode before a fake scheduler.

Shared by `adapter.py` and `registry.py` (both run with the smg environment's Python;
standard library plus what smg's own install brings: grpcio, smg_grpc_proto, tokenizers).

Why gRPC: in front of an HTTP upstream smg passes the text through unparsed; with a gRPC
worker it tokenizes and detokenizes itself and runs `--reasoning-parser` on the decoded
text of every chunk it receives. So the rig is

- a tokenizer folder made here (no weights, no hub): byte-level BPE whose vocabulary is
  the 256 byte symbols, plus tag-like strings taken from smg's own library as added (not
  special) tokens, plus a chat template with an `enable_thinking` toggle that defaults to
  off and pre-fills `<think>` when on (smg reads the template: a toggle makes it start the
  parser in reasoning when the request turns thinking on);
- a fake `SglangScheduler` gRPC servicer in this process: `Generate` replays what the
  driver puts on the request's queue, one `GenerateStreamChunk(token_ids=...)` per item,
  then a `GenerateComplete`;
- one `smg launch` child process, kept for every stream;
- per stream, one chat completion request with `stream: true`, read as server-sent events
  on a thread.

Per-delta answers (`Session.feed`): after the chunk of a delta, the servicer sends one
token on a new choice index (smg multiplexes choices of n>1 by `index`). smg handles the
chunks of one request in order and writes a new index's role chunk before parsing it,
so once that role event arrives, everything smg wrote for the delta's chunk has arrived.
The sentinel choices are not read otherwise.
"""

from __future__ import annotations

import ctypes
import http.client
import itertools
import json
import queue
import re
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from concurrent import futures
from pathlib import Path

MODEL = "scrubcheck-smg"
#: chat-template tokens no harness text contains (the stop decoder stops at an EOS id)
BOS, EOS = "<|scrubcheck_bos|>", "<|scrubcheck_eos|>"
SENTINEL = "#"
_MARKER = "scrubcheck-stream-"
_TAG = re.compile(rb"<\|[A-Za-z_/]{1,30}\|>|<\|[a-z_]{1,20}>|<[a-z_]{1,20}\|>|"
                  rb"</?[a-z_]{2,20}>|</?[a-z_]{2,12}:[a-z_]{2,12}>|\[/?[A-Z_]{2,20}\]|\xe2\x97\x81/?[a-z]{2,10}\xe2\x96\xb7")
TEMPLATE = (
    "{%- if enable_thinking is not defined %}{%- set enable_thinking = false %}{%- endif %}"
    "{%- for message in messages %}" + BOS + "{{ message.role }}\n{{ message.content }}"
    + EOS + "\n{%- endfor %}"
    "{%- if add_generation_prompt %}" + BOS + "assistant\n"
    "{%- if enable_thinking %}<think>\n{%- endif %}{%- endif %}")


class RigError(RuntimeError):
    """smg or the fake scheduler failed (named, with smg's last log lines)."""


def smg_library() -> Path:
    import smg

    return Path(smg.__file__).resolve().parent / "smg_rs.abi3.so"


def tag_strings() -> list[str]:
    """Tag-like strings in smg's library (`<x>`, `</x>`, `<ns:x>`, `<|x|>`, `[X]`, `◁x▷`):
    the candidates for the delimiters its parsers match. Read from the binary because the
    Rust factory exposes parser names only."""
    data = smg_library().read_bytes()
    found = set()
    for match in _TAG.finditer(data):
        try:
            found.add(match.group().decode("utf-8"))
        except UnicodeDecodeError:
            continue
    return sorted(found)


def make_tokenizer_dir(folder: Path, added: list[str]) -> None:
    """tokenizer.json (byte-level, `added` as whole non-special tokens), the config files."""
    from tokenizers import AddedToken, Tokenizer, decoders, models, pre_tokenizers

    alphabet = sorted(pre_tokenizers.ByteLevel.alphabet())
    raw = Tokenizer(models.BPE(vocab={c: i for i, c in enumerate(alphabet)}, merges=[]))
    raw.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)
    raw.decoder = decoders.ByteLevel()
    raw.add_special_tokens([AddedToken(t, normalized=False, special=True) for t in (BOS, EOS)])
    raw.add_tokens([AddedToken(t, normalized=False, special=False)
                    for t in added if t not in (BOS, EOS)])
    folder.mkdir(parents=True, exist_ok=True)
    raw.save(str(folder / "tokenizer.json"))
    (folder / "tokenizer_config.json").write_text(json.dumps({
        "tokenizer_class": "PreTrainedTokenizerFast", "bos_token": BOS, "eos_token": EOS,
        "chat_template": TEMPLATE, "model_max_length": 1 << 20}), encoding="utf-8")
    (folder / "config.json").write_text(json.dumps({
        "model_type": "qwen3", "architectures": ["Qwen3ForCausalLM"],
        "vocab_size": raw.get_vocab_size(), "eos_token_id": raw.token_to_id(EOS),
        "max_position_embeddings": 1 << 20}), encoding="utf-8")


def byte_symbols() -> list[str]:
    """The byte-level alphabet's symbol for each byte value 0..255: printable Latin-1
    bytes stand for themselves, the others take the code points from 256 on, in order."""
    kept = [*range(ord("!"), ord("~") + 1), *range(0xA1, 0xAC + 1), *range(0xAE, 0xFF + 1)]
    symbols, extra = {}, 0
    for value in range(256):
        if value in kept:
            symbols[value] = chr(value)
        else:
            symbols[value] = chr(256 + extra)
            extra += 1
    return [symbols[v] for v in range(256)]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _die_with_parent() -> None:
    """In the smg child before exec: get SIGKILL when this process dies (Linux)."""
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except OSError:
        pass


_END = object()


class _Scheduler:
    """The fake SglangScheduler: Generate replays the queue its request names (mixed into
    the generated servicer class, whose other methods answer UNIMPLEMENTED)."""

    def __init__(self, pb2, tokenizer, tokdir: Path, vocab_size: int, eos: int) -> None:
        self.pb2 = pb2
        self.tokenizer = tokenizer
        self.tokdir = tokdir
        self.vocab_size = vocab_size
        self.eos = eos
        self.queues: dict[str, queue.Queue] = {}
        self.lock = threading.Lock()

    def queue_for(self, key: str) -> queue.Queue:
        with self.lock:
            return self.queues.setdefault(key, queue.Queue())

    def Generate(self, request, context):  # noqa: N802 - gRPC method name
        pb2 = self.pb2
        context.send_initial_metadata(())
        prompt = self.tokenizer.decode(list(request.tokenized.input_ids),
                                       skip_special_tokens=False)
        found = re.search(_MARKER + r"(\d+)", prompt)
        if not found:  # not ours (a health probe): answer with the end at once
            yield pb2.GenerateResponse(request_id=request.request_id, complete=pb2.GenerateComplete(
                finish_reason="stop", prompt_tokens=1))
            return
        items = self.queue_for(found.group(1))
        sent = 0
        while True:
            try:
                item = items.get(timeout=60)
            except queue.Empty:
                return  # the driver went away
            if item is _END:
                break
            ids, index = item
            sent += len(ids) if index == 0 else 0
            yield pb2.GenerateResponse(request_id=request.request_id, chunk=pb2.GenerateStreamChunk(
                token_ids=ids, index=index, prompt_tokens=len(request.tokenized.input_ids),
                completion_tokens=sent))
        yield pb2.GenerateResponse(request_id=request.request_id, complete=pb2.GenerateComplete(
            finish_reason="stop", prompt_tokens=len(request.tokenized.input_ids),
            completion_tokens=sent, index=0))
        with self.lock:
            self.queues.pop(found.group(1), None)

    def HealthCheck(self, request, context):  # noqa: N802
        return self.pb2.HealthCheckResponse(healthy=True, message="ok")

    def Abort(self, request, context):  # noqa: N802
        return self.pb2.AbortResponse(success=True)

    def GetModelInfo(self, request, context):  # noqa: N802
        return self.pb2.GetModelInfoResponse(
            model_path=str(self.tokdir), tokenizer_path=str(self.tokdir), is_generation=True,
            served_model_name=MODEL, max_context_length=1 << 20, vocab_size=self.vocab_size,
            model_type="qwen3", eos_token_ids=[self.eos], max_req_input_len=1 << 20,
            architectures=["Qwen3ForCausalLM"])

    def GetServerInfo(self, request, context):  # noqa: N802
        from google.protobuf import struct_pb2

        args = struct_pb2.Struct()
        args.update({"model_path": str(self.tokdir), "tokenizer_path": str(self.tokdir),
                     "served_model_name": MODEL, "context_length": 1 << 20})
        return self.pb2.GetServerInfoResponse(server_args=args, server_type="grpc",
                                              sglang_version="0.0.0-scrubcheck")

    def GetLoads(self, request, context):  # noqa: N802
        return self.pb2.GetLoadsResponse(version="0.0.0-scrubcheck", dp_rank_count=1)


class Rig:
    """One smg process and one fake scheduler, for one parser name and variant."""

    def __init__(self, parser: str, variant: str = "legacy", log=None,
                 start_timeout: float = 60.0, step_timeout: float = 15.0,
                 log_level: str = "warn") -> None:
        if variant not in ("legacy", "symphony"):
            raise ValueError(f"variant must be legacy or symphony, not {variant!r}")
        self.parser, self.variant = parser, variant
        self.log = log if log is not None else sys.stderr
        self.start_timeout, self.step_timeout = start_timeout, step_timeout
        self.log_level = log_level
        self.proc: subprocess.Popen | None = None
        self.server = None
        self.tmp: tempfile.TemporaryDirectory | None = None
        self.counter = itertools.count(1)  # next() on it is atomic: sessions on threads
        self.stderr_path: Path | None = None

    # -- life cycle --------------------------------------------------------------------
    def start(self) -> Rig:
        from smg.smg_rs import get_available_reasoning_parsers

        names = get_available_reasoning_parsers()
        if self.parser not in names:
            raise RigError(f"smg has no reasoning parser named {self.parser!r} "
                           f"(its --reasoning-parser choices: {', '.join(names)})")
        try:
            self._start()
        except BaseException:
            self.stop()
            raise
        return self

    def _start(self) -> None:
        import grpc
        from smg_grpc_proto.generated import sglang_scheduler_pb2 as pb2
        from smg_grpc_proto.generated import sglang_scheduler_pb2_grpc as pb2_grpc
        from tokenizers import Tokenizer

        self.tmp = tempfile.TemporaryDirectory(prefix="scrubcheck-smg-")
        tokdir = Path(self.tmp.name) / "tok"
        make_tokenizer_dir(tokdir, tag_strings())
        self.tokenizer = Tokenizer.from_file(str(tokdir / "tokenizer.json"))
        self.sentinel_ids = self.encode(SENTINEL)
        servicer = type("FakeSglangScheduler", (_Scheduler, pb2_grpc.SglangSchedulerServicer), {})
        self.scheduler = servicer(pb2, self.tokenizer, tokdir, self.tokenizer.get_vocab_size(),
                                  self.tokenizer.token_to_id(EOS))
        grpc_port, self.port = free_port(), free_port()
        command = [str(Path(sys.executable).with_name("smg")), "launch",
                   "--host", "127.0.0.1", "--port", str(self.port),
                   "--worker-urls", f"grpc://127.0.0.1:{grpc_port}",
                   "--model-path", str(tokdir), "--reasoning-parser", self.parser,
                   "--prometheus-host", "127.0.0.1", "--prometheus-port", str(free_port()),
                   "--log-level", self.log_level]
        if self.variant == "symphony":
            command += ["--parser", "symphony"]
        self.stderr_path = Path(self.tmp.name) / "smg.log"
        with open(self.stderr_path, "wb") as out:
            self.proc = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=out,
                                         stderr=subprocess.STDOUT, preexec_fn=_die_with_parent)
        # the server's threads start after the fork (smg retries its worker until it answers)
        self.server = grpc.server(futures.ThreadPoolExecutor(max_workers=8))
        pb2_grpc.add_SglangSchedulerServicer_to_server(self.scheduler, self.server)
        if self.server.add_insecure_port(f"127.0.0.1:{grpc_port}") != grpc_port:
            raise RigError(f"port {grpc_port} for the fake scheduler was taken")
        self.server.start()
        self._wait_ready()

    def _wait_ready(self) -> None:
        """Until a probe stream goes through: smg registers its worker in the background.
        A request smg refuses as bad (HTTP 400) fails at once: it will not change."""
        deadline = time.monotonic() + self.start_timeout
        last = ""
        while time.monotonic() < deadline:
            self.check_alive()
            session = Session(self, {"starts_in_reasoning": False}, timeout=5)
            try:
                got = [session.feed("ok"), session.flush()]
            except RigError as exc:
                session.abandon()
                if self.proc is not None and self.proc.poll() is not None:
                    raise
                if "HTTP 400" in str(exc):  # 404 and 503 come while the worker registers
                    raise RigError(f"smg refuses a chat request with --reasoning-parser "
                                   f"{self.parser} ({self.variant}): {exc}") from None
                last = str(exc)
                time.sleep(0.2)
                continue
            reasoning, content = ("".join(part) for part in zip(*got, strict=True))
            if reasoning + content == "ok":
                return
            raise RigError(f"smg's probe stream 'ok' came back as reasoning {reasoning!r}, "
                           f"content {content!r}")
        raise RigError(f"smg did not serve a stream within {self.start_timeout:.0f} s "
                       f"({last}){self.log_tail()}")

    def stop(self) -> None:
        proc, self.proc = self.proc, None
        if proc is not None and proc.poll() is None:
            proc.terminate()
            try:  # within the 2 s a harness gives a peer to end after its stdin closes
                proc.wait(timeout=1.5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=5)
        server, self.server = self.server, None
        if server is not None:
            server.stop(grace=None)
        tmp, self.tmp = self.tmp, None
        if tmp is not None:
            tmp.cleanup()

    def __enter__(self) -> Rig:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    # -- helpers -----------------------------------------------------------------------
    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc is not None else None

    def log_tail(self, lines: int = 8) -> str:
        try:
            text = self.stderr_path.read_text(encoding="utf-8", errors="replace")
        except (OSError, AttributeError):
            return ""
        text = re.sub(r"\x1b\[[0-9;]*m", "", text)
        tail = [line for line in text.splitlines() if line.strip()][-lines:]
        return ("; smg's last log lines: " + " | ".join(tail)) if tail else ""

    def check_alive(self) -> None:
        if self.proc is None:
            raise RigError("smg is not running (the rig was stopped)")
        code = self.proc.poll()
        if code is not None:
            raise RigError(f"smg (pid {self.proc.pid}) exited with code {code}"
                           f"{self.config_error()}{self.log_tail()}")

    def config_error(self) -> str:
        """smg's own words when it refused its configuration at start, or ''."""
        try:
            text = self.stderr_path.read_text(encoding="utf-8", errors="replace")
        except (OSError, AttributeError):
            return ""
        found = re.findall(r"Invalid configuration: .*", text)
        return f": {found[-1].strip()}" if found else ""

    def encode(self, text: str) -> list[int]:
        """Token ids of `text`. A lone surrogate (no UTF-8 exists for it) is sent as the
        bytes Python's surrogatepass gives it, one byte token each: what a model emitting
        those bytes would send; smg's decoder decides what they become."""
        try:
            return self.tokenizer.encode(text, add_special_tokens=False).ids
        except TypeError:
            pass
        ids: list[int] = []
        for piece in re.split("([\ud800-\udfff])", text):
            if not piece:
                continue
            if len(piece) == 1 and "\ud800" <= piece <= "\udfff":
                ids += [self.byte_ids[b] for b in piece.encode("utf-8", "surrogatepass")]
            else:
                ids += self.tokenizer.encode(piece, add_special_tokens=False).ids
        return ids

    @property
    def byte_ids(self) -> list[int]:
        """Byte value -> id of its byte-level token."""
        if not hasattr(self, "_byte_ids"):
            self._byte_ids = [self.tokenizer.token_to_id(c) for c in byte_symbols()]
        return self._byte_ids

    def next_key(self) -> str:
        return str(next(self.counter))


class Session:
    """One streamed chat completion: feed() a delta and get what smg emitted for it."""

    def __init__(self, rig: Rig, context: dict, timeout: float | None = None,
                 thinking_key: str = "enable_thinking") -> None:
        self.rig = rig
        self.timeout = timeout if timeout is not None else rig.step_timeout
        self.thinking = bool(context.get("starts_in_reasoning"))
        self.thinking_key = thinking_key
        self.events: queue.Queue = queue.Queue()
        self.key = rig.next_key()
        self.items = rig.scheduler.queue_for(self.key)
        self.index = 0
        self.done = False
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _body(self) -> bytes:
        return json.dumps({
            "model": MODEL, "stream": True, "max_tokens": 1 << 20,
            "messages": [{"role": "user", "content": _MARKER + self.key}],
            "chat_template_kwargs": {self.thinking_key: self.thinking},
            "skip_special_tokens": False}).encode()

    def _read(self) -> None:
        """The HTTP exchange, on its own thread: every SSE data line goes on `events`."""
        conn = http.client.HTTPConnection("127.0.0.1", self.rig.port, timeout=self.timeout + 30)
        try:
            conn.request("POST", "/v1/chat/completions", body=self._body(),
                         headers={"Content-Type": "application/json"})
            response = conn.getresponse()
            if response.status != 200:
                body = response.read(2000).decode("utf-8", "replace")
                self.events.put(("error", f"HTTP {response.status}: {body}"))
                return
            for raw in response:
                line = raw.decode("utf-8").rstrip("\r\n")
                if not line.startswith("data:"):
                    continue
                data = line[5:].strip()
                if data == "[DONE]":
                    break
                self.events.put(("data", json.loads(data)))
            self.events.put(("end", None))
        except Exception as exc:  # noqa: BLE001 - reported to the driver, which raises
            self.events.put(("error", f"{type(exc).__name__}: {exc}"))
        finally:
            conn.close()

    def _next_event(self, waiting_for: str):
        deadline = time.monotonic() + self.timeout
        while True:
            try:
                return self.events.get(timeout=0.05)
            except queue.Empty:
                pass
            self.rig.check_alive()
            if time.monotonic() > deadline:
                raise RigError(f"smg sent nothing for {self.timeout:.0f} s while waiting for "
                               f"{waiting_for}{self.rig.log_tail()}")

    def _collect(self, until_index: int | None) -> tuple[str, str]:
        """Reasoning and content of choice 0 until the role event of `until_index`, or
        until the stream ends (None)."""
        reasoning, content = [], []
        waiting = "the end of the stream" if until_index is None else "the delta's barrier"
        while True:
            kind, data = self._next_event(waiting)
            if kind == "error":
                raise RigError(f"smg's stream failed: {data}{self.rig.log_tail()}")
            if kind == "end":
                if until_index is not None:
                    raise RigError(f"smg ended the stream early{self.rig.log_tail()}")
                self.done = True
                return "".join(reasoning), "".join(content)
            if "error" in data:
                raise RigError(f"smg's stream reported an error: {json.dumps(data)[:500]}")
            for choice in data.get("choices") or ():
                index = choice.get("index", 0)
                if index == until_index and until_index is not None:
                    return "".join(reasoning), "".join(content)
                if index != 0:
                    continue
                delta = choice.get("delta") or {}
                reasoning.append(delta.get("reasoning_content") or "")
                content.append(delta.get("content") or "")

    def feed(self, delta: str) -> tuple[str, str]:
        if self.done:
            raise RigError("this stream has ended")
        ids = self.rig.encode(delta) if delta else []
        if not ids:
            return "", ""
        self.index += 1
        self.items.put((ids, 0))
        self.items.put((self.rig.sentinel_ids, self.index))
        return self._collect(self.index)

    def flush(self) -> tuple[str, str]:
        if self.done:
            return "", ""
        self.items.put(_END)
        out = self._collect(None)
        self.reader.join(timeout=5)
        return out

    def abandon(self) -> None:
        if not self.done:
            self.items.put(_END)
            self.done = True
