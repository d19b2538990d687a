"""The two figures: throughput against delta size, time against stream length."""

from __future__ import annotations

from pathlib import Path

from .scaling import Curve
from .throughput import Throughput


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


MAIN = ("reference", "passthrough", "hermes", "scan-floor")  # drawn as solid lines


def _curve(ax, xs: list, ys: list, name: str, label: str) -> None:
    ax.plot(xs, ys, "-o" if name in MAIN else ":.", label=label,
            linewidth=2.2 if name == "reference" else 1.2)


def _log_axes(ax, xlabel: str, ylabel: str, title: str, legend_size: int) -> None:
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=legend_size, ncol=2)


def _save(plt, fig, path: Path) -> Path:
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def throughput_png(result: Throughput, path: Path, names: list[str]) -> Path:
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(8, 5.5))
    for name in names:
        points = [(s, result.rate(name, s)) for s in result.sizes]
        points = [(s, r) for s, r in points if r]
        if not points:
            continue
        _curve(ax, [s for s, _ in points], [r for _, r in points], name, name)
    _log_axes(ax, "delta size (characters)", "characters per second (CPU time)",
              f"Throughput on a {result.length // 1024} KB realistic stream", 7)
    ax.set_xticks(list(result.sizes), [str(s) for s in result.sizes])
    return _save(plt, fig, path)


def scaling_png(curves: list[Curve], path: Path) -> Path:
    plt = _pyplot()
    shapes = sorted({c.shape for c in curves})
    fig, axes = plt.subplots(1, len(shapes), figsize=(6.5 * len(shapes), 5.5), squeeze=False)
    for ax, shape in zip(axes[0], shapes, strict=True):
        for curve in (c for c in curves if c.shape == shape):
            if not curve.seconds:
                continue
            xs = sorted(curve.seconds)
            _curve(ax, xs, [curve.seconds[x] for x in xs], curve.impl,
                   f"{curve.impl} ({curve.verdict})")
        _log_axes(ax, "stream length (characters)", "seconds (CPU time)",
                  f"{shape}-character deltas", 6)
    return _save(plt, fig, path)
