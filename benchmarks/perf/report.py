"""The figures as tables: on the console and in reports/performance.md."""

from __future__ import annotations

from dataclasses import dataclass, field

from tabulate import tabulate

from .harness import HarnessRun
from .memory import MemoryRun
from .scaling import LIMIT, PAIRS, SHAPES, Curve, _label
from .throughput import Throughput

MAIN = ("reference", "passthrough", "scan-floor", "hermes")
#: "a few KB": what the scrubber may hold beyond the delta and the hold-back. 8 KB since
#: SPEC 1.5.0: the reference's block tracker (R-CODE-2) reads each line's block structure
#: with a handful of small objects, and CPython keeps freed tuples and lists on its free
#: lists, which tracemalloc still counts (about 5.6 KB at the peak, the same at 64 KB and
#: at 512 KB); that the memory does not grow with the stream is asserted on its own
FEW_KB = 8192


@dataclass
class Results:
    machine: dict[str, str]
    settings: dict[str, object]
    throughput: Throughput | None = None
    curves: list[Curve] = field(default_factory=list)
    harness: list[HarnessRun] = field(default_factory=list)
    memory: list[MemoryRun] = field(default_factory=list)
    labels: dict[str, str] = field(default_factory=dict)  # implementation -> what it is
    notes: list[str] = field(default_factory=list)


@dataclass
class Target:
    what: str
    goal: str
    measured: str
    met: bool | None  # None: reported, no pass/fail

    @property
    def verdict(self) -> str:
        return {True: "met", False: "NOT met", None: "reported"}[self.met]


def _x(value: float | None, digits: int = 1) -> str:
    return "—" if value is None else f"{value:.{digits}f}x"


def _rate(value: float | None) -> str:
    if value is None:
        return "—"
    return f"{value / 1e6:.2f} M" if value >= 1e5 else f"{value / 1e3:.1f} k"


def _curve(results: Results, impl: str, shape: int) -> Curve | None:
    return next((c for c in results.curves if c.impl == impl and c.shape == shape), None)


def targets(results: Results) -> list[Target]:
    rows: list[Target] = []
    tp = results.throughput
    if tp is not None:
        for size, goal in ((1, 5.0), (16, 3.0)):
            ratio = tp.ratio("reference", "hermes", size)
            if "hermes" in tp.seconds:
                rows.append(Target(f"reference vs hermes StreamingThinkScrubber, {size}-char "
                                   "deltas", f">= {goal:g}x faster", _x(ratio),
                                   ratio is not None and ratio >= goal))
        for size in tp.sizes:
            ratio = tp.ratio("passthrough", "reference", size)
            checked = size in (16, 64)
            rows.append(Target(f"passthrough vs reference, {size}-char deltas",
                               "<= 10x slower" if checked else "(reported)", _x(ratio),
                               (ratio is not None and ratio <= 10.0) if checked else None))
    for shape in SHAPES:
        curve = _curve(results, "reference", shape)
        if curve is not None and curve.seconds:
            worst = curve.worst
            top = _label(max(curve.seconds))
            rows.append(Target(f"reference scaling, {shape}-char deltas, 1 KB to {top}",
                               f"each 8x length <= {LIMIT:g}x time",
                               f"worst {_x(worst, 2)}" + (f" ({curve.stopped})"
                                                          if curve.stopped else ""),
                               worst is not None and worst <= LIMIT and not curve.stopped))
    one = next((h for h in results.harness if h.jobs == 1), None)
    two = next((h for h in results.harness if h.jobs == 2), None)
    if one is not None:
        rows.append(Target("harness: full run / time inside the scrubber (--jobs 1)",
                           "<= 3x", _x(one.ratio, 2), one.ratio <= 3.0))
    if one is not None and two is not None:
        rows.append(Target("--jobs 2 speed-up (wall time, 2 cores)", "scales (> 1x)",
                           _x(one.wall_s / two.wall_s, 2), one.wall_s / two.wall_s > 1.0))
    for run in results.memory:
        if run.name == "reference" and run is _main_memory(results):
            mb = run.length / (1 << 20)
            rows.append(Target(f"memory, {mb:g} MB stream, {run.size}-char deltas",
                               f"<= {FEW_KB // 1024} KB beyond delta and hold-back",
                               f"{run.excess_bytes:,} bytes", run.excess_bytes <= FEW_KB))
    return rows


def _main_memory(results: Results) -> MemoryRun | None:
    runs = [r for r in results.memory if r.name == "reference"]
    return max(runs, key=lambda r: r.length) if runs else None


def target_table(results: Results, fmt: str) -> str:
    return tabulate([(t.what, t.goal, t.measured, t.verdict) for t in targets(results)],
                    headers=("target", "goal", "measured", "verdict"), tablefmt=fmt)


