"""The two figures: throughput against delta size, time against stream length.

About thirty implementations share each figure, so every series gets a look no
other series has (colour x line style x marker), the same look in both figures,
and the legends sit outside the axes, where they cover no data. The four
implementations the targets are about are drawn solid and thick; the peers
dotted, dashed or dash-dotted, with a marker each.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from .scaling import Curve
from .throughput import Throughput


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


MAIN = ("reference", "passthrough", "hermes", "scan-floor")  # drawn as solid lines
_MAIN_COLOURS = {"reference": "#1f77b4", "passthrough": "#ff7f0e", "scan-floor": "#2ca02c",
                 "hermes": "#d62728"}
_PEER_LINES = (":", "--", "-.")  # never "-": solid is for MAIN
_PEER_MARKERS = ("o", "s", "^", "D", "v", "P", "X")  # 7 is coprime to the 20 colours


@dataclass(frozen=True)
class Style:
    color: str
    linestyle: str
    marker: str
    linewidth: float
    markersize: float


def _peer_colours() -> list[str]:
    """20 strong colours: matplotlib's tab10, the four hues MAIN uses last, then the
    darker two shades of each hue group of tab20b. (The light half of tab20 is too
    faint for a thin dotted line on white.)"""
    from matplotlib import colormaps
    from matplotlib.colors import to_hex

    tab10 = [to_hex(colormaps["tab10"](i)) for i in range(10)]
    tab20b = [to_hex(colormaps["tab20b"](i)) for i in range(20)]
    return tab10[4:] + tab20b[0::4] + tab10[:4] + tab20b[1::4]


def series_styles(names: Sequence[str]) -> dict[str, Style]:
    """A look per name, distinct from every other one, stable for a given order.

    Peer i gets colour i mod 20, line style (i div 20) mod 3 and marker i mod 7:
    the (colour, line style) pair repeats only after 60 peers and the triple after
    420; MAIN implementations alone are solid.
    """
    colours = _peer_colours()
    styles: dict[str, Style] = {}
    peers = 0
    for name in dict.fromkeys(names):
        if name in MAIN:
            styles[name] = Style(_MAIN_COLOURS[name], "-", "o",
                                 2.6 if name == "reference" else 1.8, 6.0)
            continue
        styles[name] = Style(colours[peers % len(colours)],
                             _PEER_LINES[(peers // len(colours)) % len(_PEER_LINES)],
                             _PEER_MARKERS[peers % len(_PEER_MARKERS)], 1.1, 4.0)
        peers += 1
    return styles


def _curve(ax, xs: list, ys: list, style: Style, label: str) -> None:
    ax.plot(xs, ys, color=style.color, linestyle=style.linestyle, marker=style.marker,
            linewidth=style.linewidth, markersize=style.markersize, label=label)


def _log_axes(ax, xlabel: str, ylabel: str, title: str) -> None:
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)


def _save(plt, fig, path: Path) -> Path:
    # "tight" grows the image to hold the legends placed outside the axes.
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)
    return path


def throughput_figure(result: Throughput, names: list[str]):
    """Characters per second against delta size, one series per implementation;
    the legend to the right of the axes."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(8, 5.5))
    styles = series_styles(names)
    for name in names:
        points = [(s, result.rate(name, s)) for s in result.sizes]
        points = [(s, r) for s, r in points if r]
        if points:
            _curve(ax, [s for s, _ in points], [r for _, r in points], styles[name], name)
    _log_axes(ax, "delta size (characters)", "characters per second (CPU time)",
              f"Throughput on a {result.length // 1024} KB realistic stream")
    ax.set_xticks(list(result.sizes), [str(s) for s in result.sizes])
    fig.tight_layout()  # the axes at full size; the legend then goes beside them
    ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), fontsize=7.5, frameon=False,
              ncol=1 if len(ax.get_lines()) <= 34 else 2, handlelength=3.2)
    return fig


def scaling_figure(curves: list[Curve]):
    """Seconds against stream length, one panel per delta size; each panel's legend
    (which names that panel's verdicts) below it."""
    plt = _pyplot()
    shapes = sorted({c.shape for c in curves})
    styles = series_styles([c.impl for c in curves])
    fig, axes = plt.subplots(1, len(shapes), figsize=(6.5 * len(shapes), 5.5),
                             squeeze=False)
    for ax, shape in zip(axes[0], shapes, strict=True):
        for curve in (c for c in curves if c.shape == shape):
            if not curve.seconds:
                continue
            xs = sorted(curve.seconds)
            _curve(ax, xs, [curve.seconds[x] for x in xs], styles[curve.impl],
                   f"{curve.impl} ({curve.verdict})")
        _log_axes(ax, "stream length (characters)", "seconds (CPU time)",
                  f"{shape}-character deltas")
    fig.tight_layout()  # the axes at full size; each legend then goes below its panel
    for ax in axes[0]:
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.14), fontsize=7, frameon=False,
                  ncol=2, handlelength=3.2)
    return fig


def throughput_png(result: Throughput, path: Path, names: list[str]) -> Path:
    return _save(_pyplot(), throughput_figure(result, names), path)


def scaling_png(curves: list[Curve], path: Path) -> Path:
    return _save(_pyplot(), scaling_figure(curves), path)
