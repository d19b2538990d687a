"""benchmarks/performance.py at tiny sizes: the pieces run and the report has its shape.

No timing is asserted (these machines are noisy); what is checked is what a
wrong benchmark would get wrong: the streams, what each measurement records,
the memory the reference keeps, and the tables and files the script writes.
"""

from __future__ import annotations

import functools
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "benchmarks"
sys.path.insert(0, str(BENCH))

from perf import harness, impls, memory, report, scaling, streams, throughput  # noqa: E402

from scrubcheck.scrubbers.reference import ReferenceScrubber  # noqa: E402


def test_streams_have_the_length_asked_for_and_the_same_mix_at_every_length():
    for n in (0, 7, 1000, 1024, 8192, 70001):
        text = streams.realistic_stream(n)
        assert len(text) == n
        for size in (1, 5, 64):
            assert "".join(streams.lazy_deltas(n, size)) == text
    one, eight = streams.realistic_stream(1024), streams.realistic_stream(8192)
    assert one.count("<think>") >= 2 and "```python" in one and "`" in one
    assert one.endswith(one[-128:]) and one[-128:].startswith("<think>")  # unclosed, 1/8
    assert eight[-1024:].startswith("<think>") and eight[:896] == one[:896]
    visible = ReferenceScrubber().feed(eight) + ReferenceScrubber().flush()
    assert "print('<think> stays literal" in visible  # the fence quotes a tag
    assert eight[-20:] not in visible  # the unclosed block is reasoning


def test_throughput_records_every_implementation_and_size():
    chosen = [i for i in impls.in_process() if i.name in ("reference", "passthrough")]
    result = throughput.measure(chosen, streams.realistic_stream(2048), sizes=(1, 16),
                                rounds=2, min_seconds=0.001, progress=lambda m: None)
    assert set(result.seconds) == {"reference", "passthrough"}
    for name in result.seconds:
        assert set(result.seconds[name]) == {1, 16}
        assert all(result.rate(name, s) > 0 for s in (1, 16))
    assert result.ratio("reference", "reference", 16) == pytest.approx(1.0)
    assert 0 < result.special_share[16] <= 1 and result.special_share[1] < 0.2


def test_scaling_gives_a_ratio_per_pair_and_stops_at_the_cap():
    reference = impls.in_process()[0]
    curve = scaling.measure(reference, 16, sizes=(1024, 8192), rounds=1, min_seconds=0.001)
    assert set(curve.seconds) == {1024, 8192}
    assert set(curve.ratios()) == {(1024, 8192)}
    assert curve.verdict in ("linear", "superlinear", "quadratic")
    capped = scaling.measure(reference, 1, sizes=(1024, 8192, 65536), rounds=1, cap=1e-9,
                             min_seconds=0.0)
    assert set(capped.seconds) == {1024} and capped.stopped.startswith("stopped before 8 KB")


def test_memory_of_the_reference_stays_flat_without_cuts_and_grows_with_them():
    lean = functools.partial(ReferenceScrubber, record_cuts=False)
    small = memory.measure("reference", lean, 64 << 10, 16, holdback_length=64 << 10)
    large = memory.measure("reference", lean, 512 << 10, 16, holdback_length=64 << 10)
    assert 0 < small.holdback_chars <= 64
    assert large.excess_bytes <= report.FEW_KB
    assert large.peak_bytes - small.peak_bytes < 1024  # 8x the stream, the same peak
    cuts = memory.measure("reference+cuts", ReferenceScrubber, 512 << 10, 16,
                          holdback_length=64 << 10)
    assert cuts.excess_bytes > 4 * report.FEW_KB  # one integer per removed piece (32 KB)


def test_record_cuts_false_changes_nothing_but_last_cuts():
    text = streams.realistic_stream(4096)
    plain, lean = ReferenceScrubber(), ReferenceScrubber(record_cuts=False)
    for delta in streams.deltas(text, 7):
        assert plain.feed(delta) == lean.feed(delta)
    assert plain.flush() == lean.flush()
    assert plain.last_cuts and lean.last_cuts == []


