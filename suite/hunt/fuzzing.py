"""`fuzz`: coverage-guided fuzzing with atheris, findings shrunk into scenarios.

The run keeps a work directory per scrubber (default ~/.cache/scrubcheck/fuzz/):
`corpus/` (what libFuzzer found interesting, reused by the next run), `crashes/`
(every crashing input ever found) and `seeds/` (the shipped corpus encoded as
fuzzer input). First every saved crash is replayed, so known failures show at
once. Then `jobs` child processes fuzz in parallel; a child stops at its first
crash, the parent decodes the crash input, checks it in its sandbox child (so a
hang or crash there is a finding, not the end of the run), shrinks it,
adds its (property, rule) to the known list and starts the child again, so one
run reports every distinct failure it reaches in the time given.
"""

from __future__ import annotations

import math
import os
import random
import re
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from scrubcheck.adapters import Adapter
from scrubcheck.adapters.resolve import spec_slug
from scrubcheck.cachedir import cache_dir
from scrubcheck.checks.linear import LinearMeasurement
from scrubcheck.checks.names import Check
from scrubcheck.claims import claimed_class
from scrubcheck.generate import ListChooser
from scrubcheck.hunt.case import Case, build_case, search_key
from scrubcheck.hunt.finding import Finding
from scrubcheck.hunt.fuzzinput import dictionary, encode_soup
from scrubcheck.hunt.sandbox import Sandbox, load_scrubber
from scrubcheck.hunt.shrink import shrink_choices, shrink_deltas
from scrubcheck.hunt.target import FuzzTarget
from scrubcheck.hunt.violation import Violation
from scrubcheck.model import GENERIC, Context

ARTIFACT = re.compile(r"^(crash|timeout|oom|leak|slow-unit)-[0-9a-f]+$")
EXECUTED = re.compile(r"stat::number_of_executed_units:\s*(\d+)")
MAX_HARNESS_ERRORS = 3


def atheris_problem() -> str | None:
    """Why atheris cannot be used here, or None."""
    try:
        import atheris  # noqa: F401
    except ImportError as exc:
        return (f"atheris is not installed ({exc}); install it with `pip install atheris` "
                "(wheels exist for CPython 3.8-3.11 on Linux x86_64 and macOS)")
    return None


@dataclass
class FuzzSettings:
    seconds: float = 60.0
    jobs: int = 1
    seed: int | None = None
    work_dir: Path | None = None
    against: str | None = None
    timeout: float = 10.0  # wall-clock seconds one input may take (libFuzzer's -timeout,
    #                        rounded up to whole seconds; the parent's sandbox, exactly)
    memory_limit: int | None = None  # bytes: libFuzzer's -rss_limit_mb and the sandbox's
    max_len: int = 1024
    shrink_seconds: float = 5.0
    replay: bool = True
    stop: Callable[[Finding], bool] | None = None
    inputs: tuple[Path, ...] = ()  # only turn these inputs into findings, do not fuzz
    linear: bool = True  # measure R-ROBUST-2 (in the sandbox, once the fuzzing is done)
    #: the conformance class inputs are decoded within (SPEC section 12); None: the class
    #: the scrubber claims, else generic
    conformance_class: str | None = None
    formats: tuple[Path, ...] = ()  # --formats files, registered in the fuzzing processes too


@dataclass
class FuzzResult:
    spec: str
    findings: list[Finding] = field(default_factory=list)
    seconds: float = 0.0
    executions: int = 0
    runs: int = 0  # child processes started
    replayed: int = 0  # saved crash inputs replayed first
    work_dir: str = ""
    conformance_class: str = GENERIC  # the class the inputs were decoded within
    errors: list[str] = field(default_factory=list)
    linear: LinearMeasurement | None = None  # R-ROBUST-2, measured after the fuzzing


def work_directory(spec: str, against: str | None, override: Path | None,
                   conformance_class: str = GENERIC) -> Path:
    """Where a fuzz run keeps its corpus and crashes: one per scrubber, reference and class
    (an input decodes into another stream in another class)."""
    return override or cache_dir() / "fuzz" / spec_slug(
        search_key(spec, against, conformance_class))


