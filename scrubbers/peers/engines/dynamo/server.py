"""One dynamo HTTP frontend and one token worker in a process of their own.

Run with the dynamo environment's python by `client.DynamoServer` (never by hand):

    python server.py MODEL_DIR PARSER [PARSER ...]

MODEL_DIR is the made-up tokenizer folder `client.model_folder` writes. Each
PARSER name is registered as a chat model of the same name whose
`ModelRuntimeConfig.reasoning_parser` is that name, served by a worker that
generates nothing of its own: it replays the token ids its parent sends.
Everything runs in this one process with dynamo's in-memory discovery
(`DistributedRuntime(loop, "mem", "tcp")`), so no etcd or NATS is needed, and
the request plane is bound to 127.0.0.1.

Control channel (JSON lines), parent -> this process on stdin:

    {"stream": NONCE, "ids": [int, ...]}   one token frame of that stream
    {"stream": NONCE, "finish": "stop"}    the stream's last frame

this process -> parent on stdout: one line `{"ready": PORT, "listed": [NAME, ...]}`
once the frontend lists the models (those it serves), or `{"failed": MESSAGE}`.
A request finds its stream by the nonce the parent writes into the user message
(`scrubcheck-stream-NONCE`), which the worker reads back from the prompt's token ids.

The process ends when stdin closes (its parent is gone or done), and, on
Linux, when its parent dies (PR_SET_PDEATHSIG), so a frontend never outlives
the adapter that started it.
"""

from __future__ import annotations

import asyncio
import ctypes
import json
import os
import re
import signal
import socket
import sys
import threading
import time

NONCE = re.compile(r"scrubcheck-stream-([0-9a-z]+)")
SETTLE = 8.0  # seconds
WAIT = 25.0  # seconds


def _die_with_parent() -> None:
    try:
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except OSError:
        pass
    if os.getppid() == 1:  # the parent died before prctl took effect
        os._exit(1)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _listed(port: int) -> set[str]:
    import http.client

    try:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
        conn.request("GET", "/v1/models")
        data = json.loads(conn.getresponse().read())
        conn.close()
    except (OSError, ValueError):
        return set()
    return {m.get("id") for m in data.get("data", [])}


class Worker:
    """The token worker: each request waits on the queue of its stream."""

    def __init__(self, loop: asyncio.AbstractEventLoop, tokenizer) -> None:
        self.loop = loop
        self.tokenizer = tokenizer
        self.queues: dict[str, asyncio.Queue] = {}

    def queue(self, nonce: str) -> asyncio.Queue:
        if nonce not in self.queues:
            self.queues[nonce] = asyncio.Queue()
        return self.queues[nonce]

    def put(self, message: dict) -> None:
        """Called on the loop's thread for each control line."""
        self.queue(str(message["stream"])).put_nowait(message)

    async def generate(self, request, context=None):
        prompt = self.tokenizer.decode(request.get("token_ids") or [], skip_special_tokens=False)
        found = NONCE.findall(prompt)
        if not found:
            raise ValueError("request without a scrubcheck stream nonce in its prompt")
        nonce = found[-1]
        queue = self.queue(nonce)
        try:
            while True:
                message = await queue.get()
                if "finish" in message:
                    yield {"token_ids": [], "finish_reason": message["finish"]}
                    return
                ids = list(message["ids"])
                # log_probs make the frontend send one chunk per frame, also for a frame
                # whose text the reasoning parser keeps back or turns into nothing
                yield {"token_ids": ids, "log_probs": [-0.5] * len(ids)}
        finally:
            self.queues.pop(nonce, None)


async def main(names: list[str], model_dir: str) -> None:
    from dynamo._core import DistributedRuntime
    from dynamo.llm import (
        EngineType,
        EntrypointArgs,
        ModelInput,
        ModelRuntimeConfig,
        ModelType,
        WorkerType,
        make_engine,
        register_model,
        run_input,
    )
    from tokenizers import Tokenizer

    loop = asyncio.get_running_loop()
    worker = Worker(loop, Tokenizer.from_file(os.path.join(model_dir, "tokenizer.json")))
    runtime = DistributedRuntime(loop, "mem", "tcp")
    tasks = []

    def stop(*_args) -> None:
        try:
            runtime.shutdown()
        finally:
            os._exit(0)

    for number, name in enumerate(names):
        endpoint = runtime.endpoint(f"scrubcheck.worker{number}.generate")
        config = ModelRuntimeConfig()
        config.reasoning_parser = name
        tasks.append(asyncio.ensure_future(endpoint.serve_endpoint(worker.generate)))
        await register_model(ModelInput.Tokens, ModelType.Chat, endpoint, model_dir, name,
                             worker_type=WorkerType.Aggregated, runtime_config=config)
    port = _free_port()
    engine = await make_engine(runtime, EntrypointArgs(EngineType.Dynamic, http_host="127.0.0.1",
                                                       http_port=port))
    tasks.append(asyncio.ensure_future(run_input(runtime, "http", engine)))
    # Ready once every model is listed, or once the list has not grown for SETTLE seconds
    # (a model dynamo refuses to materialize, such as most names under the v2 switch, is
    # retried for ever and never listed); nothing listed within WAIT seconds is a failure.
    start = changed = time.monotonic()
    listed: set[str] = set()
    while True:
        now_listed = await asyncio.to_thread(_listed, port)
        if now_listed != listed:
            listed, changed = now_listed, time.monotonic()
        if set(names) <= listed or (listed and time.monotonic() - changed > SETTLE):
            break
        done = [t for t in tasks if t.done()]
        if done or time.monotonic() - start > WAIT:
            error = done[0].exception() if done else \
                f"the frontend listed none of {names} within {WAIT} s"
            print(json.dumps({"failed": f"dynamo frontend did not start: {error}"}), flush=True)
            stop()
        await asyncio.sleep(0.05)
    print(json.dumps({"ready": port, "listed": sorted(listed & set(names))}), flush=True)

    def read_control() -> None:
        for line in sys.stdin:
            if line.strip():
                loop.call_soon_threadsafe(worker.put, json.loads(line))
        loop.call_soon_threadsafe(stop)  # the parent closed stdin: it is done or gone

    threading.Thread(target=read_control, daemon=True).start()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop)
    done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    for task in done:
        print(f"dynamo task ended: {task.exception() if not task.cancelled() else 'cancelled'}",
              file=sys.stderr, flush=True)
    stop()


if __name__ == "__main__":
    _die_with_parent()
    # stdout is the control channel: dynamo's own output goes to stderr
    sys.stdout = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)
    asyncio.run(main(sys.argv[2:], sys.argv[1]))
