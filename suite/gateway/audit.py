"""`gateway audit`: the corpus through a gateway, scenario by scenario, as its clients see it.

The replay server plays each scenario upstream of the gateway, in the inline
and the native shape (`upstream.py`); the official openai client asks the
gateway for it, streaming and then not (`recorder.py`), naming the scenario as
the route template says (`route.py`); each received stream is compared with
what the upstream sent (`compare.py`). The result holds a verdict per scenario
and shape, what a client with the reference scrubber shows, and for each
failure the commands that reproduce it.

Entry points for other code (a gateway started from a manifest, say):

    with replay_upstream(corpus.scenarios, port=0) as upstream:
        ...start the gateway with upstream.url as its upstream...
        result = audit(gateway_url, scenarios, AuditOptions(...), upstream=upstream)

Nothing can run (exit 2) when the gateway cannot be reached, refuses the key,
or fails every request before a chunk arrives; the first request is a probe
so that an unreachable gateway costs one timeout, not one per scenario. The API
key is handed to the openai client only: commands in reports name its
variable, and the recorder redacts it from anything a gateway echoes.
"""

from __future__ import annotations

import json
import shlex
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from queue import Queue
from typing import TYPE_CHECKING, Any

from openai.types.chat import ChatCompletionMessageParam

from scrubcheck import __version__
from scrubcheck.gateway.answers import sent_keys
from scrubcheck.gateway.capture import AUDIT_KEY, Capture
from scrubcheck.gateway.classify import needs_for
from scrubcheck.gateway.compare import Expectation, Judgement, expectation, judge, sent
from scrubcheck.gateway.recorder import Recorder, public_url
from scrubcheck.gateway.replay import Catalog
from scrubcheck.gateway.route import DEFAULT as DEFAULT_ROUTE
from scrubcheck.gateway.route import Route
from scrubcheck.gateway.server import LOOPBACK, ReplayServer, running
from scrubcheck.gateway.upstream import Shape, selector, shape_context
from scrubcheck.gateway.verdicts import (
    ACTION_ORDER,
    OUTCOME_ORDER,
    RAW,
    SCRUBBED,
    Action,
    ClientOutcome,
    worst_action,
    worst_outcome,
)
from scrubcheck.gateway.wire import context_header
from scrubcheck.model import Scenario
from scrubcheck.results import Verdict, exit_verdict
from scrubcheck.spec import SPEC_VERSION

if TYPE_CHECKING:
    from scrubcheck.gateway.answers import AnswerStore
    from scrubcheck.runner.cache import ResultCache

PROMPT: list[ChatCompletionMessageParam] = [
    {"role": "user", "content": "scrubcheck gateway audit: answer as recorded"}]
#: HTTP statuses that mean the gateway refuses this client outright (key, permission).
REFUSED = frozenset({401, 403, 407})
STREAM, COMPLETE = "stream", "complete"


@dataclass
class AuditOptions:
    route: Route = field(default_factory=lambda: Route.parse(DEFAULT_ROUTE))
    shapes: tuple[Shape, ...] = (Shape.INLINE, Shape.NATIVE)
    api_key: str | None = None
    key_env: str | None = None  # named in reproduction commands; the key never is
    jobs: int = 2
    timeout: float = 60.0  # seconds without a byte before a request is given up
    budget: float | None = 300.0  # wall-clock seconds a whole request may take
    slow: float = 10.0  # a finished request that took longer is counted as slow
    non_streaming: bool = True  # also ask for each stream without streaming
    label: str | None = None  # what the reports call the gateway (default: its URL)
    corpus: tuple[str, ...] = ()  # --corpus paths, repeated in reproduction commands


