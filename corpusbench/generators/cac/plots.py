"""CAC plots (matplotlib, Agg): empirical vs predicted overlap with the identity line; TPR vs baseline.

Both take any list of :class:`GroupStats` (humans and/or models); points are grouped by
``source``/``role``. Files are written atomically.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

from corpusbench.generators.cac.records import ADULT_TPR_BASELINE, GroupStats
from corpusbench.io import atomic_path

_MARKERS = {"child": "o", "caretaker": "s"}


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _series(stats: Sequence[GroupStats]) -> dict[tuple[str, str], list[GroupStats]]:
    out: dict[tuple[str, str], list[GroupStats]] = {}
    for s in stats:
        out.setdefault((s.source, s.role), []).append(s)
    return dict(sorted(out.items()))


def _save(fig, path: Path) -> None:
    with atomic_path(path) as tmp:
        fig.savefig(tmp, format="png", dpi=120, bbox_inches="tight", metadata={"Software": None})


def plot_overlap(stats: Sequence[GroupStats], path: str | Path, *, title: str = "D×N overlap") -> None:
    """Scatter of (predicted, empirical/expected) overlap per dyad, with the identity line."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(5, 5))
    pts = [s for s in stats if not (math.isnan(s.overlap) or math.isnan(s.predicted_overlap))]
    hi = max([0.1] + [max(s.overlap, s.predicted_overlap) for s in pts]) * 1.1
    ax.plot([0, hi], [0, hi], "--", color="grey", lw=1, label="identity")
    for (source, role), rows in _series(pts).items():
        ax.scatter(
            [s.predicted_overlap for s in rows],
            [s.overlap for s in rows],
            marker=_MARKERS.get(role, "^"),
            label=f"{source} {role} (n={len(rows)})",
            alpha=0.8,
        )
    ax.set(
        xlim=(0, hi),
        ylim=(0, hi),
        xlabel="predicted overlap (Yang 2013)",
        ylabel="empirical overlap",
        title=title,
    )
    ax.legend(fontsize=8)
    _save(fig, Path(path))
    plt.close(fig)


def plot_tpr(
    stats: Sequence[GroupStats], path: str | Path, *, baseline: float = ADULT_TPR_BASELINE, title: str = "TPR"
) -> None:
    """TPR per dyad for each source/role (points, with the mean as a bar) and the adult baseline."""
    plt = _pyplot()
    series = _series([s for s in stats if not math.isnan(s.tpr)])
    fig, ax = plt.subplots(figsize=(max(4, 1.4 * len(series) + 2), 4))
    for i, ((_source, role), rows) in enumerate(series.items()):
        vals = [s.tpr for s in rows]
        ax.bar(i, sum(vals) / len(vals), color="lightsteelblue", width=0.6)
        ax.scatter([i] * len(vals), vals, marker=_MARKERS.get(role, "^"), color="black", zorder=3, s=18)
    ax.axhline(baseline, ls="--", color="firebrick", lw=1, label=f"adult baseline {baseline:g}")
    ax.set_xticks(range(len(series)), [f"{src}\n{role}" for src, role in series], fontsize=8)
    ax.set(ylim=(0, 1), ylabel="TPR (switch rate)", title=title)
    ax.legend(fontsize=8)
    _save(fig, Path(path))
    plt.close(fig)
