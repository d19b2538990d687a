"""Judge a peer natively in its own language: the vectors, run by js/scrubcheck-vectors.

The peer protocol sends one JSON line per delta to the peer's program and reads one
back; for the AI SDK's middleware that round trip, not the middleware, is most of a
row's time. A peer whose manifest has a `[native]` table can instead be judged by the
JavaScript vector runner in Node, over the vectors `scrubcheck export` writes for the
same scenarios, chunkings and class (the data-only checks of `vectors.checks`), with
the package from the peer's own environment.

What the harness gives a protocol row is kept where it can be:
- per-scenario wall clock and crash isolation: the runner streams one result line per
  scenario (`--jsonl`); a silence of `timeout_s` or a dead process costs the scenario
  it was on (TIMEOUT or ERROR, naming it) and the runner starts again after it;
- R-ROBUST-2 (linear time) and any scenario JSON cannot carry exactly (lone surrogate
  halves) run over the peer protocol as before, in one small run;
- the run's settings say `native` and which checks the runner did not run
  (`vector_checks`), so a page shows the row as judged natively.

Where Node, the runner or the peer's environment is missing, `run_row` runs the row over
the protocol and says why (`native_unavailable`), never silently.
"""

from __future__ import annotations

import json
import os
import queue
import shutil
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import IO, Any

from scrubcheck import __version__
from scrubcheck.adapters import AdapterError
from scrubcheck.childprocess import die_with_parent, exit_text
from scrubcheck.corpus.fingerprint import corpus_digest
from scrubcheck.corpus.shard import Shard
from scrubcheck.model import Scenario
from scrubcheck.peers import Manifest, find_manifest, installed_version, read_marker
from scrubcheck.peers.envs import env_dir
from scrubcheck.peers.manifest import ManifestError
from scrubcheck.results import Outcome, RunResult, ScenarioResult, result_from_dict
from scrubcheck.runner import RunSettings
from scrubcheck.runner.harness import files_digest, implementation_digest
from scrubcheck.runner.merge import merge_shards
from scrubcheck.runner.replay import replay_command
from scrubcheck.runner.shard import run_selection
from scrubcheck.vectors.vector_set import build_vector_set, write_vector_set

#: js/scrubcheck-vectors beside the package in a checkout (an editable install)
RUNNER = Path(__file__).resolve().parents[2] / "js" / "scrubcheck-vectors"
SPEC_PREFIX = "peer:"


def _node() -> str | None:
    return shutil.which("node")


def native_manifest(spec: str) -> tuple[Manifest | None, str]:
    """The manifest of a peer the matrix may judge natively, or None and why not ('' for
    a spec that is no peer with a [native] table: nothing to say)."""
    if not spec.startswith(SPEC_PREFIX):
        return None, ""
    try:
        manifest = find_manifest(spec.removeprefix(SPEC_PREFIX))
    except ManifestError:
        return None, ""
    if manifest.native is None:
        return None, ""
    if read_marker(manifest.package) is None:
        return None, f"peer {manifest.name} is not installed"
    if _node() is None:
        return None, "node is not on PATH"
    if not (RUNNER / "src" / "cli.mjs").is_file():
        return None, f"the vector runner is not at {RUNNER} (a checkout has it)"
    return manifest, ""


def native_implementation(spec: str) -> str | None:
    """What the result cache keys a row on: the peer (implementation_digest) and, when it
    is judged natively, how and by which runner code, so a native result never stands
    for a protocol one nor survives an edit of the runner."""
    base = implementation_digest(spec)
    manifest, _ = native_manifest(spec)
    if base is None or manifest is None or manifest.native is None:
        return base
    # the runner's code and this module's (which decides timeouts and restarts)
    runner = files_digest([*(RUNNER / "src").rglob("*.mjs"), Path(__file__)],
                          Path(__file__).resolve().parents[2])
    return f"{base}; native {manifest.native.describe()} {runner}"