def throughput_table(results: Results, fmt: str) -> str:
    tp = results.throughput
    if tp is None:
        return ""
    names = [n for n in MAIN if n in tp.seconds] + sorted(n for n in tp.seconds if n not in MAIN)
    names += sorted(n for n in tp.abandoned if n not in names)
    rows = []
    for name in names:
        row = [name]
        for size in tp.sizes:
            rate = tp.rate(name, size)
            mark = "<" if size in tp.abandoned.get(name, {}) else ""
            row.append(mark + _rate(rate))
        ref = [tp.ratio("reference", name, s) for s in tp.sizes]
        row.append(" / ".join("—" if r is None else f"{r:.2g}" for r in ref))
        rows.append(row)
    headers = ["implementation", *[f"{s}-char (chars/s)" for s in tp.sizes],
               "reference is N times faster (" + "/".join(map(str, tp.sizes)) + ")"]
    return tabulate(rows, headers=headers, tablefmt=fmt, disable_numparse=True)


def scaling_table(results: Results, fmt: str, impls: list[str]) -> str:
    rows = []
    for impl in impls:
        for shape in SHAPES:
            curve = _curve(results, impl, shape)
            if curve is None:
                continue
            ratios = curve.ratios()
            rows.append([impl, shape, *[_x(ratios.get(p), 2) for p in PAIRS],
                         _label(max(curve.seconds)) if curve.seconds else "—",
                         curve.verdict, curve.stopped or ""])
    headers = ["implementation", "delta", *[f"{_label(a)}→{_label(b)}" for a, b in PAIRS],
               "largest", "verdict", "stopped"]
    return tabulate(rows, headers=headers, tablefmt=fmt, disable_numparse=True)


def seconds_table(results: Results, fmt: str, impls: list[str]) -> str:
    sizes = sorted({n for c in results.curves for n in c.seconds})
    rows = []
    for impl in impls:
        for shape in SHAPES:
            curve = _curve(results, impl, shape)
            if curve is not None:
                rows.append([impl, shape, *[f"{curve.seconds[n]:.4g}" if n in curve.seconds
                                            else "—" for n in sizes]])
    return tabulate(rows, headers=["implementation", "delta", *map(_label, sizes)],
                    tablefmt=fmt, disable_numparse=True)


def harness_table(results: Results, fmt: str) -> str:
    one = next((h for h in results.harness if h.jobs == 1), None)
    rows = [(h.jobs, h.scenarios, f"{h.chunkings:,}", f"{h.checks:,}", h.passed,
             f"{h.wall_s:.1f}", f"{h.cpu_s:.1f}", f"{h.scrubber_s:.1f}",
             _x(h.ratio, 2) if h.jobs == 1 else "— (summed over workers)",
             _x(one.wall_s / h.wall_s, 2) if one is not None else "—")
            for h in results.harness]
    return tabulate(rows, headers=("jobs", "scenarios", "chunkings", "checks", "PASS",
                                   "wall s", "CPU s", "in scrubber s", "wall / scrubber",
                                   "speed-up"),
                    tablefmt=fmt, disable_numparse=True)


def memory_table(results: Results, fmt: str) -> str:
    rows = [(r.name, f"{r.length / (1 << 20):g} MB", r.size, f"{r.peak_bytes:,}",
             f"{r.baseline_bytes:,}", f"{r.holdback_chars} ({r.holdback_bytes} B)",
             f"{r.excess_bytes:,}") for r in results.memory]
    return tabulate(rows, headers=("implementation", "stream", "delta", "peak B",
                                   "passthrough peak B", "max hold-back chars",
                                   "beyond delta + hold-back B"),
                    tablefmt=fmt, disable_numparse=True)


def peers_in(results: Results) -> list[str]:
    return sorted({c.impl for c in results.curves} - set(MAIN))


def console(results: Results) -> str:
    parts = ["TARGETS", target_table(results, "simple")]
    if results.throughput is not None:
        parts += ["", "THROUGHPUT", throughput_table(results, "simple")]
    if results.curves:
        main = [n for n in MAIN if any(c.impl == n for c in results.curves)]
        parts += ["", "SCALING (time(8n) / time(n))",
                  scaling_table(results, "simple", main + peers_in(results))]
    if results.harness:
        parts += ["", "HARNESS", harness_table(results, "simple")]
    if results.memory:
        parts += ["", "MEMORY", memory_table(results, "simple")]
    return "\n".join(parts)


def limit_notes(results: Results) -> list[str]:
    """What the figures say about the targets that are not met (computed, not canned)."""
    notes = []
    tp = results.throughput
    if tp is not None and "scan-floor" in tp.seconds:
        for size in (16, 64):
            ratio = tp.ratio("passthrough", "reference", size)
            floor = tp.ratio("passthrough", "scan-floor", size)
            if ratio is not None and ratio > 10 and floor is not None:
                ref_us = size / (tp.rate("reference", size) or 1) * 1e6
                pass_ns = size / (tp.rate("passthrough", size) or 1) * 1e9
                notes.append(
                    f"passthrough at {size}-character deltas: the reference is {ratio:.0f}x "
                    f"slower than a passthrough ({ref_us:.1f} µs per delta against "
                    f"{pass_ns:.0f} ns, which is one Python call), and the scan floor (three "
                    f"`in` tests per delta and nothing else) is already {floor:.1f}x slower. "
                    f"In this stream {tp.special_share.get(size, 0):.0%} of the "
                    f"{size}-character deltas hold a line feed, a backtick or a `<`; those go "
                    "through the reference's interpreted state machine (a regex call and a "
                    "few method calls for each such character), the rest take its fast path. "
                    "The 10x goal is out of reach for a scrubber in pure CPython: it would "
                    "need a compiled scanner.")
    for run in results.memory:
        if run.name == "reference+cuts":
            notes.append(
                f"memory with the default `record_cuts=True`: the scrubber keeps one integer per "
                f"removed piece for `last_cuts` (the removal points the harness and the gateway "
                f"use for R-WS-1), {run.excess_bytes:,} bytes beyond delta and hold-back on a "
                f"{run.length / (1 << 20):g} MB stream; a long-lived stream in a product passes "
                "`record_cuts=False` and stays flat (the target row).")
    return notes


