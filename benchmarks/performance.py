"""Performance of the reference scrubber and of the harness, as ratios from one run.

    python benchmarks/performance.py            # everything: about 20 minutes on 2 cores
    python benchmarks/performance.py --quick    # smaller sizes, fewer rounds: a few minutes
    python benchmarks/performance.py --peers none --only throughput,memory
    python benchmarks/performance.py --render   # the report again from the last run's figures

Measures, side by side in this process (implementations interleaved, the median
of several rounds, CPU time; these machines are noisy, so nothing here is a
wall-clock limit):

- throughput in characters per second over a realistic stream at delta sizes
  1, 4, 16 and 64 for the reference, a passthrough, the one-scan floor,
  hermes-agent's StreamingThinkScrubber (when importable) and every installed
  peer (through the protocol's `time` op);
- time against stream length, 1 KB to 8 MB, one- and 16-character deltas:
  every time(8n) / time(n), for the same implementations (peers as a finding);
- a full corpus run of the reference against the time spent inside it, and
  its speed-up on 2 workers;
- peak memory while scrubbing a 100 MB stream that is never held whole.

Prints the tables and writes reports/performance.md with
reports/performance-throughput.png and reports/performance-scaling.png
(matplotlib: `pip install -e '.[bench]'`).
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import os
import pickle
import platform
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from perf import harness, impls, memory, plots, report, scaling, streams, throughput  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
PARTS = ("throughput", "scaling", "harness", "memory")
KB, MB = 1 << 10, 1 << 20


def kept_path(out: Path) -> Path:
    """Where the last run's figures for `out` are kept (for --render), outside the repo."""
    from scrubcheck.hunt.database import cache_dir

    digest = hashlib.sha1(str(out.resolve()).encode()).hexdigest()[:12]
    return cache_dir() / f"performance-{digest}.pickle"


def settings_for(quick: bool) -> dict[str, object]:
    """Every size and budget, in one place (the report repeats them)."""
    if quick:
        return {"quick": True, "throughput_chars": 32 * KB, "rounds": 3, "peer_rounds": 1,
                "peer_budget": 2.0, "scaling_sizes": scaling.SIZES[:4], "scaling_rounds": 5,
                "cap": 1.0, "peer_cap": 0.5, "harness_every": 8, "harness_random": 2,
                "harness_long": False, "memory_main": 4 * MB, "memory_other": 512 * KB}
    return {"quick": False, "throughput_chars": 128 * KB, "rounds": 5, "peer_rounds": 1,
            "peer_budget": 10.0, "scaling_sizes": scaling.SIZES, "scaling_rounds": 5,
            "cap": 20.0, "peer_cap": 3.0, "harness_every": 1, "harness_random": 8,
            "harness_long": True, "memory_main": 100 * MB, "memory_other": 4 * MB}


def machine() -> dict[str, str]:
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:
        usable = os.cpu_count() or 1
    return {"cpus": str(os.cpu_count()), "usable": str(usable),
            "platform": platform.platform(terse=True), "python": platform.python_version(),
            "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
            "load_start": _load(), "load_end": "", "duration": ""}


def _load() -> str:
    try:
        return " / ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "unknown"


