"""What a gateway answered, kept apart from how the answer is judged.

A full audit of one gateway configuration asks it for every scenario in two shapes,
streaming and not: 15,000 requests and about ten minutes. The answers depend on what
the gateway was sent and on the gateway; the verdicts depend on the judging code (the
SPEC model, the comparison, the checks). Keying kept audits on the judging code, as
the result cache does, made every change to the SPEC model cost a full audit of every
gateway, although no gateway would answer differently. So the audit keeps the
*answers* (each request's capture: chunks, status, error, timings) under what decides
them, and judges them afresh on every run:

    <user cache>/answers/v1/<row digest>.json

- the row: the gateway (the caller's key: product, installed version, install, runtime,
  configuration), what each request asks and how long it may take (the route, the read
  timeout, the request budget, whether the non-streaming request is made), and the
  digest of the code that carries a stream to the gateway and reads its answer back
  (`WIRE_MODULES`: the replay server, SSE writer, recorder, capture format, and the
  products' manifests and configuration templates);
- within the row, one answer per request, keyed by what the gateway was sent (`sent_keys`:
  the upstream's chunks for that scenario and shape, the context header the upstream
  announces, the model name the request uses) and the request mode.

So a change to the SPEC model, the reference (beyond the native stream it writes), the
checks or the corpus's wording re-judges stored answers without a request; a scenario
whose stream changed is requested again; a change to the wire code or the gateway
requests everything again.

An answer is not kept (`not_kept` says why) when it says how the machine fared rather
than what the gateway answers:

- a request that failed with a timeout (no data within the read timeout, or over the
  wall-clock budget), could not connect, or whose connection broke mid-stream (`cut`:
  a reset under load looks the same as a gateway that cuts);
- an HTTP status that says the moment was wrong, not the request: 408, 425, 429,
  502, 503, 504 (busy, rate-limited, an upstream that did not answer in time), and
  401, 403, 407 (they depend on the key, which is no part of the row);
- an HTTP error or an error event whose message says it timed out, could not
  connect, was reset or refused, was overloaded or rate-limited (a gateway that wraps
  its upstream's timeout in an HTTP 500);
- an answer that names an address of this run (the gateway's or the upstream's
  host:port, e.g. an error quoting the upstream's URL): another run's would differ.

Every other answer is the gateway's: a status or error event it gives for this stream
every time (LiteLLM's HTTP 500 for a lone surrogate, its error event for a repeated
chunk), a changed or merged stream, a pass-through. A stored answer gets this run's
gateway URL; its durations are those measured when it was requested.

Each fresh answer is appended to the row's journal (`<row digest>.journal.jsonl`) as
it arrives, and the journal is folded into the row when the audit ends: an audit that
is interrupted, or killed, keeps every answer it received (a full audit takes minutes
to tens of minutes). Nothing of an audit that found nothing could run is kept.
"""

from __future__ import annotations

import copy
import hashlib
import json
import os
import re
import tempfile
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from scrubcheck.gateway.capture import Capture
from scrubcheck.gateway.server import ReplayServer
from scrubcheck.gateway.upstream import Shape, selector, shape_chunks, shape_context
from scrubcheck.gateway.wire import context_header
from scrubcheck.model import Scenario
from scrubcheck.runner.cache import key_digest
from scrubcheck.runner.harness import files_digest

if TYPE_CHECKING:
    from scrubcheck.gateway.audit import AuditOptions

FORMAT = "v1"
#: The gateway package's modules that carry a stream to the gateway and its answer back:
#: a change to them may change what a gateway is sent or how its answer is read. The
#: rest of the package judges (compare, verdicts, classify, inline, the audit's flow
#: and reports) and may change without a request. tests/test_gateway_answers.py checks
#: that every module of the package is placed on one side.
WIRE_MODULES = ("capture.py", "recorder.py", "replay.py", "route.py", "server.py", "sse.py",
                "tap.py", "upstream.py", "wire.py", "capture.schema.json")