def run_row(spec: str, scenarios: list[Scenario], settings: RunSettings, *,
            shard: Shard | None = None, progress: bool = False,
            say: Callable[[str], None] = lambda _: None,
            corpus_errors: list[str] | None = None) -> RunResult:
    """A matrix row's run: natively where its manifest offers it and this machine can,
    else `run_selection` over the protocol (saying why when native was offered)."""
    manifest, why_not = native_manifest(spec)
    if manifest is None:
        if why_not:
            say(f"    {spec}: judged over the peer protocol, not natively: {why_not}")
        return run_selection(spec, scenarios, settings, shard=shard, progress=progress,
                             corpus_errors=corpus_errors)
    return run_natively(manifest, scenarios, settings, shard=shard, say=say)


def run_natively(manifest: Manifest, scenarios: list[Scenario], settings: RunSettings, *,
                 shard: Shard | None = None,
                 say: Callable[[str], None] = lambda _: None) -> RunResult:
    """`run_selection(peer:NAME, ...)`'s run, judged by the vector runner in Node."""
    assert manifest.native is not None
    started = time.monotonic()
    chosen = shard.pick(scenarios) if shard is not None else list(scenarios)
    if shard is not None:
        settings = replace(settings, shard=str(shard))
    spec = SPEC_PREFIX + manifest.name
    judged_class = settings.conformance_class or "generic"
    vector_set = build_vector_set(chosen, seed=settings.seed, random_count=settings.random_count,
                                  caps=settings.caps, conformance_class=judged_class)
    left_out = {i for i, _ in vector_set.left_out}
    with tempfile.TemporaryDirectory(prefix="scrubcheck-native-") as tmp:
        folder = Path(tmp)
        write_vector_set(vector_set, folder / "vectors")
        # the runner's order: the vectors as the set holds them (the chosen scenarios
        # but those beyond the class and those left out), then the scenarios beyond it
        beyond = [b["id"] for b in vector_set.beyond]
        apart = left_out | set(beyond)
        ids = [s.id for s in chosen if s.id not in apart] + beyond
        assert len(ids) == len(vector_set.lines) + len(beyond)
        native, header = judge_vectors(_driver(manifest), folder / "vectors", ids, settings)
    # what JSON cannot carry, and the once-per-run linear-time check: over the protocol
    protocol = None
    rest = [s for s in chosen if s.id in left_out]
    if rest or settings.runs_linear_check:
        protocol = run_selection(spec, rest, replace(settings, shard=None), progress=False)
    by_id = {**native, **({r.scenario_id: r for r in protocol.results} if protocol else {})}
    replay = partial(replay_command, scrubber=spec, seed=settings.seed,
                     corpus_paths=settings.corpus_paths, conformance_class=judged_class)
    results = [_placed(by_id[s.id], s, replay) for s in chosen if s.id in by_id]
    run = RunResult(
        scrubber=spec, scrubber_kind=manifest.adapter_kind.value,
        supported_features=sorted(header.get("supported_features", [])),
        accepted_context=sorted(header.get("accepted_context", manifest.context)),
        spec_version=vector_set.manifest["spec_version"],
        scrubcheck_version=__version__,
        started_at=header.get("started_at", ""),
        duration_s=round(time.monotonic() - started, 3),
        settings={**settings.to_dict(), "conformance_class": judged_class,
                  "corpus_digest": corpus_digest(scenarios),
                  "implementation_version": f"{manifest.package.name} "
                                            f"{installed_version(manifest.package)}",
                  "selection": {"scenarios": len(scenarios),
                                "positions": shard.positions(scenarios) if shard else None},
                  "native": {"runner": manifest.native.runner, "via": manifest.native.via,
                             "scenarios": len(native),
                             "over_protocol": sorted(s.id for s in rest)},
                  "vector_checks": _checks(header, protocol is not None
                                           and settings.runs_linear_check)},
        results=results,
        scrubber_checks=protocol.scrubber_checks if protocol else [],
    )
    say(f"    {manifest.name}: judged natively ({manifest.native.describe()}), "
        f"{len(native)} scenarios in Node, {len(rest)} over the protocol")
    return run


