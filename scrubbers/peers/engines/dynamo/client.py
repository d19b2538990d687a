"""The parent side of `server.py`: start it, stream chat requests through it, stop it.

Used by `adapter.py` (one parser) and `registry.py` (every parser at once), both run
with the dynamo environment's python. Needs the `tokenizers` library (for the
made-up tokenizer) and the standard library; dynamo itself is imported only by
the server process.

A stream is one `POST /v1/chat/completions` with `stream: true` and `logprobs:
true`. Each `send(text)` encodes the text with the made-up tokenizer, hands the ids
to the worker as ONE token frame and reads the server-sent events until the
frontend has answered for every token of that frame (it reports one logprob per
token, also when the reasoning parser keeps the frame's text back), so what it
returns is what the frontend emitted for that frame and nothing later. Some parsers
(all the v2 ones, kimi_k3, muse) send nothing at all for a frame they keep back: a
frame unanswered for HOLD seconds counts as held, and the chunks that come later are
returned by a later send or by finish (per delta then rests on that wait).
"""

from __future__ import annotations

import atexit
import http.client
import itertools
import json
import os
import queue
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent

#: Every tag that is one added token of the made-up tokenizer, besides the ones a caller
#: adds: a model's tokenizer has its reasoning and tool tags as single tokens.
BASE_TAGS = ("<think>", "</think>", "<tool_call>", "</tool_call>")

#: The chat template: the nonce in the user message lets the worker find the stream; a
#: `scrubcheck_prefill` text given in chat_template_kwargs ends the prompt (the pre-filled
#: open tag of a model whose template opens the reasoning block).
TEMPLATE = ("{% for m in messages %}<|{{ m.role }}|>{{ m.content }}<|end|>{% endfor %}"
            "<|assistant|>{% if scrubcheck_prefill %}{{ scrubcheck_prefill }}{% endif %}")

#: max_tokens of each request: byte-level tokens, so at most this many bytes a stream
MAX_TOKENS = 1_048_576


#: seconds without a chunk after which a frame counts as kept back by the parser
HOLD = float(os.environ.get("SCRUBCHECK_DYNAMO_HOLD_S", "1.0"))
HELD = object()


class DynamoError(RuntimeError):
    """The dynamo server failed, died or did not answer."""


def model_folder(folder: Path, tags: tuple[str, ...]) -> None:
    """Write a made-up model folder (no weights): a byte-level tokenizer.json whose
    added tokens are `tags` (not special: the detokenizer keeps them), its
    tokenizer_config.json with the chat template, and a config.json."""
    from tokenizers import AddedToken, Tokenizer, decoders, models, pre_tokenizers

    alphabet = sorted(pre_tokenizers.ByteLevel.alphabet())
    tokenizer = Tokenizer(models.BPE(vocab={c: i for i, c in enumerate(alphabet)}, merges=[]))
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)
    tokenizer.decoder = decoders.ByteLevel()
    tokenizer.add_special_tokens([AddedToken("<|eos|>", special=True)])
    tags = tuple(dict.fromkeys(t for t in (*BASE_TAGS, *tags) if t))
    tokenizer.add_tokens([AddedToken(tag, normalized=False, special=False) for tag in tags])
    folder.mkdir(parents=True, exist_ok=True)
    tokenizer.save(str(folder / "tokenizer.json"))
    size = tokenizer.get_vocab_size(with_added_tokens=True)
    (folder / "tokenizer_config.json").write_text(json.dumps({
        "chat_template": TEMPLATE, "eos_token": "<|eos|>", "bos_token": None,
        "model_max_length": 2 * MAX_TOKENS, "tokenizer_class": "PreTrainedTokenizerFast"}))
    (folder / "config.json").write_text(json.dumps({
        "model_type": "llama", "architectures": ["LlamaForCausalLM"],
        "max_position_embeddings": 2 * MAX_TOKENS, "eos_token_id": len(alphabet),
        "vocab_size": size}))


