"""The gateway audit's records in the result cache, so that an audit requests only what changed.

Regenerating the committed gateway audits means 8,924 requests per gateway and
configuration; after one scenario is added, all but four of them would get the
answer they got last time. A (scenario, shape)'s record is decided by the
scenario (its digest), the shape, the gateway (its product, installed version and
configuration: the caller's `gateway` key), what each request asks and how long it
may take (the route, the read timeout, the request budget, whether the
non-streaming request is made), and the audit's own code (the harness digest with
GATEWAY_PARTS, which covers the replay server, the judging and the products'
manifests and config templates). So a record is kept in the row

    {"kind": "gateway-audit", "gateway": <caller's key>, "requests": {route, timeouts, ...}}

of a ResultCache(extra=GATEWAY_PARTS), under its scenario digest and then its shape
(a pair never depends on the other shapes, so the shapes chosen are no part of the
row). `jobs` is not in it (how many requests are in flight says how busy the machine
was, not what the gateway answers), nor `slow` (a record keeps each request's
duration; what counts as slow is judged from them at report time), nor the key or
the label.

A record is not kept (`not_kept` says why) when it is how the machine fared rather
than what the gateway answers, decided from the record alone:

- a request that failed with a timeout (no data within the read timeout, or over the
  wall-clock budget), could not connect, or whose connection broke mid-stream (`cut`:
  a reset under load looks the same as a gateway that cuts);
- an HTTP status that says the moment was wrong, not the request: 408, 425, 429,
  502, 503, 504 (busy, rate-limited, an upstream that did not answer in time), and
  401, 403, 407 (they depend on the key, which is no part of the row);
- an HTTP error or an error event whose message says it timed out, could not
  connect, was reset or refused, was overloaded or rate-limited (a gateway that wraps
  its upstream's timeout in an HTTP 500);
- a record that names an address of this run (the gateway's or the upstream's
  host:port, e.g. an error quoting the upstream's URL): another run's would differ.

Every other answer is the gateway's: a status or error event it gives for this
stream every time (LiteLLM's HTTP 500 for a lone surrogate, its error event for a
repeated chunk), a changed or merged stream, a pass-through. A record taken from the
cache gets the scenario as the corpus has it now (file, line, area), the reproduction
commands of this run (they name its gateway URL and upstream port) and this run's
gateway URL in its capture; its request durations are those measured when it ran.
Nothing of an interrupted audit, or of one that found nothing could run, is kept.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from scrubcheck.gateway.server import ReplayServer
from scrubcheck.gateway.upstream import Shape
from scrubcheck.model import Scenario
from scrubcheck.runner.cache import CachedRow, ResultCache, key_digest, scenario_digest

if TYPE_CHECKING:
    from scrubcheck.gateway.audit import AuditOptions, AuditResult, ScenarioAudit

#: CaptureError kinds that say how the machine or the network fared.
MACHINE_KINDS = frozenset({"timeout", "connection", "cut"})
#: HTTP statuses that say the moment (or this run's key) was wrong, not the request.
MACHINE_STATUSES = frozenset({401, 403, 407, 408, 425, 429, 502, 503, 504})
#: Words of an error message that say the same inside another status or an error event.
MACHINE_WORDS = re.compile(
    r"time[ds]?[ -]?out|deadline exceeded|connect(ion)?[ _-]?(error|refused|reset|aborted)"
    r"|cannot connect|could not connect|broken pipe|overloaded|rate[ _-]?limit"
    r"|temporarily unavailable|too many requests", re.IGNORECASE)


def audit_row_key(gateway: dict[str, Any], options: AuditOptions) -> dict[str, Any]:
    """The row of one gateway audited with `options` (see the module's docstring)."""
    return {"kind": "gateway-audit", "gateway": gateway,
            "requests": {"route": options.route.text, "timeout_s": options.timeout,
                         "request_timeout_s": options.budget,
                         "non_streaming": options.non_streaming}}


def run_addresses(*urls: str | None) -> tuple[str, ...]:
    """The host:port of each URL that names a port: what a record of this run may quote
    that another run's would not."""
    found = []
    for url in urls:
        if url:
            parts = urlsplit(url)
            if parts.port is not None:
                found.append(f"{parts.hostname}:{parts.port}")
    return tuple(found)


def not_kept(record: dict[str, Any], addresses: tuple[str, ...] = ()) -> str | None:
    """Why a ScenarioAudit record (`ScenarioAudit.to_record()`) must not be cached, or
    None when it is the gateway's answer (the rule is in the module's docstring)."""
    for one in record["passes"]:
        error = one["received"].get("error")
        if error is None:
            continue
        where = f"the {one['mode']} request"
        if error["kind"] in MACHINE_KINDS:
            return f"{where} failed with a {error['kind']} error"
        if error["kind"] == "http" and error.get("status") in MACHINE_STATUSES:
            return f"{where} got HTTP {error['status']}"
        if MACHINE_WORDS.search(error["message"]):
            return f"{where} failed with a message of the machine: {error['message'][:80]}"
    if addresses:
        text = json.dumps(_without_base_url(record), ensure_ascii=False)
        for address in addresses:
            if address in text:
                return f"it names {address}, an address of this run"
    return None


def _without_base_url(record: dict[str, Any]) -> dict[str, Any]:
    """The record without its captures' gateway URL, which a restored record gets anew."""
    passes = []
    for one in record["passes"]:
        capture = one.get("capture")
        if capture is not None:
            request = {k: v for k, v in capture.get("request", {}).items() if k != "base_url"}
            one = {**one, "capture": {**capture, "request": request}}
        passes.append(one)
    return {**record, "passes": passes}


class CachedAudit:
    """One audit's use of the cache: the row of its gateway and options, the pairs taken
    from it, and at the end the fresh records that may be trusted again."""

    def __init__(self, cache: ResultCache, key: dict[str, Any], scenarios: list[Scenario],
                 options: AuditOptions, upstream: ReplayServer, result: AuditResult) -> None:
        self.cache, self.key = cache, key
        self.scenarios, self.options, self.result = scenarios, options, result
        self.row = cache.row(key)
        self.digests = [scenario_digest(s) for s in scenarios]
        served = upstream.catalog.scenarios
        # a pair is the cache's only when the upstream plays the scenario audited
        self.cacheable = [s.id in served and scenario_digest(served[s.id]) == d
                          for s, d in zip(scenarios, self.digests, strict=True)]
        self.addresses = run_addresses(result.gateway, result.upstream)
        self.reused: set[tuple[int, Shape]] = set()

    @classmethod
    def open(cls, cache: ResultCache, cache_key: dict[str, Any] | None,
             scenarios: list[Scenario], options: AuditOptions,
             upstream: ReplayServer | str | None, result: AuditResult) -> CachedAudit:
        """ValueError without a key naming the gateway, or without the replay server as
        upstream (a user's own upstream may play another corpus than the one digested)."""
        if not cache_key:
            raise ValueError("a cached gateway audit needs cache_key: what the gateway is "
                             "(its product, installed version and configuration)")
        if not isinstance(upstream, ReplayServer):
            raise ValueError("a cached gateway audit needs the replay server it started as "
                             "upstream, not a URL (another upstream may play another corpus)")
        return cls(cache, audit_row_key(cache_key, options), scenarios, options, upstream,
                   result)

    def restored(self) -> dict[tuple[int, Shape], ScenarioAudit]:
        """Each cached pair as this run's audit: the scenario as the corpus has it now,
        this run's gateway URL in its captures and this run's reproduction commands. A
        record that cannot be read is requested again."""
        from scrubcheck.gateway.audit import ScenarioAudit, reproduction

        found: dict[tuple[int, Shape], ScenarioAudit] = {}
        for index, scenario in enumerate(self.scenarios):
            if not self.cacheable[index]:
                continue
            for shape in self.options.shapes:
                record = self.record(self.digests[index], shape.value)
                if record is None:
                    continue
                try:
                    audited = ScenarioAudit.from_record(record, scenario)
                except (KeyError, ValueError, TypeError, AttributeError):
                    continue
                if audited.shape is not shape:
                    continue
                for one in audited.passes:
                    if one.capture is not None:
                        one.capture.request["base_url"] = self.result.gateway
                audited.reproduce = [] if not audited.failed else reproduction(
                    self.result, self.options, scenario, shape,
                    [p.mode for p in audited.passes if p.failed], self.result.upstream_port)
                found[index, shape] = audited
        self.reused = set(found)
        return found

    def record(self, digest: str, shape: str) -> dict[str, Any] | None:
        shapes = self.row.results.get(digest)
        found = shapes.get(shape) if isinstance(shapes, dict) else None
        return found if isinstance(found, dict) else None

    def finish(self, done: dict[tuple[int, Shape], ScenarioAudit]) -> None:
        """Keep the fresh pairs that are the gateway's answer (none of an interrupted
        audit or one where nothing could run), and say in the result's settings what was
        reused and requested. The new records are added to the row as it is on disk now:
        another audit of the same row (a shard) may have saved records meanwhile."""
        result = self.result
        fresh = [key for key in done if key not in self.reused]
        reused = len(self.reused) if result.results else 0
        kept: dict[tuple[str, str], dict[str, Any]] = {}
        if not result.interrupted and result.problem is None:
            for index, shape in fresh:
                if not self.cacheable[index]:
                    continue
                record = {**done[index, shape].to_record(), "reproduce": []}  # this run's
                if not_kept(record, self.addresses) is None:
                    kept[self.digests[index], shape.value] = record
        if kept:
            current: CachedRow = self.cache.row(self.key)
            for (digest, shape_name), record in kept.items():
                shapes = current.results.get(digest)
                current.results[digest] = {**(shapes if isinstance(shapes, dict) else {}),
                                           shape_name: record}
            self.cache.save(current)
        self.cache.reused += reused
        self.cache.ran += len(fresh)
        result.settings["cache"] = {"harness": self.cache.harness,
                                    "row": key_digest(self.key), "reused": reused,
                                    "ran": len(fresh), "kept": len(kept),
                                    "not_kept": len(fresh) - len(kept)}