def merge_runs(shards: Sequence[tuple[str, RunResult]]) -> RunResult:
    """`merge_shards`, for shards judged natively too (`matrix --shard`, the Dask matrix).

    A native shard's record of how it was judged counts its own share: the scenarios it
    judged in Node, those it ran over the protocol, and the linear-time check that only
    shard 1 runs. `merge_shards` rightly refuses shards whose settings differ, so each
    shard is first given the whole run's record (the sums and unions); a mix of native
    and protocol shards is left for `merge_shards` to refuse.
    """
    runs = [run for _, run in shards]
    natives: list[dict[str, Any]] = [n for run in runs
                                     if isinstance(n := run.settings.get("native"), dict)]
    if runs and len(natives) == len(runs):
        whole = {**natives[0],
                 "scenarios": sum(int(n.get("scenarios", 0)) for n in natives),
                 "over_protocol": sorted({i for n in natives for i in n.get("over_protocol", [])})}
        checks = [run.settings.get("vector_checks") or {} for run in runs]
        ran = list(dict.fromkeys(c for part in checks for c in part.get("ran", [])))
        not_run = [c for c in dict.fromkeys(c for part in checks for c in part.get("not_run", []))
                   if c not in ran]
        shards = [(label, replace(run, settings={
                      **run.settings, "native": whole,
                      "vector_checks": {**part, "ran": ran, "not_run": not_run}}))
                  for (label, run), part in zip(shards, checks, strict=True)]
    return merge_shards(shards)


#: what the runner cannot judge that this module gives it: a per-scenario wall clock and
#: a crash costing one scenario (`_judge_part`)
GIVEN_HERE = ("timeout", "isolation")


def _checks(header: dict[str, Any], linear_ran: bool) -> dict[str, Any]:
    """The runner's vector_checks, with what this harness added moved to `ran`."""
    checks = dict(header.get("settings", {}).get("vector_checks", {}))
    given = [*GIVEN_HERE, *(["linear"] if linear_ran else [])]
    checks["not_run"] = [c for c in checks.get("not_run", []) if c not in given]
    checks["ran"] = [*checks.get("ran", []), *given]
    return checks


def _placed(result: ScenarioResult, scenario: Scenario,
            replay: Callable[..., str]) -> ScenarioResult:
    """A result with its scenario's place in the corpus (the runner has the vector's) and
    each failure's replay command as a protocol row's says it: the runner cannot name the
    scrubber (`scrubcheck show ID --chunking C`), the harness can (`--scrubber peer:NAME`,
    the seed, the class), so the command reproduces the failure as written."""
    result.area, result.file, result.line = scenario.area, scenario.file, scenario.line
    result.description = scenario.description
    result.rules = result.rules or list(scenario.rules)
    result.failures = [f.amended(replay=replay(scenario.id, chunking=f.chunking))
                       if f.chunking else f for f in result.failures]
    return result


def _driver(manifest: Manifest) -> list[str]:
    """The runner's arguments that say what it judges: the peer environment's AI SDK."""
    assert manifest.native is not None
    return ["--ai-sdk", str(env_dir(manifest.package)), "--via", manifest.native.via,
            "--version", installed_version(manifest.package)]


def judge_vectors(driver: list[str], vectors: Path, ids: list[str], settings: RunSettings
                  ) -> tuple[dict[str, ScenarioResult], dict[str, Any]]:
    """Every id of the vector set at `vectors` judged by the runner (`driver`: its
    arguments after the vector folder, e.g. a module to judge), `settings.workers`
    runners at once, each over its part; and the report header of one of them.
    NotStarted (an AdapterError) when a runner could not load the scrubber."""
    parts = [ids[k::settings.workers] for k in range(settings.workers)]
    found: dict[str, ScenarioResult] = {}
    headers: list[dict[str, Any]] = []
    work = Path(tempfile.mkdtemp(prefix="scrubcheck-ids-"))
    failed: list[NotStarted] = []

    def judge(part: list[str]) -> None:
        try:
            _judge_part(driver, vectors, work, part, settings.timeout_s, found, headers)
        except NotStarted as exc:
            failed.append(exc)

    threads = [threading.Thread(target=judge, args=(part,)) for part in parts if part]
    for thread in threads:
        thread.start()
    try:
        for thread in threads:
            thread.join()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if failed:
        raise failed[0]
    return found, (headers[0] if headers else {})