class DynamoServer:
    """One `server.py` process serving `names` (reasoning parser names, each a model)."""

    def __init__(self, names: list[str], tags: tuple[str, ...] = (), v2: bool = False,
                 timeout: float = 30.0) -> None:
        from tokenizers import Tokenizer

        self.names = list(names)
        self.timeout = timeout
        self.home = Path(tempfile.mkdtemp(prefix="scrubcheck-dynamo-"))
        model_folder(self.home / "model", tags)
        self.tokenizer = Tokenizer.from_file(str(self.home / "model" / "tokenizer.json"))
        env = dict(os.environ)
        env.update({
            # dynamo writes a model-card cache under ~/.cache/dynamo: keep it in our folder
            "HOME": str(self.home), "HF_HUB_OFFLINE": "1", "HF_HOME": str(self.home / "hf"),
            "DYN_TCP_RPC_HOST": "127.0.0.1", "DYN_TCP_RESPONSE_STREAM_HOST": "127.0.0.1",
            "DYN_SYSTEM_HOST": "127.0.0.1", "DYN_SELF_HOST_METADATA": "0",
            "DYN_LOG": env.get("DYN_LOG", "warn"), "DYN_SDK_DISABLE_ANSI_LOGGING": "1",
        })
        env.pop("DYN_ENABLE_EXPERIMENTAL_PARSERS_V2", None)
        if v2:
            env["DYN_ENABLE_EXPERIMENTAL_PARSERS_V2"] = "1"
        self._lock = threading.Lock()
        self._nonces = itertools.count(1)
        self.process = subprocess.Popen(
            [sys.executable, str(HERE / "server.py"), str(self.home / "model"), *self.names],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=sys.stderr, env=env,
            text=True, encoding="utf-8")
        atexit.register(self.stop)
        line = self._ready_line(60.0)
        message = json.loads(line) if line.strip().startswith("{") else {"failed": line}
        if "ready" not in message:
            self.stop()
            raise DynamoError(message.get("failed") or
                              f"dynamo server exited with code {self.process.returncode} "
                              "before it was ready (its log is on stderr)")
        self.port = int(message["ready"])
        #: the names the frontend serves (dynamo may refuse to materialize some)
        self.listed = list(message.get("listed", self.names))

    @property
    def pid(self) -> int:
        return self.process.pid

    def _ready_line(self, wait: float) -> str:
        result: list[str] = []
        reader = threading.Thread(target=lambda: result.append(self.process.stdout.readline()),
                                  daemon=True)
        reader.start()
        reader.join(wait)
        if not result:
            return json.dumps({"failed": f"dynamo server not ready within {wait:.0f} s"})
        return result[0]

    def alive(self) -> bool:
        return self.process.poll() is None

    def check(self) -> None:
        if not self.alive():
            raise DynamoError(f"the dynamo server (pid {self.pid}) exited with code "
                              f"{self.process.returncode}; its log is on stderr")

    def control(self, message: dict) -> None:
        self.check()
        try:
            with self._lock:
                self.process.stdin.write(json.dumps(message) + "\n")
                self.process.stdin.flush()
        except (BrokenPipeError, ValueError, OSError) as exc:
            self.check()
            raise DynamoError(f"cannot reach the dynamo server (pid {self.pid}): {exc}") from exc

    def encode(self, text: str) -> list[int]:
        try:
            return self.tokenizer.encode(text, add_special_tokens=False).ids
        except (UnicodeEncodeError, TypeError, ValueError):
            # a lone surrogate cannot be UTF-8 (nor travel in JSON to a real server)
            fixed = text.encode("utf-8", "replace").decode("utf-8")
            return self.tokenizer.encode(fixed, add_special_tokens=False).ids

    def stream(self, name: str, prefill: str = "", kwargs: dict | None = None) -> Stream:
        return Stream(self, name, prefill, kwargs or {})

    def stop(self) -> None:
        """Stop the server process (idempotent): close its stdin, then TERM, then KILL."""
        process = getattr(self, "process", None)
        if process is not None and process.poll() is None:
            try:
                process.stdin.close()
            except OSError:
                pass
            for sig, wait in ((None, 3.0), (signal.SIGTERM, 3.0), (signal.SIGKILL, 5.0)):
                if sig is not None:
                    try:
                        process.send_signal(sig)
                    except ProcessLookupError:
                        break
                try:
                    process.wait(wait)
                    break
                except subprocess.TimeoutExpired:
                    continue
        shutil.rmtree(getattr(self, "home", ""), ignore_errors=True) if getattr(
            self, "home", None) else None