@dataclass
class PassResult:
    """One request for one scenario in one shape: streamed or not. The capture is kept
    only when the pass failed (for the failures capture file): a full-corpus audit
    receives hundreds of thousands of chunks."""

    mode: str  # stream | complete
    action: Action  # what the gateway did
    detail: str
    notes: list[str]
    raw: ClientOutcome  # what a client showing content raw sees
    raw_detail: str
    scrubbed: ClientOutcome  # what a client with a SPEC-conformant scrubber sees
    scrubbed_detail: str
    received: dict[str, Any]  # what arrived, in numbers (see `received`)
    capture: Capture | None = None

    @classmethod
    def of(cls, mode: str, judgement: Judgement, capture: Capture) -> PassResult:
        """The pass of `judgement`; the received text and capture are kept when a client
        fails on something the gateway did (a raw client's leak of inline reasoning passed
        through as sent is the upstream's stream, known from the scenario)."""
        raw, scrubbed = judgement.outcomes
        failed = scrubbed.failed or (raw.failed and judgement.action not in (
            Action.PASSED_THROUGH, Action.RECHUNKED))
        none = "shows nothing: the request failed"
        return cls(mode, judgement.action, judgement.detail, judgement.notes,
                   raw, judgement.raw.detail if judgement.raw else none,
                   scrubbed, judgement.scrubbed.detail if judgement.scrubbed else none,
                   received(capture, with_text=failed), capture if failed else None)

    @property
    def failed(self) -> bool:
        return self.raw.failed or self.scrubbed.failed

    @property
    def unreached(self) -> bool:
        """Nothing to judge: the request failed before any chunk arrived (no connection,
        an HTTP error, a web page or other body that is no answer, silence)."""
        return self.received["error"] is not None and not self.received["chunks"]

    def to_dict(self) -> dict[str, Any]:
        return {"mode": self.mode, "action": self.action.value, "detail": self.detail,
                "notes": self.notes,
                "clients": {RAW: {"outcome": self.raw.value, "detail": self.raw_detail},
                            SCRUBBED: {"outcome": self.scrubbed.value,
                                       "detail": self.scrubbed_detail}},
                "received": self.received}


#: How much received text a report keeps per failing pass (the capture file keeps all).
CONTENT_KEPT = 2000


def received(capture: Capture, *, with_text: bool) -> dict[str, Any]:
    """A capture in numbers (and, for a failure, the start of its text)."""
    out: dict[str, Any] = {
        "status": capture.response.get("status"), "chunks": len(capture.chunks),
        "content_deltas": len(capture.content_deltas),
        "reasoning_deltas": len(capture.reasoning_deltas),
        "reasoning_fields": capture.reasoning_fields, "finish_reason": capture.finish_reason,
        "done": capture.done, "error": capture.error.to_dict() if capture.error else None,
        "duration_s": round(capture.duration_s or 0.0, 6)}
    if with_text:
        out["content"] = capture.content[:CONTENT_KEPT]
        out["reasoning"] = capture.structured_reasoning[:CONTENT_KEPT]
    return out


@dataclass
class ScenarioAudit:
    """A scenario in one shape: each pass, what the gateway did (the most telling action
    of the passes), what each kind of client sees (the worst outcome of the passes), what
    a client needs when the gateway passes the stream through, and how to reproduce it."""

    scenario: Scenario
    shape: Shape
    name: str  # the upstream selector (`ID`, `ID:native`)
    passes: list[PassResult]
    needs: list[str]
    reproduce: list[str] = field(default_factory=list)

    @property
    def action(self) -> Action:
        return worst_action([p.action for p in self.passes])

    @property
    def raw(self) -> ClientOutcome:
        return worst_outcome([p.raw for p in self.passes])

    @property
    def scrubbed(self) -> ClientOutcome:
        return worst_outcome([p.scrubbed for p in self.passes])

    @property
    def failed(self) -> bool:
        """Some client does not show the right answer on some pass."""
        return self.raw.failed or self.scrubbed.failed

    @property
    def worst_pass(self) -> PassResult:
        """The pass to name first: the scrubbing client's worst, then the raw client's."""
        return min(self.passes, key=lambda p: (OUTCOME_ORDER.index(p.scrubbed),
                                               OUTCOME_ORDER.index(p.raw)))

    def seconds(self) -> list[float]:
        return [p.received["duration_s"] for p in self.passes]

    def slow(self, threshold: float) -> bool:
        """A request that finished (no error) but took longer than `threshold` seconds."""
        return any(p.received["error"] is None and p.received["duration_s"] > threshold
                   for p in self.passes)

    def to_dict(self, slow: float) -> dict[str, Any]:
        s = self.scenario
        return {"id": s.id, "area": s.area, "file": s.file, "line": s.line,
                "rules": list(s.rules), "shape": self.shape.value, "name": self.name,
                "action": self.action.value,
                "clients": {RAW: self.raw.value, SCRUBBED: self.scrubbed.value},
                "slow": self.slow(slow), "needs": self.needs,
                "passes": [p.to_dict() for p in self.passes], "reproduce": self.reproduce}