def _judge_part(driver: list[str], vectors: Path, work: Path, ids: list[str],
                timeout_s: float, found: dict[str, ScenarioResult],
                headers: list[dict[str, Any]]) -> None:
    """Judge `ids` in order; after a hang or a crash, the scenario it was on gets its
    TIMEOUT or ERROR and a new runner takes the rest."""
    left = list(ids)
    attempt = 0
    while left:
        attempt += 1
        ids_file = work / f"ids-{threading.get_ident()}-{attempt}.txt"
        ids_file.write_text("".join(i + "\n" for i in left), encoding="utf-8")
        done, header, problem = _one_runner([*driver, "--ids-file", str(ids_file)], vectors,
                                            timeout_s)
        for result in done:
            found[result.scenario_id] = result
        if header:
            headers.append(header)
        finished = {r.scenario_id for r in done}
        left = [i for i in left if i not in finished]
        if problem is None:
            if left:  # the runner said it had finished and did not judge these
                for scenario_id in left:
                    found[scenario_id] = _lost(scenario_id, Outcome.ERROR,
                                               "the vector runner ended without judging it")
            return
        if not left:  # it judged every scenario, then failed to say it had finished
            return
        outcome, why = problem
        found[left[0]] = _lost(left[0], outcome, why)
        left = left[1:]


def _lost(scenario_id: str, outcome: Outcome, why: str) -> ScenarioResult:
    return ScenarioResult(scenario_id=scenario_id, area="", file="", line=0, description="",
                          rules=[], outcome=outcome, reason=why)


class NotStarted(AdapterError):
    """The vector runner stopped before it had loaded the scrubber: every scenario would
    fail the same way, so the row fails to start (as a peer program that cannot start
    does) instead of restarting the runner once per scenario."""


def _one_runner(arguments: list[str], vectors: Path, timeout_s: float
                ) -> tuple[list[ScenarioResult], dict[str, Any], tuple[Outcome, str] | None]:
    """One runner: what it judged, its report header, and (outcome, why) when it hung
    or died before the end."""
    command = [_node() or "node", str(RUNNER / "src" / "cli.mjs"), str(vectors), *arguments,
               "--jsonl"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               stdin=subprocess.DEVNULL, text=True, encoding="utf-8",
                               errors="surrogateescape", preexec_fn=die_with_parent,
                               start_new_session=True, cwd=RUNNER)
    lines: queue.Queue[str | None] = queue.Queue()
    stderr: list[str] = []
    readers = [threading.Thread(target=_pump, args=(process.stdout, lines.put, True),
                                daemon=True),
               threading.Thread(target=_pump, args=(process.stderr, stderr.append, False),
                                daemon=True)]
    for reader in readers:
        reader.start()
    done: list[ScenarioResult] = []
    header: dict[str, Any] = {}
    ready = False
    try:
        while True:
            try:
                line = lines.get(timeout=timeout_s)
            except queue.Empty:
                if not ready:
                    raise NotStarted(f"the vector runner did not load the scrubber within "
                                     f"{timeout_s:g} s (killed)") from None
                return done, header, (Outcome.TIMEOUT, f"no result from the vector runner "
                                                       f"in {timeout_s:g} s (killed)")
            if line is None:
                break
            try:
                message = json.loads(line)
                if "ready" in message:
                    ready = True
                elif "result" in message:
                    done.append(result_from_dict(message["result"]))
                elif "report" in message:
                    header = message["report"]
            except (ValueError, TypeError, KeyError) as exc:
                return done, header, (Outcome.ERROR, f"the vector runner wrote a line that "
                                                     f"is not a result ({exc}): {line[:200]!r}")
    finally:
        _stop(process)
    code = process.wait()
    readers[1].join(timeout=5)
    if header and code in (0, 1):
        return done, header, None
    tail = "".join(stderr)[-600:].strip()
    why = f"the vector runner stopped ({exit_text(code)})" + (f": {tail}" if tail else "")
    if not ready:
        raise NotStarted(why)
    return done, header, (Outcome.ERROR, why)


def _pump(stream: IO[str] | None, put: Callable[[Any], None], mark_end: bool) -> None:
    """Hand each line of a child's pipe to `put`, and None at its end with `mark_end`."""
    for line in stream or ():
        put(line)
    if mark_end:
        put(None)


def _stop(process: subprocess.Popen) -> None:
    if process.poll() is None:
        try:
            os.killpg(process.pid, 9)
        except ProcessLookupError:
            pass
    process.wait()
