"""Plots of clustering evaluations (matplotlib, Agg backend)."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def plot_sp_pp(rows: list[dict[str, Any]], path: Path) -> None:
    """Two panels like the paper's Figure 1: pairwise P/R (left), substitutable P/R (right).

    One colour per clustering family (the name without its ``-K<k>`` suffix), a marker per
    unclustered-words condition, each point labelled with its number of clusters.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from corpusbench.io import atomic_path

    rows = [r for r in rows if "gold_pairwise_precision" in r]
    families = sorted({r["name"].rsplit("-K", 1)[0] for r in rows})
    colours = plt.get_cmap("tab10")
    fig, axes = plt.subplots(1, 2, figsize=(10, 4.2))
    seen: set[tuple[str, str]] = set()
    for r in rows:
        fam = r["name"].rsplit("-K", 1)[0]
        key = (fam, r["unclustered"])
        label = f"{fam} ({r['unclustered']})" if key not in seen else None
        seen.add(key)
        colour, marker = colours(families.index(fam) % 10), "o" if r["unclustered"] == "merge" else "x"
        points = ((r["gold_pairwise_precision"], r["gold_pairwise_recall"]), (r["sp"], r["sr"]))
        for i, (ax, (x, y)) in enumerate(zip(axes, points, strict=True)):
            ax.scatter(x, y, color=colour, marker=marker, label=label if i == 0 else None)
            ax.annotate(str(r["n_clusters"]), (x, y), fontsize=6, xytext=(3, 3), textcoords="offset points")
    axes[0].set(xlabel="pairwise precision", ylabel="pairwise recall", title="Gold standard (tagger)")
    axes[1].set(xlabel="substitutable precision", ylabel="substitutable recall", title="S-clusters")
    axes[1].ticklabel_format(axis="x", style="sci", scilimits=(0, 0))
    fig.legend(fontsize=7, loc="lower center", ncol=2)
    fig.tight_layout(rect=(0, 0.15, 1, 1))
    with atomic_path(path) as tmp:
        fig.savefig(tmp, format="png", dpi=120)
    plt.close(fig)