def _corpus_streams() -> list[tuple[str, tuple[str, ...], Context]]:
    """(id, deltas, context) of the shipped corpus, read by the one corpus loader: its
    size bound and alias refusal hold here too, and the generated families seed the
    fuzzer as the hand-written scenarios do. A file the loader refuses gives no
    seeds (`scrubcheck lint` names it); the rest still do."""
    from scrubcheck.corpus import load_corpus

    return [(s.id, s.deltas, s.context) for s in load_corpus().scenarios]


def write_seeds(directory: Path, count: int = 96, structured: int = 32) -> None:
    """Seed inputs, written once: a spread of the shipped corpus as soup and random
    structured inputs. Kept small, because every fuzzing process runs them all first."""
    if directory.exists() and any(directory.iterdir()):
        return
    directory.mkdir(parents=True, exist_ok=True)
    streams = _corpus_streams()
    for name, deltas, context in streams[:: max(1, len(streams) // count)][:count]:
        (directory / name).write_bytes(encode_soup(deltas, context)[:1024])
    for index in range(structured):
        rng = random.Random(f"structured-seed-{index}")
        data = bytes([0]) + bytes(rng.randrange(256) for _ in range(96 + 8 * index))
        (directory / f"structured-{index:02d}").write_bytes(data)


class _Fuzz:
    def __init__(self, adapter: Adapter, against: Adapter | None, options: FuzzSettings,
                 on_finding: Callable[[Finding], None] | None, sandbox: Sandbox) -> None:
        self.adapter = adapter
        self.against = against
        self.options = options
        self.on_finding = on_finding or (lambda f: None)
        judged = claimed_class(adapter.claims, options.conformance_class)
        # decodes; the sandbox runs the checks
        self.target = FuzzTarget(adapter, against, conformance_class=judged)
        self.sandbox = sandbox
        self.result = FuzzResult(adapter.spec, conformance_class=judged)
        self.work = work_directory(adapter.spec, against.spec if against else None,
                                   options.work_dir, judged)
        self.result.work_dir = str(self.work)
        self.crashes = self.work / "crashes"
        self.start = time.monotonic()
        self.deadline = self.start + options.seconds
        self.stopped = False
        self.seen: set[str] = set()

    def elapsed(self) -> float:
        return time.monotonic() - self.start

    # -- findings ------------------------------------------------------------
    def known_changed(self) -> None:
        (self.work / "known.txt").write_text(
            "".join(f"{p} {r}\n" for p, r in sorted(self.target.known)), encoding="utf-8")

    def triage(self, path: Path) -> _Pending | None:
        """Decode one crash input; a failure not known yet becomes known at once (so the
        restarted jobs look for others) and waits to be shrunk."""
        self.seen.add(path.name)
        try:
            decoded = self.target.decode(path.read_bytes())
            violation = (self.check(decoded.case, self.target.known)
                         if decoded.case is not None else None)
        except Exception as exc:  # a crash of the harness itself, not a finding
            self.result.errors.append(f"{path.name}: {type(exc).__name__}: {exc}")
            return None
        if violation is None or decoded.case is None:
            return None
        self.target.known.add(violation.signature)
        self.known_changed()
        return _Pending(violation, decoded.case, decoded.choices, round(self.elapsed(), 2))

    def finish(self, pending: _Pending) -> None:
        try:
            case, violation = self.shrink(pending.case, pending.choices, pending.violation)
        except Exception as exc:
            self.result.errors.append(f"shrinking: {type(exc).__name__}: {exc}")
            case, violation = pending.case, pending.violation
        finding = Finding(violation, case, "fuzz", self.adapter.spec, pending.elapsed,
                          self.options.seed, self.against.spec if self.against else None,
                          confirmed=round(self.elapsed(), 2))
        self.result.findings.append(finding)
        self.on_finding(finding)
        if self.options.stop is not None and self.options.stop(finding):
            self.stopped = True

    def shrink(self, case: Case, choices: list[int] | None, violation: Violation
               ) -> tuple[Case, Violation]:
        if violation.check in ("timeout", Check.LINEAR):
            return case, violation  # every try would cost the whole time limit
        signature = violation.signature
        others = self.target.known - {signature}
        seconds = min(self.options.shrink_seconds,
                      max(1.0, self.deadline + 10 - time.monotonic()))
        best = [(case, violation)]  # the smallest failing case so far, and its violation

        def fails(candidate: Case | None) -> bool:
            if candidate is None:
                return False
            found = self.check(candidate, others)
            if found is None or found.signature != signature:
                return False
            best[0] = candidate, found
            return True

        if choices is not None:
            profile = self.target.profile
            shrink_choices(choices, lambda c: fails(build_case(ListChooser(c), profile,
                                                               soup=False)), seconds)
        else:
            shrink_deltas(case.deltas, lambda d: fails(_soup_case(case, d)), seconds)
        return best[0]

    def check(self, case: Case, known: set[tuple[str, str]]) -> Violation | None:
        return self.sandbox.check(case, known, self.options.timeout)

    # -- runs ------------------------------------------------------------------
    def replay(self) -> None:
        for path in sorted(self.crashes.iterdir()):
            if ARTIFACT.match(path.name) and not self.stopped:
                self.result.replayed += 1
                pending = self.triage(path)
                if pending is not None:
                    self.finish(pending)

    def command(self, job: int, seconds: int, known: Path) -> list[str]:
        seed = 0  # libFuzzer picks one
        if self.options.seed is not None:
            seed = 1 + (self.options.seed * 7919 + job * 104729 + self.result.runs) % 2**31
        args = [sys.executable, "-m", "scrubcheck.hunt.fuzzmain", "--scrubber",
                self.adapter.spec, "--known", str(known), "--collect", str(self.crashes)]
        if self.against is not None:
            args += ["--against", self.against.spec]
        args += ["--claim", self.result.conformance_class]
        for path in self.options.formats:
            args += ["--formats", str(path)]
        return args + [
            "--", str(self.work / "corpus"), str(self.work / "seeds"),
            f"-max_total_time={seconds}", f"-seed={seed}",
            f"-timeout={math.ceil(self.options.timeout)}",
            f"-max_len={self.options.max_len}", f"-dict={self.work / 'scrubcheck.dict'}",
            f"-artifact_prefix={self.crashes}/", "-print_final_stats=1",
            f"-rss_limit_mb={(self.options.memory_limit or 4 << 30) >> 20}",
        ]

    def run(self) -> FuzzResult:
        self.work.mkdir(parents=True, exist_ok=True)
        if self.options.inputs:
            for path in self.options.inputs:
                triaged = self.triage(Path(path))
                if triaged is not None:
                    self.finish(triaged)
            self.result.seconds = round(self.elapsed(), 2)
            return self.result
        for sub in ("corpus", "crashes"):
            (self.work / sub).mkdir(parents=True, exist_ok=True)
        write_seeds(self.work / "seeds")
        (self.work / "scrubcheck.dict").write_text("\n".join(dictionary()) + "\n")
        known = self.work / "known.txt"
        self.known_changed()
        if self.options.replay:
            self.replay()
        else:
            self.seen.update(p.name for p in self.crashes.iterdir())
        running: dict[int, tuple[subprocess.Popen, Path]] = {}
        pending: list[_Pending] = []
        while True:
            self.fill(running, known)
            if not running and not pending:
                break
            time.sleep(0.05)
            for job, (process, log) in list(running.items()):
                if process.poll() is not None:
                    del running[job]
                    self.collect(log, process.returncode)
            pending.extend(self.scan())
            self.fill(running, known)  # restart crashed jobs before the slow shrinking
            if pending:
                self.finish(pending.pop(0))
            if self.stopped or time.monotonic() > self.deadline + 15:
                for process, log in running.values():
                    process.kill()
                    process.wait()
                    self.collect(log, 0)
                running.clear()
                if self.stopped:
                    pending.clear()
        if self.options.linear and not self.stopped:
            self.measure_linearity()
        self.result.seconds = round(self.elapsed(), 2)
        return self.result

    def measure_linearity(self) -> None:
        """R-ROBUST-2 in the sandbox, after the fuzzing (so no job competes with it)."""
        self.result.linear, violation = self.sandbox.linear(self.options.timeout)
        if violation is not None:
            self.target.known.add(violation.signature)
            self.finish(_Pending(violation, Case(Context(), (), (), 0), None,
                                 round(self.elapsed(), 2)))

    def fill(self, running: dict[int, tuple[subprocess.Popen, Path]], known: Path) -> None:
        """Start every job that is not running while there is time left."""
        remaining = int(self.deadline - time.monotonic())
        if remaining < 1 or self.stopped or len(self.result.errors) >= MAX_HARNESS_ERRORS:
            return
        for job in range(max(1, self.options.jobs)):
            if job not in running:
                running[job] = self.spawn(job, remaining, known)

    def spawn(self, job: int, seconds: int, known: Path) -> tuple[subprocess.Popen, Path]:
        log = self.work / f"job-{job}.log"
        env = dict(os.environ, PYTHONHASHSEED="0")
        with log.open("wb") as out:
            process = subprocess.Popen(self.command(job, seconds, known), stdout=out,
                                       stderr=subprocess.STDOUT, env=env)
        self.result.runs += 1
        return process, log

    def collect(self, log: Path, returncode: int) -> None:
        """Count the job's executions; a job that failed without leaving a crash input
        (it could not start, say) is a harness problem, reported with its log's end."""
        try:
            text = log.read_text(encoding="utf-8", errors="replace")
        except OSError:
            text = ""
        self.result.executions += sum(int(n) for n in EXECUTED.findall(text))
        if returncode != 0 and "Test unit written to" not in text:
            tail = " | ".join(text.strip().splitlines()[-4:])
            self.result.errors.append(f"a fuzz job exited with {returncode} without a crash "
                                      f"input ({log}): {tail}")

    def scan(self) -> list[_Pending]:
        found = []
        for path in _artifacts_oldest_first(self.crashes):
            if path.name not in self.seen and not self.stopped:
                pending = self.triage(path)
                if pending is not None:
                    found.append(pending)
        return found


def _artifacts_oldest_first(folder: Path) -> list[Path]:
    """The finished crash inputs in `folder`, oldest first. The jobs write while we list:
    a target's `.crash-….part` file is renamed away between listing and stat, so only
    finished names are looked at, and one that vanishes in between is simply not there."""
    dated = []
    for path in folder.iterdir():
        if not ARTIFACT.match(path.name):
            continue
        try:
            dated.append((path.stat().st_mtime, path.name, path))
        except FileNotFoundError:
            continue
    return [path for _, _, path in sorted(dated)]


@dataclass
class _Pending:
    """A failure seen in a crash input, known already, not shrunk yet."""

    violation: Violation
    case: Case
    choices: list[int] | None
    elapsed: float


def _soup_case(case: Case, deltas: tuple[str, ...]) -> Case:
    text = "".join(deltas)
    return Case(case.context, deltas, tuple(text) or ("",), len(text) // 2)


def fuzz(spec: str | Adapter, options: FuzzSettings | None = None,
         on_finding: Callable[[Finding], None] | None = None) -> FuzzResult:
    """Fuzz `spec` for `options.seconds` seconds with `options.jobs` atheris processes."""
    options = options or FuzzSettings()
    adapter = spec if isinstance(spec, Adapter) else \
        load_scrubber(spec, options.timeout, options.memory_limit)
    against = load_scrubber(options.against, options.timeout, options.memory_limit) \
        if options.against else None
    with Sandbox(adapter, against, options.memory_limit) as sandbox:
        return _Fuzz(adapter, against, options, on_finding, sandbox).run()
