"""Real scrubbers in their own environments, driven over the peer protocol.

`load_adapter("peer:hermes-stream")` (or `peer:path/to/peer.toml`) gives a
`PeerAdapter`: the runner drives it like any other adapter, but each stream is
one `run` request to the peer's adapter program (docs/protocol.md), so the
chunking matrix costs one round trip per stream, not per delta. A peer that
crashes, hangs or breaks the protocol turns the stream into a scrubber error
carrying the tail of its stderr, and is restarted for the next stream, until
the circuit breaker (`scrubcheck.peers.breaker`) stops asking it: a broken
peer costs a few failed requests per run, not one per stream.
"""

from __future__ import annotations

import itertools
import json
import os
from collections.abc import Iterator
from typing import TYPE_CHECKING

from scrubcheck.adapters.base import Adapter, BatchRun
from scrubcheck.adapters.resolve import AdapterError
from scrubcheck.model import Context

if TYPE_CHECKING:  # imported where used, at run time: only a peer run needs them
    from scrubcheck.peers.breaker import PeerGivenUp
    from scrubcheck.peers.process import PeerFailure

PREFIX = "peer:"
#: A `time` request feeds up to 1 Mi characters to the peer (R-ROBUST-2), so it gets this
#: many times the peer's timeout_s, or its budget (the peer stops there) plus timeout_s.
TIME_TIMEOUT_FACTOR = 6
_ids = itertools.count(1)
#: A `streams` request carries at most this many streams and characters.
AHEAD_STREAMS = 64
AHEAD_CHARS = 1 << 20


class _Foreign:
    """A non-str value a peer returned, standing in for it in the harness (R-ROBUST-1)."""

    def __init__(self, shown: str, text: str) -> None:
        self._shown, self._text = shown, text

    def __repr__(self) -> str:
        return self._shown

    def __str__(self) -> str:
        return self._text


_FOREIGN_TYPES: dict[str, type] = {}


def decode(value: object) -> object:
    """A protocol return value back to something the trace records faithfully."""
    if not isinstance(value, dict):
        return value
    info = value.get("nonstr") or {}
    name = str(info.get("type") or "object")
    if not name.isidentifier():
        name = "object"
    cls = _FOREIGN_TYPES.setdefault(name, type(name, (_Foreign,), {}))
    return cls(str(info.get("repr", "")), str(info.get("text", "")))


def batch_run(run: dict, flush: bool) -> BatchRun:
    """One `{returns, reasoning, raised}` answer of the protocol as a BatchRun."""
    returns = [decode(v) for v in run.get("returns") or ()]
    error = raised_error(run["raised"]) if run.get("raised") else None
    reasoning = [r for r in run.get("reasoning") or () if isinstance(r, str)]
    return BatchRun(returns, flushed=flush and error is None, error=error, reasoning=reasoning)


def raised_error(raised: dict) -> tuple[str, int | None, str, str]:
    """The protocol's `raised` object as (call, step, summary, traceback)."""
    where = f" ({raised['where']})" if raised.get("where") else ""
    summary = f"{raised.get('type', 'Exception')}: {raised.get('message', '')}{where}"
    return (str(raised.get("call") or "feed"), raised.get("step"), summary,
            str(raised.get("traceback") or summary))


class PeerSession:
    """One stream (one scrubber object inside the peer, kept for R-REUSE-1)."""

    def __init__(self, adapter: PeerAdapter, context: Context) -> None:
        self.adapter = adapter
        self.context = adapter.wire_context(context)
        self.reasoning: list[str] = []
        self.stream = f"s{os.getpid()}-{next(_ids)}"
        self.started = False  # the peer holds an object under self.stream
        self.step = 0

    def __del__(self) -> None:  # no I/O here: the next request carries the close
        if self.started:
            self.adapter.closing.append(self.stream)

    def run_batch(self, deltas: tuple[str, ...], flush: bool) -> BatchRun:
        """The whole stream in one `run` request."""
        request = {"op": "run", "stream": self.stream, "context": self.context,
                   "runs": [{"deltas": list(deltas), "flush": flush}]}
        self.started = True
        # a hang is still caught, but a long stream of many deltas is not mistaken for one
        allowance = len(deltas) * 0.002 + sum(map(len, deltas)) * 1e-6
        timeout_from = "the peer's timeout_s" + (
            f" plus {allowance:.2g} s for a stream of {len(deltas)} deltas"
            if allowance >= 0.01 else "")
        try:
            response = self.adapter.request(
                request, self.adapter.manifest.timeout_s + allowance, timeout_from)
        except PeerFailureError as exc:
            return BatchRun(error=("peer", None, exc.describe(), exc.describe()))
        run = batch_run((response.get("runs") or [{}])[0], flush)
        self.reasoning.extend(run.reasoning)
        return run

    # -- per-delta mode, for callers that feed by hand ------------------------------
    def _single(self, op: str, **fields: object) -> object:
        if not self.started:
            self.started = True
            self._check(self.adapter.request({"op": "start", "stream": self.stream,
                                              "context": self.context}))
        response = self.adapter.request({"op": op, "stream": self.stream, **fields})
        self._check(response)
        if response.get("reasoning"):
            self.reasoning.append(response["reasoning"])
        return decode(response.get("output"))

    @staticmethod
    def _check(response: dict) -> None:
        if response.get("raised"):
            call, step, summary, _ = raised_error(response["raised"])
            raise PeerRaised(f"{summary} [in the peer's {call}"
                             + (f" of delta {step}" if step is not None else "") + "]")

    def feed(self, delta: str) -> object:
        self.step += 1
        return self._single("feed", delta=delta, step=self.step - 1)

    def flush(self) -> object:
        self.step = 0
        return self._single("flush")

    def time_stream(self, text: str, size: int, budget: float | None) -> tuple[float, bool]:
        """CPU seconds the peer itself took (R-ROBUST-2), and whether it gave up."""
        timeout_s = self.adapter.manifest.timeout_s
        limit = timeout_s * TIME_TIMEOUT_FACTOR
        why = f"{TIME_TIMEOUT_FACTOR} x the peer's timeout_s, for a timing run"
        if budget is not None and budget + timeout_s > limit:  # the peer stops at its budget
            limit, why = budget + timeout_s, "the timing run's budget plus the peer's timeout_s"
        response = self.adapter.request(
            {"op": "time", "context": self.context, "text": text, "size": size,
             "budget": budget}, limit, why)
        self._check(response)
        return float(response["seconds"]), bool(response.get("abandoned"))