#: ... and the products' manifests, configuration templates and launchers (a folder).
WIRE_FOLDERS = ("products",)
#: The modules that judge what arrived, or drive and report the audit.
JUDGING_MODULES = ("__init__.py", "answers.py", "audit.py", "audit_report.py",
                   "audit.schema.json", "check_audited.py", "check_text.py", "classify.py",
                   "compare.py", "importer.py", "inline.py", "inputs.py", "scrubbers.py",
                   "verdicts.py", "README.md")

#: CaptureError kinds that say how the machine or the network fared.
MACHINE_KINDS = frozenset({"timeout", "connection", "cut"})
#: HTTP statuses that say the moment (or this run's key) was wrong, not the request.
MACHINE_STATUSES = frozenset({401, 403, 407, 408, 425, 429, 502, 503, 504})
#: Words of an error message that say the same inside another status or an error event.
MACHINE_WORDS = re.compile(
    r"time[ds]?[ -]?out|deadline exceeded|connect(ion)?[ _-]?(error|refused|reset|aborted)"
    r"|cannot connect|could not connect|broken pipe|overloaded|rate[ _-]?limit"
    r"|temporarily unavailable|too many requests", re.IGNORECASE)


def wire_digest() -> str:
    """The digest of the code between the corpus and a gateway's answer (see above)."""
    package = Path(__file__).resolve().parent
    files = [package / name for name in WIRE_MODULES]
    files += [p for folder in WIRE_FOLDERS for p in (package / folder).rglob("*")
              if p.is_file()]
    return files_digest(files, package)


def answers_row_key(gateway: dict[str, Any], options: AuditOptions) -> dict[str, Any]:
    """The row of one gateway asked with `options` (see the module's docstring)."""
    return {"kind": "gateway-answers", "gateway": gateway, "wire": wire_digest(),
            "requests": {"route": options.route.text, "timeout_s": options.timeout,
                         "request_timeout_s": options.budget,
                         "non_streaming": options.non_streaming}}


def sent_keys(scenario: Scenario, shape: Shape, modes: tuple[str, ...]) -> dict[str, str]:
    """What each request of a scenario in a shape sends a gateway, digested, by mode: the
    upstream's chunks, the context the upstream announces, the model name the request
    names, and the mode (the stream is built once for all the modes)."""
    chunks = [chunk.to_dict() for chunk in shape_chunks(scenario, shape)]
    data = {"model": selector(scenario.id, shape), "chunks": chunks,
            "context": context_header(shape_context(scenario, shape))}
    return {mode: hashlib.sha256(json.dumps({**data, "mode": mode}, sort_keys=True,
                                            ensure_ascii=True).encode()).hexdigest()[:24]
            for mode in modes}


def run_addresses(*urls: str | None) -> tuple[str, ...]:
    """The host:port of each URL that names a port: what an answer of this run may quote
    that another run's would not."""
    found = []
    for url in urls:
        if url:
            parts = urlsplit(url)
            if parts.port is not None:
                found.append(f"{parts.hostname}:{parts.port}")
    return tuple(found)


def not_kept(answer: dict[str, Any], addresses: tuple[str, ...] = ()) -> str | None:
    """Why an answer (`Capture.to_dict()`) must not be kept, or None when it is the
    gateway's (the rule is in the module's docstring)."""
    error = answer.get("error")
    if error is not None:
        if error["kind"] in MACHINE_KINDS:
            return f"the request failed with a {error['kind']} error"
        if error["kind"] == "http" and error.get("status") in MACHINE_STATUSES:
            return f"the request got HTTP {error['status']}"
        if MACHINE_WORDS.search(error["message"]):
            return f"the request failed with a message of the machine: {error['message'][:80]}"
    if addresses:
        request = {k: v for k, v in answer.get("request", {}).items() if k != "base_url"}
        text = json.dumps({**answer, "request": request}, ensure_ascii=False)
        for address in addresses:
            if address in text:
                return f"it names {address}, an address of this run"
    return None


