"""Figures of ``corpusbench eval run`` (matplotlib, Agg backend): what the papers draw, one file per kind.

- ``accuracy_by_group.png``: one bar per config (and group), Wilson 95% intervals.
- each family's figures of a run (``EvalKind.run_figures``, drawn with the helpers here), in family order.
- ``accuracy_by_bin.png``: only for binned configs outside a benchmark (plain pairs), one line per config.

Points and bars with fewer than ``MIN_N`` pairs are drawn hollow, and every title says so; ties are marked
(a grey tick at the tie-as-half accuracy on lines, a hatched segment on bars) and counted in the legend.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from corpusbench.eval.metrics import cells_interval
from corpusbench.eval.results import in_benchmark
from corpusbench.family import families, load
from corpusbench.intervals import error_bars

MIN_N = 10  # fewer pairs than this: drawn hollow (the interval says how little it shows)
MARKERS = "osD^vP*X"
TIES_LABEL = "ties counted as ½"
Point = tuple[float, list[float], int, float | None]  # (value, 95% interval, n, tie-as-half value or None)
Series = dict[int, Point]  # bin -> point


def pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def save_png(fig: Any, path: Path) -> None:
    from corpusbench.io import atomic_path

    with atomic_path(path) as tmp:
        fig.savefig(tmp, format="png", dpi=110, bbox_inches="tight")


def _dodge(i: int, k: int, width: float = 0.3) -> float:
    return 0.0 if k == 1 else (i / (k - 1) - 0.5) * width


def point(cells: Mapping[str, Mapping[str, Any]], weights: Mapping[str, float] | None = None) -> Point:
    """A weighted mean of accuracy cells (equal weights by default) with its 95% interval (Wilson; MOVER
    over several cells), the pairs behind it and, when any pair tied, the tie-as-half value."""
    w = dict(weights) if weights is not None else {k: 1 / len(cells) for k in cells}
    counts = {k: (int(cells[k]["n"]), int(cells[k]["n_correct"])) for k in w}
    value = sum(wt * counts[k][1] / counts[k][0] for k, wt in w.items())
    ties = sum(int(cells[k].get("n_ties") or 0) for k in w)
    half = (
        sum(wt * (counts[k][1] + 0.5 * (cells[k].get("n_ties") or 0)) / counts[k][0] for k, wt in w.items())
        if ties
        else None
    )
    return float(value), cells_interval(counts, w), sum(n for n, _ in counts.values()), half


def mark_ties(ax: Any, xs: Sequence[float], halves: Sequence[float | None]) -> None:
    """A grey tick at the tie-as-half accuracy of every point that has ties."""
    pts = [(x, h) for x, h in zip(xs, halves, strict=True) if h is not None]
    if pts:
        labels = ax.get_legend_handles_labels()[1]
        ax.plot(
            [x for x, _ in pts],
            [h for _, h in pts],
            ls="",
            marker="_",
            ms=10,
            mew=2,
            color="0.45",
            label=None if TIES_LABEL in labels else TIES_LABEL,
        )


def draw_lines(ax: Any, shown: Sequence[tuple[str, Series]]) -> dict[int, int]:
    """One line per (label, series) with 95% error bars, dodged along x; points below ``MIN_N`` pairs
    hollow, ties marked. Returns the largest n per bin (for the tick labels)."""
    ns: dict[int, int] = {}
    shown = [(label, pts) for label, pts in shown if pts]
    for i, (label, pts) in enumerate(shown):
        xs = sorted(pts)
        ys = np.array([pts[x][0] for x in xs])
        err = error_bars(ys, [pts[x][1][0] for x in xs], [pts[x][1][1] for x in xs])
        dx = np.array(xs, dtype=float) + _dodge(i, len(shown))
        marker = MARKERS[i % len(MARKERS)]
        bars = ax.errorbar(dx, ys, yerr=err, marker=marker, ms=4, capsize=2, lw=1.2, label=label, zorder=2)
        small = [j for j, x in enumerate(xs) if pts[x][2] < MIN_N]
        if small:  # hollow on top of the filled marker
            color = bars[0].get_color()
            ax.plot(dx[small], ys[small], ls="", marker=marker, ms=5, mfc="white", mec=color, zorder=3)
        mark_ties(ax, list(dx), [pts[x][3] for x in xs])
        for x in xs:
            ns[x] = max(ns.get(x, 0), pts[x][2])
    return ns


def _n(n: int) -> str:
    return f"{n / 1000:.1f}k" if n >= 1000 else str(n)


def bin_axis(ax: Any, ns: Mapping[int, int], xlabel: str) -> None:
    xs = sorted(ns)
    ax.set_xticks(xs, [f"{x}\n{_n(ns[x])}" for x in xs], fontsize=6 if len(xs) > 6 else 7)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("accuracy")
    ax.axhline(0.5, color="grey", lw=0.8, ls="--")
    ax.set_ylim(-0.02, 1.02)


def legend_below(fig: Any, ax: Any) -> None:
    """The legend under the axes, never over the data."""
    handles, labels = ax.get_legend_handles_labels()
    if handles:
        fig.legend(
            handles,
            labels,
            loc="upper center",
            bbox_to_anchor=(0.5, 0.0),
            ncol=min(len(labels), 3),
            fontsize=8,
            frameon=False,
        )


def plot_title(results: dict[str, Any], what: str) -> str:
    return f"{results['provenance']['model']['model_id']}: {what} (hollow: n < {MIN_N}; 95% CI: Wilson)"


def plot_groups(results: dict[str, Any], out: Path) -> str | None:
    """One bar per config (per group when a config has groups); ties hatched up to the tie-as-half value."""
    configs = results["configs"]
    groups = [
        (cfg if not m["by_group"] or cfg.endswith(g) else g if len(configs) == 1 else f"{cfg}/{g}", c)
        for cfg, m in configs.items()
        for g, c in (m["by_group"] or {"all": m}).items()
        if c["n"]
    ]
    if not groups:
        return None
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(max(4.0, 0.45 * len(groups) + 2), 3.6))
    xs = np.arange(len(groups))
    pts = [point({"c": c}) for _, c in groups]
    ys = np.array([p[0] for p in pts])
    small = [p[2] < MIN_N for p in pts]
    ax.bar(
        xs,
        ys,
        color=["white" if s else "#4C72B0" for s in small],
        edgecolor="#4C72B0",
        yerr=error_bars(ys, [p[1][0] for p in pts], [p[1][1] for p in pts]),
        capsize=2,
    )
    half = np.array([p[3] if p[3] is not None else p[0] for p in pts])
    if (half > ys).any():
        ax.bar(xs, half - ys, bottom=ys, color="none", edgecolor="0.45", hatch="///", lw=0)
    n_ties = sum(int(c.get("n_ties") or 0) for _, c in groups)
    ax.axhline(0.5, color="grey", lw=0.8, ls="--")
    ax.set_xticks(xs, [f"{g} (n={p[2]})" for (g, _), p in zip(groups, pts, strict=True)], rotation=60,
                  ha="right", fontsize=7)  # fmt: skip
    ax.set_ylim(-0.02, 1.02)
    ax.set_ylabel("pairwise accuracy (ties are not wins)")
    what = f"accuracy per config; ties {n_ties}" + (" (hatched: ties counted as ½)" if n_ties else "")
    ax.set_title(plot_title(results, what), fontsize=8)
    save_png(fig, out / "accuracy_by_group.png")
    plt.close(fig)
    return "accuracy_by_group.png"


def plot_other_bins(results: dict[str, Any], out: Path) -> str | None:
    """Binned configs outside the benchmarks: one line per config (per group when there is one config)."""
    bench = results["benchmarks"]
    binned = {c: m for c, m in results["configs"].items() if m["by_bin"] and not in_benchmark(c, bench)}
    if not binned:
        return None
    shown: list[tuple[str, Series]] = []
    for cfg, m in binned.items():
        if len(binned) == 1 and m["by_group_bin"]:
            per: dict[str, Series] = {}
            for key, c in m["by_group_bin"].items():
                g, b = key.rsplit("|", 1)
                per.setdefault(g, {})[int(b)] = point({"c": c})
            shown += sorted(per.items())
        else:
            shown.append((cfg, {int(b): point({"c": c}) for b, c in m["by_bin"].items()}))
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6.4, 3.8))
    ns = draw_lines(ax, shown)
    bin_axis(ax, ns, "frequency bin (under it: pairs)")
    ax.set_title(plot_title(results, "accuracy per bin"), fontsize=8)
    legend_below(fig, ax)
    save_png(fig, out / "accuracy_by_bin.png")
    plt.close(fig)
    return "accuracy_by_bin.png"


def plot_results(results: dict[str, Any], out: Path) -> list[str]:
    """Write the figures of one eval run into ``out`` (see the module doc); return their file names."""
    made = [plot_groups(results, out)]
    for family in families.with_eval():  # each family's figures (``EvalKind.run_figures``), family order
        if family.eval is not None and results["benchmarks"].get(family.name):
            made += [load(figure)(results, out) for figure in family.eval.run_figures]
    return [m for m in [*made, plot_other_bins(results, out)] if m]