class PeerRaised(Exception):
    """The peer's scrubber raised (per-delta mode re-raises it in the harness)."""


class PeerAdapter(Adapter):
    """A shipped or user-written peer, by manifest."""

    fresh_object_per_stream = True

    def __init__(self, spec: str) -> None:
        from scrubcheck.peers import ManifestError, find_manifest, launch_for, read_marker
        from scrubcheck.peers.breaker import Breaker
        from scrubcheck.peers.process import PeerProcess

        target = spec.removeprefix(PREFIX)
        try:
            self.manifest = find_manifest(target)
        except ManifestError as exc:
            raise AdapterError(str(exc)) from exc
        package = self.manifest.package
        record = read_marker(package)
        if record is None:
            raise AdapterError(
                f"peer {self.manifest.name!r} is not installed ({package.label}); run "
                f"`scrubcheck peers install {self.manifest.name}`")
        self.kind = self.manifest.adapter_kind
        self.token_aligned = self.manifest.token_aligned
        self.installed_version = record.version or package.version
        context = self.manifest.context | ({"features"} if self.manifest.features else set())
        super().__init__(spec, self.manifest.name, self.manifest.features, frozenset(context))
        self.claims = self.manifest.claims
        self.process = PeerProcess(launch_for(self.manifest), self.manifest.name)
        self.breaker = Breaker(self.manifest.name)
        self.closing: list[str] = []
        self.hello: dict = {}
        #: prefetched runs of fresh streams, by (wire context, deltas), taken once each
        self.ahead: dict[tuple[str, tuple[str, ...]], BatchRun] = {}
        try:  # fail fast, with the peer's stderr, if its environment is broken
            self.request({"op": "hello"})
        except PeerFailureError as exc:
            raise AdapterError(f"peer {self.manifest.name} did not start: {exc.describe()}") \
                from exc

    @property
    def streams(self) -> bool:
        return self.manifest.streams

    def wire_context(self, context: Context) -> dict:
        """The context as the protocol sends it (fixed modes already hold). A peer is
        configured for the class it claims by its manifest: the class is not sent, and a
        class that is a feature is sent as that feature enabled."""
        wire: dict = {**self.manifest.sent_context(context)}
        wire["features"] = list(wire["features"])
        return wire

    def measurement_context(self) -> Context:
        """A peer fixed to one mode (a format's parser, a pre-filled template) is measured
        in that mode: timing a harmony parser on `<think>` text times a stream it never
        meets in use."""
        return self.manifest.fixed_mode()

    def unsupported_reason(self, context: Context, text: str = "") -> str | None:
        reason = self.manifest.refusal(context)
        if reason:
            return reason
        reason = super().unsupported_reason(context, text)
        return reason and reason.replace("in its signature", "in its manifest").replace(
            "in supported_features", "in its manifest")

    def request(self, message: dict, timeout_s: float | None = None,
                timeout_from: str = "the peer's timeout_s") -> dict:
        """One request to the peer (starting it, and checking its hello, when needed).

        Raises PeerFailureError when the request failed; when the circuit breaker stops
        (`scrubcheck.peers.breaker`), the error carries its PeerGivenUp instead, and once it
        has given up on the peer nothing is sent at all."""
        from scrubcheck.peers.breaker import Failure
        from scrubcheck.peers.process import PeerFailure

        given_up = self.breaker.given_up()
        if given_up is not None:
            raise PeerFailureError(given_up)
        try:
            if not self.process.alive():
                self.hello = self.process.request(
                    {"op": "hello"}, self.manifest.timeout_s * 3,
                    "3 x the peer's timeout_s, to start")
                self._check_hello()
            if self.closing:
                message = {**message, "close": self.closing}
                self.closing = []
            response = self.process.request(message, timeout_s or self.manifest.timeout_s,
                                            timeout_from)
        except PeerFailure as exc:
            stop = self.breaker.failed(Failure(exc.kind, str(exc), exc.stderr_tail))
            raise PeerFailureError(stop or exc) from exc
        if message.get("op") != "hello":
            self.breaker.succeeded()
        return response

    def _check_hello(self) -> None:
        hello, manifest = self.hello, self.manifest
        if hello.get("protocol") != 1:
            raise AdapterError(f"peer {manifest.name}: speaks protocol "
                               f"{hello.get('protocol')!r}, scrubcheck speaks 1")
        if hello.get("kind") not in (None, manifest.protocol_kind):
            raise AdapterError(f"peer {manifest.name}: the program says kind "
                               f"{hello.get('kind')!r}, the manifest {manifest.kind!r}")
        version = hello.get("version")
        if manifest.package.ecosystem != "none" and version not in (None, manifest.package.version):
            raise AdapterError(f"peer {manifest.name}: {manifest.package.name} {version} is "
                               f"installed, the manifest pins {manifest.package.version}; run "
                               f"`scrubcheck peers install --force {manifest.name}`")

    def open(self, context: Context) -> PeerSession:
        return PeerSession(self, context)

    # -- many streams per round trip -------------------------------------------------
    @property
    def prefetches(self) -> bool:
        return "streams" in (self.hello.get("ops") or ())

    def prefetch(self, context: Context, streams: list[tuple[str, ...]]) -> None:
        """Run `streams` (fresh, flushed) ahead, up to AHEAD_STREAMS per `streams` request,
        when the peer's hello offers that op: a round trip costs more than the peer's work
        on a short stream. Anything still waiting from an earlier prefetch is dropped.

        Only an optimisation: nothing is prefetched when the peer does not offer it, is
        not running, or has been stopped by the breaker, and a request that fails (dies,
        hangs, garbage) just ends the prefetch, outside the breaker's counts. Its streams
        then run one by one, and the one that fails is reported by itself."""
        from scrubcheck.peers.process import PeerFailure

        self.ahead.clear()
        if not streams or self.breaker.given_up() is not None:
            return
        if not self.process.alive():  # a fresh worker's peer: start it (and read its hello)
            try:
                self.request({"op": "hello"})
            except PeerFailureError:
                return
        if "streams" not in (self.hello.get("ops") or ()):
            return
        wire = self.wire_context(context)
        key = json.dumps(wire, sort_keys=True)
        for group in _groups(streams):
            allowance = sum(len(d) * 0.002 + sum(map(len, d)) * 1e-6 for d in group)
            try:
                response = self.process.request(
                    {"op": "streams", "context": wire, "streams": [list(d) for d in group]},
                    self.manifest.timeout_s + allowance,
                    f"the peer's timeout_s plus {allowance:.2g} s for {len(group)} streams")
            except PeerFailure:
                self.ahead.clear()
                return
            runs = response.get("runs") or []
            if len(runs) != len(group):
                return
            for deltas, run in zip(group, runs, strict=True):
                self.ahead[(key, deltas)] = batch_run(run, True)

    def take_ahead(self, context: Context, deltas: tuple[str, ...]) -> BatchRun | None:
        if not self.ahead:
            return None
        key = (json.dumps(self.wire_context(context), sort_keys=True), deltas)
        return self.ahead.pop(key, None)

    def close(self) -> None:
        """Stop the peer; a later request starts it again, as a new run (fresh counts)."""
        self.process.stop()
        self.breaker.reset()


class PeerFailureError(Exception):
    """The peer died, hung or broke the protocol during a request (a PeerFailure), or the
    circuit breaker stopped asking it (a PeerGivenUp)."""

    def __init__(self, failure: PeerFailure | PeerGivenUp) -> None:
        super().__init__(str(failure))
        self.failure = failure

    def describe(self) -> str:
        return self.failure.describe()


def _groups(streams: list[tuple[str, ...]]) -> Iterator[list[tuple[str, ...]]]:
    """Consecutive groups of at most AHEAD_STREAMS streams and about AHEAD_CHARS characters."""
    group: list[tuple[str, ...]] = []
    size = 0
    for deltas in streams:
        length = sum(map(len, deltas))
        if group and (len(group) >= AHEAD_STREAMS or size + length > AHEAD_CHARS):
            yield group
            group, size = [], 0
        group.append(deltas)
        size += length
    if group:
        yield group