class Stream:
    """One chat completion request; `send` and `finish` return (reasoning, content)."""

    def __init__(self, server: DynamoServer, name: str, prefill: str, kwargs: dict) -> None:
        self.server = server
        self.nonce = f"{os.getpid():x}n{next(server._nonces)}"
        kwargs = dict(kwargs)
        if prefill:
            kwargs["scrubcheck_prefill"] = prefill
        self.body = {
            "model": name, "stream": True, "logprobs": True, "max_tokens": MAX_TOKENS,
            "messages": [{"role": "user", "content": f"scrubcheck-stream-{self.nonce}"}],
            "chat_template_kwargs": kwargs}
        server.check()
        self.conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=server.timeout)
        try:  # a server killed a moment ago refuses before it is reaped: name it then
            self.conn.request("POST", "/v1/chat/completions", json.dumps(self.body),
                              {"Content-Type": "application/json"})
        except (OSError, http.client.HTTPException) as exc:
            self._lost(exc)
        self.response = None
        self.events: queue.Queue = queue.Queue()
        self.done = False
        self.chunks: list[dict] = []  # every SSE object received (for probes)

    def _respond(self):
        if self.response is None:
            try:
                self.response = self.conn.getresponse()
            except (OSError, http.client.HTTPException) as exc:
                self._lost(exc)
            if self.response.status != 200:
                raise DynamoError(f"dynamo answered HTTP {self.response.status}: "
                                  f"{self.response.read()[:300]!r}")
            threading.Thread(target=self._read, args=(self.response,), daemon=True).start()
        return self.response

    def _read(self, response) -> None:
        """Reader thread: every SSE data object into the queue, then None at [DONE], or
        the exception that ended the stream."""
        try:
            while True:
                raw = response.readline()
                if not raw:
                    raise EOFError("the server closed the stream before [DONE]")
                line = raw.decode("utf-8").strip()
                if not line.startswith("data:"):
                    continue
                data = line[5:].strip()
                if data == "[DONE]":
                    self.events.put(None)
                    return
                self.events.put(json.loads(data))
        except Exception as exc:  # noqa: BLE001 - handed to the caller
            self.events.put(exc)

    def _lost(self, exc: BaseException):
        for _ in range(20):  # let a dying server be reaped, to name it
            time.sleep(0.1)
            self.server.check()
        raise DynamoError(f"lost the dynamo stream ({type(exc).__name__}: {exc})") from exc

    def _event(self, wait: float | None = None) -> dict | None:
        """The next SSE data object; None at [DONE]; HELD when nothing came within `wait`
        seconds (default: the server timeout, which is an error instead)."""
        self._respond()
        try:
            event = self.events.get(timeout=wait if wait is not None else self.server.timeout)
        except queue.Empty:
            if wait is not None:
                return HELD
            self._lost(TimeoutError(f"no answer within {self.server.timeout:.0f} s"))
        if isinstance(event, BaseException):
            self._lost(event)
        if event is not None:
            self.chunks.append(event)
            if "error" in event:
                raise DynamoError(f"dynamo stream error: {json.dumps(event['error'])[:300]}")
        return event

    @staticmethod
    def _split(event: dict) -> tuple[str, str, int]:
        reasoning, content, tokens = [], [], 0
        for choice in event.get("choices") or ():
            delta = choice.get("delta") or {}
            reasoning.append(delta.get("reasoning_content") or delta.get("reasoning") or "")
            content.append(delta.get("content") or "")
            tokens += len(((choice.get("logprobs") or {}).get("content")) or ())
        return "".join(reasoning), "".join(content), tokens

    def send(self, text: str) -> tuple[str, str]:
        """One token frame: what the frontend emitted for it."""
        if self.done:
            raise DynamoError("the stream is finished")
        ids = self.server.encode(text)
        if not ids:
            return "", ""
        self.server.control({"stream": self.nonce, "ids": ids})
        reasoning, content, seen = [], [], 0
        while seen < len(ids):
            # Some parsers (every v2 one, kimi_k3, muse) send no chunk for a frame whose
            # text they keep back, logprobs or not: after HOLD seconds of silence the frame
            # counts as held, and what comes later is returned by a later feed or flush.
            event = self._event(wait=HOLD)
            if event is HELD:
                break
            if event is None:
                self.done = True
                break
            r, c, n = self._split(event)
            reasoning.append(r)
            content.append(c)
            seen += n
        return "".join(reasoning), "".join(content)

    def finish(self, reason: str = "stop") -> tuple[str, str]:
        """The last frame (no tokens, a finish reason): everything the frontend still sends."""
        reasoning, content = [], []
        if not self.done:
            self.server.control({"stream": self.nonce, "finish": reason})
            while (event := self._event()) is not None:
                r, c, _ = self._split(event)
                reasoning.append(r)
                content.append(c)
            self.done = True
        self.close()
        return "".join(reasoning), "".join(content)

    def close(self) -> None:
        try:
            self.conn.close()
        except OSError:
            pass
