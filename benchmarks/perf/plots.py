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


def throughput_png(result: Throughput, path: Path, names: list[str]) -> Path:
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(8, 5.5))
    for name in names:
        points = [(s, result.rate(name, s)) for s in result.sizes]
        points = [(s, r) for s, r in points if r]
        if not points:
            continue
        style = "-o" if name in ("reference", "passthrough", "hermes", "scan-floor") else ":."
        ax.plot([s for s, _ in points], [r for _, r in points], style, label=name,
                linewidth=2.2 if name == "reference" else 1.2)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xticks(list(result.sizes), [str(s) for s in result.sizes])
    ax.set_xlabel("delta size (characters)")
    ax.set_ylabel("characters per second (CPU time)")
    ax.set_title(f"Throughput on a {result.length // 1024} KB realistic stream")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def scaling_png(curves: list[Curve], path: Path) -> Path:
    plt = _pyplot()
    shapes = sorted({c.shape for c in curves})
    fig, axes = plt.subplots(1, len(shapes), figsize=(6.5 * len(shapes), 5.5), squeeze=False)
    for ax, shape in zip(axes[0], shapes, strict=True):
        for curve in (c for c in curves if c.shape == shape):
            if not curve.seconds:
                continue
            xs = sorted(curve.seconds)
            main = curve.impl in ("reference", "passthrough", "hermes")
            ax.plot(xs, [curve.seconds[x] for x in xs], "-o" if main else ":.",
                    label=f"{curve.impl} ({curve.verdict})",
                    linewidth=2.2 if curve.impl == "reference" else 1.2)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("stream length (characters)")
        ax.set_ylabel("seconds (CPU time)")
        ax.set_title(f"{shape}-character deltas")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=6, ncol=2)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