class AnswerStore:
    """One audit's use of the stored answers: the row of its gateway and options, the
    answers taken from it, and at the end the fresh answers that may be trusted again.
    Audit threads call `get` and `put` concurrently."""

    def __init__(self, root: Path, key: dict[str, Any], gateway_url: str,
                 addresses: tuple[str, ...]) -> None:
        self.key = key
        self.path = root / "answers" / FORMAT / f"{key_digest(key)}.json"
        self.journal = self.path.with_suffix(".journal.jsonl")
        self.gateway_url = gateway_url
        self.addresses = addresses
        self.answers = self._load()
        self.fresh: dict[str, dict[str, Any]] = {}
        if self.journal.exists():  # an earlier audit was killed: its answers are kept
            self.save()
        self._lock = threading.Lock()

    @classmethod
    def open(cls, root: Path, gateway: dict[str, Any] | None, options: AuditOptions,
             upstream: ReplayServer | str | None, gateway_url: str,
             upstream_url: str | None) -> AnswerStore:
        """ValueError without a key naming the gateway, or without the replay server as
        upstream (a user's own upstream may play another stream than the one digested)."""
        if not gateway:
            raise ValueError("a cached gateway audit needs cache_key: what the gateway is "
                             "(its product, installed version and configuration)")
        if not isinstance(upstream, ReplayServer):
            raise ValueError("a cached gateway audit needs the replay server it started as "
                             "upstream, not a URL (another upstream may play another corpus)")
        return cls(root, answers_row_key(gateway, options), gateway_url,
                   run_addresses(gateway_url, upstream_url))

    @property
    def row(self) -> str:
        return key_digest(self.key)

    def _load(self) -> dict[str, dict[str, Any]]:
        """The row's answers and its journal's; an unreadable or foreign file counts as
        empty, an unreadable journal line as absent (a store is never an error: at worst
        it costs a request)."""
        answers: dict[str, dict[str, Any]] = {}
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            if data.get("key") == json.loads(json.dumps(self.key, default=str)) and \
                    isinstance(data.get("answers"), dict):
                answers.update(data["answers"])
        except (OSError, ValueError, AttributeError, TypeError):
            pass
        try:
            with self.journal.open(encoding="utf-8") as lines:
                for line in lines:
                    try:
                        entry = json.loads(line)
                        answers[entry["request"]] = entry["answer"]
                    except (ValueError, KeyError, TypeError):
                        continue  # a line cut short when the audit was killed
        except OSError:
            pass
        return answers

    def get(self, key: str) -> Capture | None:
        """The stored answer to the request `key`, as this run's (its gateway URL)."""
        found = self.answers.get(key)
        if not isinstance(found, dict):
            return None
        try:
            capture = Capture.from_dict(copy.deepcopy(found))
        except (KeyError, ValueError, TypeError, AttributeError):
            return None
        capture.request["base_url"] = self.gateway_url
        return capture

    def put(self, key: str, capture: Capture) -> bool:
        """Note a fresh answer; whether it may be kept (see `not_kept`)."""
        answer = json.loads(json.dumps(capture.to_dict(), ensure_ascii=True))
        if not_kept(answer, self.addresses) is not None:
            return False
        answer["request"].pop("base_url", None)
        line = json.dumps({"request": key, "answer": answer}, ensure_ascii=True) + "\n"
        with self._lock:
            self.fresh[key] = answer
            self.journal.parent.mkdir(parents=True, exist_ok=True)
            with self.journal.open("a", encoding="utf-8") as out:
                out.write(line)
        return True

    def save(self) -> int:
        """Fold the journal into the row as it is on disk now (another audit of the same
        row, a shard, may have saved answers meanwhile); how many fresh answers this audit
        added. Written to a temporary file and renamed: a reader never sees half a row."""
        if not self.fresh and not self.journal.exists():
            return 0
        current = self._load()
        current.update(self.fresh)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        text = json.dumps({"key": self.key, "answers": current}, ensure_ascii=True,
                          default=str)
        handle, name = tempfile.mkstemp(dir=self.path.parent, suffix=".tmp")
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(name, self.path)
        self.journal.unlink(missing_ok=True)
        return len(self.fresh)

    def discard(self) -> None:
        """Forget this audit's fresh answers (it found that nothing could run); the
        journal holds only them (an earlier one's was folded in when this one began)."""
        self.journal.unlink(missing_ok=True)