def markdown(results: Results, figures: dict[str, str]) -> str:
    m = results.machine
    lines = [
        "# Performance",
        "",
        "Generated by `python benchmarks/performance.py"
        + (" --quick" if results.settings.get("quick") else "") + "`; every ratio is taken "
        "side by side in this one run (implementations interleaved, the median of the rounds), "
        "never a wall-clock limit.",
        "",
        f"Machine: {m['cpus']} CPUs ({m['usable']} usable), {m['platform']}, "
        f"Python {m['python']}; {m['date']}; load average at start {m['load_start']}, "
        f"at end {m['load_end']}; {m['duration']} in all.",
        "",
        "Reproduce: `pip install -e '.[bench]'` (and `scrubcheck peers install` for the peers), "
        "then `python benchmarks/performance.py` (about 20 minutes on 2 cores; `--quick` "
        "in a few minutes; `--peers none|all|NAME,...`).",
        "",
        "## Targets",
        "",
        target_table(results, "github"),
        "",
    ]
    notes = limit_notes(results) + results.notes
    if notes:
        lines += ["Notes on the limits found:", ""] + [f"- {n}" for n in notes] + [""]
    tp = results.throughput
    if tp is not None:
        lines += [
            "## Throughput",
            "",
            f"A {tp.length // 1024} KB realistic stream (`benchmarks/perf/streams.py`: sections "
            "of prose with inline code, a fenced block quoting a tag, a reasoning block first "
            "and one mid-paragraph, markup, and an unclosed block at the end), cut into "
            "deltas of each size. CPU time, median of "
            f"{tp.rounds} interleaved rounds; in-process implementations get ready-made "
            "deltas; peers time themselves with the protocol's `time` op (slicing included, "
            "another interpreter or node), so compare them with each other, not to the "
            "digit with the in-process rows. `<` marks a peer run abandoned at its budget: "
            "the rate shown is the most it can be.",
            "",
            throughput_table(results, "github"),
            "",
        ]
        if "throughput" in figures:
            lines += [f"![throughput against delta size]({figures['throughput']})", ""]
    if results.curves:
        main = [n for n in MAIN if any(c.impl == n for c in results.curves)]
        peers = peers_in(results)
        lines += [
            "## Scaling",
            "",
            "time(8n) / time(n) for the same realistic stream at each length (every length "
            "has the same mix: whole sections plus an unclosed block of one eighth). Target: at "
            f"most {LIMIT:g}x. Linear: every ratio within the target; superlinear: above it "
            "but under 20x; quadratic: 20x or more, or a step abandoned at 2.5x its linear "
            "prediction.",
            "",
            scaling_table(results, "github", main),
            "",
            "Seconds (CPU) per stream:",
            "",
            seconds_table(results, "github", main),
            "",
        ]
        if peers:
            quadratic = sorted({c.impl for c in results.curves
                                if c.impl in peers and c.verdict == "quadratic"})
            lines += [
                "### Peers (a finding, not a target)",
                "",
                "Quadratic: " + (", ".join(quadratic) if quadratic else "none") + ".",
                "",
                scaling_table(results, "github", peers),
                "",
            ]
        if "scaling" in figures:
            lines += [f"![time against stream length]({figures['scaling']})", ""]
    if results.harness:
        lines += [
            "## Harness",
            "",
            "The reference over the corpus and its whole chunking matrix with every check "
            f"(`run_corpus`, {results.settings.get('harness_scope')}), its adapter's sessions "
            "timed from inside the workers: wall time of the run against the time spent in "
            "the scrubber's constructor, `feed` and `flush`; then the same run on 2 workers.",
            "",
            harness_table(results, "github"),
            "",
        ]
    if results.memory:
        lines += [
            "## Memory",
            "",
            "tracemalloc peak while a lazily generated stream (never held whole) is "
            "scrubbed and each output dropped, against the same run through the passthrough "
            "(which holds the delta, the generator's section and the output). "
            "`reference` is `ReferenceScrubber(record_cuts=False)`; `reference+cuts` the "
            "default, which keeps every removal point for `last_cuts`.",
            "",
            memory_table(results, "github"),
            "",
        ]
    labels = results.labels
    if labels:
        lines += ["## Implementations", ""]
        lines += [f"- `{name}`: {label}" for name, label in sorted(labels.items())]
        lines.append("")
    return "\n".join(lines)