def percentile(values: list[float], share: float) -> float:
    """The nearest-rank percentile (`share` in 0..1) of `values` (0 when empty)."""
    if not values:
        return 0.0
    ordered = sorted(values)
    rank = max(1, -(-int(share * 1000) * len(ordered) // 1000))
    return ordered[min(rank, len(ordered)) - 1]


@dataclass
class AuditResult:
    gateway: str  # the base URL, without credentials
    label: str
    upstream: str | None
    route: str
    shapes: tuple[Shape, ...]
    settings: dict[str, Any]
    started_at: str
    duration_s: float = 0.0
    results: list[ScenarioAudit] = field(default_factory=list)
    not_run: list[tuple[str, str]] = field(default_factory=list)  # (id, shape), interrupted
    problem: str | None = None  # why nothing could run
    interrupted: bool = False
    upstream_requests: int | None = None  # requests the replay server saw (when ours)
    upstream_port: int | None = None  # the port of the replay server the audit started
    scrubcheck_version: str = __version__
    spec_version: str = SPEC_VERSION

    def _chosen(self, shape: Shape | None) -> list[ScenarioAudit]:
        return [r for r in self.results if shape is None or r.shape is shape]

    def actions(self, shape: Shape | None = None) -> dict[str, int]:
        """Scenarios per gateway action, every action present, most telling first."""
        found = Counter(r.action for r in self._chosen(shape))
        return {a.value: found.get(a, 0) for a in ACTION_ORDER}

    def counts(self, shape: Shape | None = None) -> dict[str, dict[str, int]]:
        """client -> outcome -> scenarios, every outcome present, worst first."""
        chosen = self._chosen(shape)
        table = {}
        for client in (RAW, SCRUBBED):
            found = Counter(getattr(r, client) for r in chosen)
            table[client] = {o.value: found.get(o, 0) for o in OUTCOME_ORDER}
        return table

    def area_counts(self) -> dict[str, dict[str, dict[str, dict[str, int]]]]:
        """area -> shape -> client -> outcome -> scenarios."""
        table: dict[str, dict[str, dict[str, Counter]]] = {}
        for r in self.results:
            by_client = table.setdefault(r.scenario.area, {}).setdefault(
                r.shape.value, {RAW: Counter(), SCRUBBED: Counter()})
            by_client[RAW][r.raw] += 1
            by_client[SCRUBBED][r.scrubbed] += 1
        return {area: {shape: {client: {o.value: c.get(o, 0) for o in OUTCOME_ORDER}
                               for client, c in clients.items()}
                       for shape, clients in shapes.items()}
                for area, shapes in table.items()}

    def headline(self, shape: Shape | None = None,
                 client: str = SCRUBBED) -> tuple[int, int]:
        """(right, total): scenarios whose `client` shows the right answer on every pass."""
        chosen = self._chosen(shape)
        return sum(1 for r in chosen if getattr(r, client) is ClientOutcome.RIGHT), \
            len(chosen)

    def headline_text(self) -> str:
        def of(client: str) -> str:
            right, total = self.headline(client=client)
            parts = [f"{s.value}: {self.headline(s, client)[0]} of {self.headline(s, client)[1]}"
                     for s in self.shapes]
            return f"{right} of {total}" + (f" ({'; '.join(parts)})" if len(self.shapes) > 1
                                           else "")

        return (f"a client of this gateway that runs a SPEC-conformant scrubber with the "
                f"context it can know shows the right answer in {of(SCRUBBED)} scenario "
                f"streams; a client that shows content raw, in {of(RAW)}")

    def timing(self) -> dict[str, Any]:
        """Per-request time: p50 and p99, and the scenario streams with a request that
        finished but took longer than the `slow` setting."""
        seconds = [t for r in self.results for t in r.seconds()]
        threshold = self.settings.get("slow_s") or 0.0
        return {"requests": len(seconds), "p50_s": round(percentile(seconds, 0.5), 3),
                "p99_s": round(percentile(seconds, 0.99), 3),
                "max_s": round(max(seconds, default=0.0), 3), "slow_s": threshold,
                "slow": sum(1 for r in self.results if r.slow(threshold))}

    def failures(self) -> list[ScenarioAudit]:
        """The failing scenarios: the scrubbing client's worst outcome first, then the raw
        client's, in corpus order within one."""
        failing = [r for r in self.results if r.failed]
        return sorted(failing, key=lambda r: (OUTCOME_ORDER.index(r.scrubbed),
                                              OUTCOME_ORDER.index(r.raw)))

    def needs_summary(self) -> dict[str, list[str]]:
        """Context a client needs -> the passed-through scenarios (`ID [shape]`) needing it."""
        table: dict[str, list[str]] = {}
        for r in self.results:
            if r.action in (Action.PASSED_THROUGH, Action.RECHUNKED):
                for need in r.needs:
                    table.setdefault(need, []).append(f"{r.scenario.id} [{r.shape.value}]")
        return table

    def exit_code(self) -> int:
        if self.problem is not None:
            return 2
        if self.interrupted:
            return 130
        return 1 if any(r.failed for r in self.results) else 0

    def run_verdict(self) -> Verdict:
        """The audit's word for its exit code (the run's vocabulary, and NOTHING RAN
        when the gateway was never reached)."""
        return exit_verdict(self.exit_code(), nothing_judged=Verdict.NOTHING_RAN)

    def to_dict(self) -> dict[str, Any]:
        def rights(client: str) -> dict[str, Any]:
            right, total = self.headline(client=client)
            return {"right": right, "total": total,
                    "by_shape": {s.value: dict(zip(("right", "total"),
                                                   self.headline(s, client), strict=True))
                                 for s in self.shapes}}

        slow = self.settings.get("slow_s") or 0.0
        return {
            "gateway": self.gateway, "label": self.label, "upstream": self.upstream,
            "route": self.route, "shapes": [s.value for s in self.shapes],
            "settings": self.settings, "scrubcheck_version": self.scrubcheck_version,
            "spec_version": self.spec_version, "started_at": self.started_at,
            "duration_s": round(self.duration_s, 3), "exit_code": self.exit_code(),
            "problem": self.problem, "interrupted": self.interrupted,
            "upstream_requests": self.upstream_requests,
            "headline": {"text": self.headline_text(), RAW: rights(RAW),
                         SCRUBBED: rights(SCRUBBED)},
            "actions": self.actions(),
            "actions_by_shape": {s.value: self.actions(s) for s in self.shapes},
            "counts": self.counts(),
            "counts_by_shape": {s.value: self.counts(s) for s in self.shapes},
            "timing": self.timing(),
            "areas": self.area_counts(), "needs": self.needs_summary(),
            "results": [r.to_dict(slow) for r in self.results],
            "not_run": [{"id": i, "shape": s} for i, s in self.not_run],
        }


# --------------------------------------------------------------------- upstream
@contextmanager
def replay_upstream(scenarios: Iterable[Scenario], *, host: str = LOOPBACK,
                    port: int = 0) -> Iterator[ReplayServer]:
    """The replay server as a gateway's upstream, on loopback, stopped when the block
    ends however it ends (OSError when the port is taken)."""
    with running(ReplayServer(Catalog(scenarios), host, port)) as server:
        yield server


def check_upstream(url: str, scenarios: list[Scenario], timeout: float = 10.0) -> str | None:
    """A problem with an upstream the user runs (`--upstream-url`), or None: it must
    answer GET /models and list every selected scenario."""
    import httpx

    try:
        response = httpx.get(url.rstrip("/") + "/models", timeout=timeout)
        listed = {m.get("id") for m in response.json().get("data", [])}
    except (httpx.HTTPError, ValueError, AttributeError) as exc:
        return f"the upstream at {public_url(url)} does not answer GET /models as a " \
               f"scrubcheck replay server ({type(exc).__name__}: {exc})"
    missing = [s.id for s in scenarios if s.id not in listed]
    if missing:
        return (f"the upstream at {public_url(url)} does not serve {len(missing)} selected "
                f"scenario(s), e.g. {', '.join(missing[:3])}: start it with the same corpus")
    return None


# ------------------------------------------------------------------------ audit
class _Recorders:
    """One Recorder per worker thread (a Recorder watches one response at a time), all
    closed at the end, or at an interrupt to abort requests in flight."""

    def __init__(self, gateway: str, options: AuditOptions) -> None:
        self._gateway, self._options = gateway, options
        self._local = threading.local()
        self._all: list[Recorder] = []
        self._lock = threading.Lock()

    def get(self) -> Recorder:
        recorder = getattr(self._local, "recorder", None)
        if recorder is None:
            recorder = Recorder(self._gateway, api_key=self._options.api_key,
                                timeout=self._options.timeout, budget=self._options.budget,
                                secrets=self._options.route.secrets)
            self._local.recorder = recorder
            with self._lock:
                self._all.append(recorder)
        return recorder

    def close(self) -> None:
        with self._lock:
            for recorder in self._all:
                recorder.close()


def audit(gateway: str, scenarios: list[Scenario], options: AuditOptions | None = None, *,
          upstream: ReplayServer | str | None = None,
          progress: Callable[[ScenarioAudit], None] | None = None,
          cache: ResultCache | None = None,
          cache_key: dict[str, Any] | None = None) -> AuditResult:
    """Audit the gateway at `gateway` (an OpenAI base URL, …/v1) on `scenarios` in
    every shape of `options`. `upstream` is the replay server behind it (its URL
    goes into the reproduction commands; its request count into the diagnosis).

    With `cache` (a ResultCache: its folder holds the stored answers) and `cache_key`
    (what the gateway is: product, installed version, configuration), each request
    whose answer is stored for that gateway, these options and what it sends is
    answered from the store, only the rest is made, and every answer is judged afresh;
    fresh answers that may be trusted again are kept (gateway/answers.py). The result's
    `settings["cache"]` says how many (scenario, shape) pairs were reused and requested.
    A cached audit needs `cache_key` and the replay server as `upstream` (ValueError)."""
    options = options or AuditOptions()
    upstream_url = upstream.url if isinstance(upstream, ReplayServer) else upstream
    result = AuditResult(
        gateway=public_url(gateway), label=options.label or public_url(gateway),
        upstream=public_url(upstream_url) if upstream_url else None,
        route=options.route.text, shapes=tuple(options.shapes),
        settings={"jobs": options.jobs, "timeout_s": options.timeout,
                  "request_timeout_s": options.budget, "slow_s": options.slow,
                  "non_streaming": options.non_streaming, "key_env": options.key_env},
        started_at=datetime.now(UTC).isoformat(timespec="seconds"),
        upstream_port=upstream.server_address[1] if isinstance(upstream, ReplayServer)
        else None)
    store = None
    if cache is not None:
        from scrubcheck.gateway.answers import AnswerStore

        store = AnswerStore.open(cache.root, cache_key, options, upstream, result.gateway,
                                 result.upstream)
    asked = _Asked(store, scenarios, options)
    began = time.monotonic()
    recorders = _Recorders(gateway, options)
    try:
        if asked.first_missing is not None:
            index, shape = asked.first_missing
            try:
                result.problem = _probe(recorders.get(), (scenarios[index], shape), options,
                                        result.gateway)
            except KeyboardInterrupt:  # before anything ran: every stream is not run
                result.interrupted = True
                result.not_run = [(s.id, shape.value) for s in scenarios
                                  for shape in options.shapes]
        if result.problem is None and not result.interrupted:
            _run(scenarios, options, recorders, result, progress, asked)
    finally:
        recorders.close()
        result.duration_s = time.monotonic() - began
        if isinstance(upstream, ReplayServer):
            result.upstream_requests = sum(upstream.requests.values())
    if result.problem is None and result.results and all(
            p.unreached for r in result.results for p in r.passes):
        result.problem = _nothing_ran(result)
    if store is not None and cache is not None:
        asked.finish(result, cache)
    return result


def _probe(recorder: Recorder, item: tuple[Scenario, Shape], options: AuditOptions,
           gateway: str) -> str | None:
    """Why nothing can run, found with one request, or None."""
    scenario, shape = item
    request = options.route.request(selector(scenario.id, shape))
    capture = recorder.record(request.model, PROMPT, name="probe",
                              extra_body=request.extra_body, headers=request.headers)
    error = capture.error
    if error is None:
        return None
    if error.kind == "connection":
        return f"cannot reach the gateway at {gateway}: {error.message}"
    if error.kind == "http" and error.status in REFUSED:
        key = f"the key from {options.key_env}" if options.key_env else (
            "the key" if options.api_key else "no key (the placeholder)")
        return (f"the gateway at {gateway} refuses the request with {key}: {error.message}; "
                "set the key's variable with --key-env VAR")
    return None


def _nothing_ran(result: AuditResult) -> str:
    messages = Counter(p.received["error"]["message"] for r in result.results
                       for p in r.passes if p.received["error"] is not None)
    common, count = messages.most_common(1)[0]
    total = sum(messages.values())
    text = (f"nothing could run: every request to the gateway at {result.gateway} failed "
            f"before a chunk arrived; "
            + (f"each with: {common}" if count == total else
               f"most often ({count} of {total} requests): {common}"))
    if result.upstream_requests == 0:
        text += (f"; the upstream at {result.upstream} received no request: check that the "
                 f"gateway routes these models to it (route {result.route!r})")
    return text


def modes(options: AuditOptions) -> tuple[str, ...]:
    """The requests made for each scenario stream: streamed, and unless the options say
    otherwise not."""
    return (STREAM, COMPLETE) if options.non_streaming else (STREAM,)


class _Asked:
    """Which requests an audit makes and which it answers from the stored answers
    (gateway/answers.py), with the counts `settings["cache"]` reports. Without a store
    every request is made."""

    def __init__(self, store: AnswerStore | None, scenarios: list[Scenario],
                 options: AuditOptions) -> None:
        self.store = store
        self.keys: dict[tuple[int, Shape, str], str] = {}
        #: the first (scenario, shape) with a request to make: the audit's probe
        self.first_missing: tuple[int, Shape] | None = None
        self.ran = self.kept = 0  # pairs with a request made; those whose answers were kept
        self._lock = threading.Lock()
        pairs = [(i, shape) for i in range(len(scenarios)) for shape in options.shapes]
        if store is None:
            self.first_missing = pairs[0] if pairs else None
            return
        for index, shape in pairs:
            keys = sent_keys(scenarios[index], shape, modes(options))
            for mode, key in keys.items():
                self.keys[index, shape, mode] = key
            if self.first_missing is None and not all(k in store.answers for k in keys.values()):
                self.first_missing = (index, shape)

    def answer(self, index: int, shape: Shape, mode: str,
               request: Callable[[], Capture]) -> tuple[Capture, bool | None]:
        """The answer to one request: stored, or requested now (and noted for keeping).
        The flag: None when stored, else whether the fresh answer may be kept."""
        key = self.keys.get((index, shape, mode))  # (none without a store)
        if key is None or self.store is None:
            return request(), False
        stored = self.store.get(key)
        if stored is not None:
            return stored, None
        capture = request()
        return capture, self.store.put(key, capture)

    def count(self, fresh: list[bool]) -> None:
        """A pair is done: `fresh`, whether each answer requested for it may be kept."""
        if fresh:
            with self._lock:
                self.ran += 1
                self.kept += all(fresh)

    def finish(self, result: AuditResult, cache: ResultCache) -> None:
        """Keep the fresh answers (none of an audit where nothing could run) and say in
        the result's settings what was reused and requested."""
        store = self.store
        assert store is not None
        keep = result.problem is None  # an interrupted audit keeps what it received
        if keep:
            store.save()
        else:
            store.discard()
        pairs = len(result.results)
        reused = pairs - self.ran if result.results else 0
        cache.reused += reused
        cache.ran += self.ran
        result.settings["cache"] = {"answers": store.row, "wire": store.key["wire"],
                                    "reused": reused, "ran": self.ran,
                                    "kept": self.kept if keep else 0,
                                    "not_kept": self.ran - (self.kept if keep else 0)}


def _run(scenarios: list[Scenario], options: AuditOptions, recorders: _Recorders,
         result: AuditResult, progress: Callable[[ScenarioAudit], None] | None,
         asked: _Asked) -> None:
    """Every scenario in every shape on `options.jobs` threads (one expectation per
    scenario); results in corpus order. On Ctrl-C the requests in flight are aborted
    and what did not finish is listed as not run."""
    finished: Queue[ScenarioAudit] = Queue()
    done: dict[tuple[int, Shape], ScenarioAudit] = {}

    def one(index: int) -> None:
        scenario = scenarios[index]
        expect = expectation(scenario)
        for shape in options.shapes:
            audited = audit_one(recorders.get(), scenario, shape, options, expect, result,
                                asked, index)
            done[index, shape] = audited
            finished.put(audited)

    pool = ThreadPoolExecutor(max_workers=max(1, options.jobs),
                              thread_name_prefix="scrubcheck-audit")
    try:
        pending = {pool.submit(one, i) for i in range(len(scenarios))}
        while pending:
            ended, pending = wait(pending, timeout=0.5, return_when=FIRST_COMPLETED)
            for future in ended:
                future.result()  # a bug of ours: raise, do not hide it
            while not finished.empty():
                if progress is not None:
                    progress(finished.get())
                else:
                    finished.get()
    except KeyboardInterrupt:
        result.interrupted = True
        pool.shutdown(wait=False, cancel_futures=True)
        recorders.close()
    finally:
        pool.shutdown(wait=not result.interrupted)
    order = [(i, shape) for i in range(len(scenarios)) for shape in options.shapes]
    result.results = [done[key] for key in order if key in done]
    result.not_run = [(scenarios[i].id, shape.value) for i, shape in order
                      if (i, shape) not in done]


def audit_one(recorder: Recorder, scenario: Scenario, shape: Shape, options: AuditOptions,
              expect: Expectation, result: AuditResult, asked: _Asked | None = None,
              index: int = 0) -> ScenarioAudit:
    """Both passes of one scenario in one shape (each answer requested, or taken from
    the stored answers by `asked`), judged."""
    name = selector(scenario.id, shape)
    request = options.route.request(name)
    upstream = sent(scenario, shape)
    passes = []
    fresh: list[bool] = []
    for mode in modes(options):
        call = recorder.record if mode == STREAM else recorder.complete

        def ask(call: Callable[..., Capture] = call, mode: str = mode) -> Capture:
            return call(request.model, PROMPT, name=f"{name}.{mode}",
                        extra_body=request.extra_body, headers=request.headers)

        if asked is None:
            capture = ask()
        else:
            capture, kept = asked.answer(index, shape, mode, ask)
            if kept is not None:
                fresh.append(kept)
        judgement = judge(expect, upstream, capture, streamed=mode == STREAM)
        if judgement.scrubbed is not None and judgement.scrubbed.context is not None:
            # what `gateway check` needs to judge this capture as the audit did
            capture.request[AUDIT_KEY] = {
                "scenario": scenario.id, "shape": shape.value, "mode": mode,
                "client_context": json.loads(context_header(judgement.scrubbed.context))}
        passes.append(PassResult.of(mode, judgement, capture))
    if asked is not None:
        asked.count(fresh)
    needs = [] if shape is Shape.NATIVE else [
        f"{need.key}={json.dumps(need.value)} ({need.rule})"
        for need in needs_for(shape_context(scenario, shape))]
    audited = ScenarioAudit(scenario, shape, name, passes, needs)
    if audited.failed:
        audited.reproduce = reproduction(result, options, scenario, shape,
                                         [p.mode for p in passes if p.failed],
                                         result.upstream_port)
    return audited


# ---------------------------------------------------------------- reproductions
def reproduction(result: AuditResult, options: AuditOptions, scenario: Scenario,
                 shape: Shape, failed_modes: list[str], upstream_port: int | None = None
                 ) -> list[str]:
    """Commands that show one failure, each able to run after the audit ended: the
    audit of this scenario alone (it starts the replay server again, on the port the
    gateway sends to, or names the user's own upstream), then the request that failed
    (streamed or not, as it failed) with the replay server started for it and stopped
    after, and the upstream's own answer to the same request for comparison. The key
    and every header from the environment appear as their variables."""
    name = selector(scenario.id, shape)
    request = options.route.request(name)
    headers = options.route.shown_headers(name)
    q = shlex.quote
    corpus = "".join(f" --corpus {q(path)}" for path in options.corpus)
    again = (f"scrubcheck gateway audit --gateway {q(result.gateway)} --route "
             f"{q(options.route.text)} --upstream {shape.value} --id {q(scenario.id)}"
             + corpus)
    if STREAM in failed_modes and COMPLETE not in failed_modes:
        again += " --stream-only"
    if options.key_env:
        again += f" --key-env {q(options.key_env)}"
    if upstream_port is not None:
        again += f" --upstream-port {upstream_port} --no-progress"
    elif result.upstream:
        again += f" --upstream-url {q(result.upstream)} --no-progress"
    commands = [again]
    if upstream_port is not None:
        models = f"http://{LOOPBACK}:{upstream_port}/v1/models"
        commands.append(f"scrubcheck gateway serve --port {upstream_port}{corpus} >/dev/null & "
                        f"for _ in $(seq 120); do curl -sf {models} >/dev/null && break; "
                        "sleep 0.5; done   # the gateway's upstream, as during the audit")
    fields = {"model": request.model, **(request.extra_body or {})}
    for mode in failed_modes:
        streamed = mode == STREAM
        if streamed and not request.headers:
            record = (f"scrubcheck gateway record --base-url {q(result.gateway)} --model "
                      f"{q(request.model)}")
            if request.extra_body:
                record += f" --extra-body {q(json.dumps(request.extra_body))}"
            if options.key_env:
                record += f" --api-key-env {q(options.key_env)}"
            commands.append(record + f" --out {q(scenario.id + '.capture.json')}")
        commands.append(curl(result.gateway, fields, headers, options.key_env,
                             stream=streamed))
        if result.upstream:
            commands.append(curl(result.upstream, {"model": name}, stream=streamed)
                            + "   # what the upstream sent")
    if upstream_port is not None:
        commands.append("kill $!   # stop that replay server")
    return commands


def curl(base_url: str, fields: dict[str, Any], headers: dict[str, str] | None = None,
         key_env: str | None = None, *, stream: bool = True) -> str:
    """A curl command for one chat completion, streamed or not (the key as `$VAR`, and
    a header value from the environment as its `$VAR`, both expanded by the shell)."""
    q = shlex.quote
    command = (f"curl -sN {q(base_url.rstrip('/') + '/chat/completions')} "
               "-H 'Content-Type: application/json'")
    if key_env:
        command += f' -H "Authorization: Bearer ${key_env}"'
    for key, value in (headers or {}).items():
        if value.startswith("$"):
            command += f' -H "{key}: {value}"'
        else:
            command += f" -H {q(f'{key}: {value}')}"
    body = {"model": fields["model"], "messages": PROMPT, "stream": stream,
            **{k: v for k, v in fields.items() if k != "model"}}
    return command + f" -d {q(json.dumps(body))}"
