"""dynamo's reasoning parser NAME, streamed through its real HTTP frontend.

Run with the dynamo environment's python (a peer folder's adapter.py sets the
variables and runs this file):

    SCRUBCHECK_ENGINE_PARSER=NAME [SCRUBCHECK_ENGINE_VARIANT=v2] python adapter.py

At start it checks NAME against `get_reasoning_parser_names()` (an unknown name
exits at once with an error naming it), learns NAME's row as registry.py does
(tokens, flags, pre-fill), and starts ONE server process (`server.py`: dynamo's
frontend plus a token worker on 127.0.0.1, a free port) whose made-up tokenizer
has NAME's tokens as single added tokens. It keeps that server for every stream.

Per stream: one `POST /v1/chat/completions` with `stream: true`; each `feed(delta)`
sends the delta as one token frame and returns the (reasoning, content) of what the
frontend emitted for that frame (per delta, not at flush: see client.py); `flush()`
sends the finish frame and returns the rest. An empty delta sends no frame (a
model emits no empty token). `starts_in_reasoning` makes the rendered prompt end
in NAME's open tag, which is how dynamo learns that the template pre-filled it; the
row's thinking flags go in `chat_template_kwargs` of every request.

The server is stopped when this program ends: stdin EOF, SIGTERM, SIGINT or an
exception (and the server ends itself when its parent dies). A server that dies
mid-run makes the next feed raise DynamoError naming it, never hang.
"""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, os.environ.get("SCRUBCHECK_PEERLOOP_DIR", str(Path(__file__).resolve()
                                                                   .parents[2])))
from client import DynamoError, DynamoServer  # noqa: E402
from peerloop import serve  # noqa: E402  (claims stdout for the protocol first)
from registry import (  # noqa: E402
    Prober,
    describe,
    harmony_vocabulary,
    harvest_candidates,
    parser_names,
)


def _stop_on(signum, _frame):
    raise SystemExit(128 + signum)


def learn(name: str, v2: bool) -> dict:
    """NAME's registry row, probed through a server whose tokenizer has every candidate."""
    candidates = harvest_candidates()
    server = DynamoServer([name], tags=tuple(candidates), v2=v2)
    try:
        if name not in server.listed:
            sys.exit(f"dynamo does not serve a model with reasoning parser {name!r} "
                     f"({'v2' if v2 else 'default'} parsers): the frontend never listed it; "
                     "see the dynamo log above")
        return describe(Prober(server), name, candidates)
    finally:
        server.stop()


class Stream:
    """One stream of the harness: one chat request per feed...flush."""

    def __init__(self, server: DynamoServer, row: dict, context: dict) -> None:
        self.server = server
        self.row = row
        self.prefill = ""
        if context.get("starts_in_reasoning"):
            if not row["tokens"]:
                raise ValueError(f"dynamo parser {row['name']!r}: its open tag is unknown "
                                 "(registry tokens []), so no template can pre-fill it")
            self.prefill = row["tokens"][0]
        self.request = None

    def _open(self):
        if self.request is None:
            self.request = self.server.stream(self.row["name"], self.prefill, self.row["flags"])
        return self.request

    def feed(self, delta: str) -> tuple[str, str]:
        if not delta:
            return "", ""
        return self._open().send(delta)

    def flush(self) -> tuple[str, str]:
        request, self.request = self._open(), None  # the next feed is a new request
        return request.finish()


def main() -> None:
    name = os.environ.get("SCRUBCHECK_ENGINE_PARSER", "")
    variant = os.environ.get("SCRUBCHECK_ENGINE_VARIANT", "default") or "default"
    if variant not in ("default", "v2"):
        sys.exit(f"SCRUBCHECK_ENGINE_VARIANT must be 'v2' or unset, not {variant!r}")
    v2 = variant == "v2"
    names = parser_names(v2)
    if name not in names:
        sys.exit(f"dynamo ({variant} parsers) has no reasoning parser named {name!r}; "
                 f"get_reasoning_parser_names() lists: {', '.join(sorted(names))}")
    if name == "gpt_oss":
        vocabulary = harmony_vocabulary()
        if not vocabulary:
            sys.exit("dynamo's gpt_oss parser needs the harmony o200k vocabulary "
                     "(TIKTOKEN_RS_CACHE_DIR); without it dynamo silently runs a <think> parser")
        os.environ["TIKTOKEN_RS_CACHE_DIR"] = vocabulary
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, _stop_on)
    row = learn(name, v2)
    if not row["runnable"] and not os.environ.get("SCRUBCHECK_ENGINE_ANYWAY"):
        sys.exit(f"dynamo parser {name!r} ({variant}) is not runnable here: {row['reason']}")
    print(f"dynamo parser {name!r} ({variant}): {row}", file=sys.stderr, flush=True)
    server = DynamoServer([name], tags=tuple(row["tokens"]), v2=v2)
    try:
        serve(lambda context: Stream(server, row, context), kind="stream-splitter",
              package="ai-dynamo-runtime")
    finally:
        server.stop()


if __name__ == "__main__":
    try:
        main()
    except DynamoError as exc:
        sys.exit(f"dynamo failed: {exc}")