def say(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def run_throughput(results: report.Results, every: list[impls.Impl], s: dict) -> None:
    say("throughput ...")
    text = streams.realistic_stream(int(s["throughput_chars"]))
    results.throughput = throughput.measure(
        every, text, rounds=int(s["rounds"]), peer_rounds=int(s["peer_rounds"]),
        peer_budget=float(s["peer_budget"]), progress=say)


def run_scaling(results: report.Results, every: list[impls.Impl], s: dict) -> None:
    texts: dict[int, str] = {}
    for impl in every:
        if impl.name == "scan-floor":
            continue
        for shape in scaling.SHAPES:
            started = time.monotonic()
            cap = float(s["peer_cap"] if impl.is_peer else s["cap"])
            try:
                curve = scaling.measure(impl, shape, tuple(s["scaling_sizes"]),
                                        rounds=int(s["scaling_rounds"]), cap=cap, texts=texts,
                                        paired=not impl.is_peer)
            except Exception as exc:  # a broken peer is a note, not the end of the run
                impl.notes.append(f"scaling at {shape}: {type(exc).__name__}: {exc}")
                continue
            results.curves.append(curve)
            say(f"scaling {impl.name} {shape}-char: worst "
                f"{curve.worst if curve.worst is None else round(curve.worst, 2)} "
                f"({curve.verdict}) in {time.monotonic() - started:.0f} s")


def run_harness(results: report.Results, s: dict) -> None:
    from scrubcheck.corpus import load_corpus

    scenarios = load_corpus().scenarios
    if not s["harness_long"]:
        scenarios = [x for x in scenarios if "long" not in x.labels]
    scenarios = scenarios[:: int(s["harness_every"])]
    results.settings["harness_scope"] = (
        f"{len(scenarios)} scenarios, {s['harness_random']} random chunkings each"
        + ("" if s["harness_long"] else ", no `long` scenarios"))
    for jobs in (1, 2):
        say(f"harness, --jobs {jobs} ...")
        run = harness.measure(scenarios, jobs, random_count=int(s["harness_random"]))
        results.harness.append(run)
        say(f"  {run.wall_s:.1f} s wall, {run.scrubber_s:.1f} s in the scrubber "
            f"({run.ratio:.2f}x)")


def run_memory(results: report.Results, s: dict, hermes: impls.Impl | None) -> None:
    from scrubcheck.scrubbers.reference import ReferenceScrubber

    lean = functools.partial(ReferenceScrubber, record_cuts=False)
    plan = [("reference", lean, int(s["memory_main"]), 64),
            ("reference", lean, int(s["memory_other"]), 1),
            ("reference+cuts", ReferenceScrubber, int(s["memory_other"]), 64)]
    if hermes is not None:
        plan.append(("hermes", hermes.factory, int(s["memory_other"]) // 4, 64))
    for name, factory, length, size in plan:
        say(f"memory {name}, {length / MB:g} MB in {size}-char deltas ...")
        results.memory.append(memory.measure(name, factory, length, size))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, few rounds")
    parser.add_argument("--out", type=Path, default=ROOT / "reports", metavar="DIR",
                        help="where performance.md and the PNGs go (default: reports/)")
    parser.add_argument("--peers", default="all", metavar="all|none|NAMES",
                        help="installed peers to include (default: all installed)")
    parser.add_argument("--only", default=",".join(PARTS), metavar="PARTS",
                        help=f"comma-separated subset of {','.join(PARTS)}")
    parser.add_argument("--render", action="store_true",
                        help="measure nothing: write the report again from the last run's "
                             "figures (kept in ~/.cache/scrubcheck)")
    args = parser.parse_args(argv)
    parts = [p.strip() for p in args.only.split(",") if p.strip()]
    unknown = sorted(set(parts) - set(PARTS))
    if unknown:
        parser.error(f"unknown part(s): {', '.join(unknown)}")
    if args.render:
        with open(kept_path(args.out), "rb") as kept:
            results = pickle.load(kept)
        write(results, args.out)
        return 0
    started = time.monotonic()
    s = settings_for(args.quick)
    results = report.Results(machine(), dict(s))
    local = impls.in_process()
    peers, skipped = impls.installed_peers(args.peers)
    results.notes += [f"peer not measured: {n}" for n in skipped]
    every = local + peers
    results.labels = {i.name: i.label for i in every}
    hermes = next((i for i in local if i.name == "hermes"), None)
    if hermes is None:
        results.notes.append("hermes-agent is not importable here: no hermes comparison")
    try:
        if "throughput" in parts:
            run_throughput(results, every, s)
        if "scaling" in parts:
            run_scaling(results, every, s)
        if "harness" in parts:
            run_harness(results, s)
        if "memory" in parts:
            run_memory(results, s, hermes)
    finally:
        impls.close_all(peers)
    results.notes += [f"{i.name}: {n}" for i in every for n in i.notes]
    results.machine["load_end"] = _load()
    results.machine["duration"] = f"{(time.monotonic() - started) / 60:.1f} minutes"
    results.settings["order"] = [i.name for i in every]
    args.out.mkdir(parents=True, exist_ok=True)
    path = kept_path(args.out)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as kept:
        pickle.dump(results, kept)
    write(results, args.out)
    return 0


def write(results: report.Results, out: Path) -> None:
    """The PNGs, performance.md and the console tables."""
    out.mkdir(parents=True, exist_ok=True)
    figures = {}
    if results.throughput is not None:
        names = list(results.settings.get("order") or results.throughput.seconds)
        plots.throughput_png(results.throughput, out / "performance-throughput.png", names)
        figures["throughput"] = "performance-throughput.png"
    if results.curves:
        plots.scaling_png(results.curves, out / "performance-scaling.png")
        figures["scaling"] = "performance-scaling.png"
    path = out / "performance.md"
    path.write_text(report.markdown(results, figures), encoding="utf-8")
    print(report.console(results))
    print(f"\nreport: {path}")


if __name__ == "__main__":
    sys.exit(main())