def test_harness_counts_time_inside_the_scrubber_in_the_workers():
    from scrubcheck.corpus import load_corpus

    scenarios = [s for s in load_corpus().scenarios if "long" not in s.labels][:4]
    run = harness.measure(scenarios, 1, random_count=1, linear_check=False)
    assert run.scenarios == 4 and run.passed == 4 and run.chunkings > 4
    assert 0 < run.scrubber_s < run.wall_s and run.ratio > 1


def test_the_script_writes_the_report_and_the_figures(tmp_path, capsys):
    import performance

    code = performance.main(["--quick", "--peers", "none", "--only", "throughput",
                             "--out", str(tmp_path)])
    assert code == 0
    text = (tmp_path / "performance.md").read_text(encoding="utf-8")
    for heading in ("# Performance", "## Targets", "## Throughput", "Machine: "):
        assert heading in text
    assert "passthrough vs reference, 64-char deltas" in text
    assert (tmp_path / "performance-throughput.png").read_bytes()[:4] == b"\x89PNG"
    out = capsys.readouterr().out
    assert "TARGETS" in out and "THROUGHPUT" in out


def test_targets_say_met_or_not_from_the_figures():
    tp = throughput.Throughput(1000, (1, 16, 64), 1)
    tp.seconds = {"reference": {1: 1.0, 16: 1.0, 64: 1.0},
                  "passthrough": {1: 0.5, 16: 0.05, 64: 0.2},
                  "hermes": {1: 6.0, 16: 2.0, 64: 2.0}}
    curve = scaling.Curve("reference", 1, {1024: [1.0, 0.1, 1.1], 8192: [10.0]})  # medians
    results = report.Results({}, {}, throughput=tp, curves=[curve])
    verdicts = {t.what: t.verdict for t in report.targets(results)}
    assert verdicts["reference vs hermes StreamingThinkScrubber, 1-char deltas"] == "met"
    assert verdicts["reference vs hermes StreamingThinkScrubber, 16-char deltas"] == "NOT met"
    assert verdicts["passthrough vs reference, 16-char deltas"] == "NOT met"  # 20x
    assert verdicts["passthrough vs reference, 64-char deltas"] == "met"  # 5x
    assert verdicts["passthrough vs reference, 1-char deltas"] == "reported"
    assert verdicts["reference scaling, 1-char deltas, 1 KB to 8 KB"] == "NOT met"  # 10x


def test_every_series_has_a_look_of_its_own_and_no_legend_covers_data():
    """Thirty implementations share each figure: no two may look alike, and the legends
    must sit outside the axes."""
    from perf import plots

    main = ["reference", "passthrough", "scan-floor", "hermes"]
    many = main + [f"peer-{i:03d}" for i in range(120)]
    looks = [(s.color, s.linestyle, s.marker) for s in plots.series_styles(many).values()]
    assert len(set(looks)) == len(many)
    assert {s.linestyle for n, s in plots.series_styles(many).items() if n not in main} \
        .isdisjoint({"-"})  # solid is for the implementations the targets are about

    names = main + [f"peer-{i:02d}" for i in range(27)]
    tp = throughput.Throughput(1 << 17, (1, 4, 16, 64), 1)
    tp.seconds = {n: {s: (1 + i) / s for s in tp.sizes} for i, n in enumerate(names)}
    curves = [scaling.Curve(n, shape, {1 << k: [(1 + i) * 2.0 ** k] for k in (10, 13, 16)})
              for shape in (1, 16) for i, n in enumerate(names)]
    for fig in (plots.throughput_figure(tp, names), plots.scaling_figure(curves)):
        fig.canvas.draw()
        for ax in fig.axes:
            lines = ax.get_lines()
            assert len(lines) == len(names)
            assert len({(x.get_color(), x.get_linestyle(), x.get_marker())
                        for x in lines}) == len(names)
            legend = ax.get_legend()
            assert len(legend.get_texts()) == len(names)
            assert not legend.get_window_extent().overlaps(ax.get_window_extent())
        plots._pyplot().close(fig)
