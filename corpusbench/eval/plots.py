"""Accuracy plots (matplotlib, Agg backend): per group and per frequency bin, one file per kind."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from corpusbench.io import atomic_path


def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _save(fig: Any, path: Path) -> None:
    with atomic_path(path) as tmp:
        fig.savefig(tmp, format="png", dpi=110, bbox_inches="tight")


def plot_results(results: dict[str, Any], out: Path) -> list[str]:
    """Write ``accuracy_by_group.png`` and, when bins exist, ``accuracy_by_bin.png``; return file names."""
    plt = _plt()
    written: list[str] = []
    configs = results["configs"]
    title = f"{results['provenance']['model']['model_id']}"
    groups = [
        (cfg, g, c["accuracy"])
        for cfg, m in configs.items()
        for g, c in (m["by_group"] or {"all": m}).items()
    ]
    if groups:
        fig, ax = plt.subplots(figsize=(max(4.0, 0.45 * len(groups) + 2), 3.6))
        labels = [g if len(configs) == 1 or g == cfg else f"{cfg}/{g}" for cfg, g, _ in groups]
        ax.bar(range(len(groups)), [a or 0.0 for *_, a in groups], color="#4C72B0")
        ax.axhline(0.5, color="grey", lw=0.8, ls="--")
        ax.set_xticks(range(len(groups)), labels, rotation=60, ha="right", fontsize=8)
        ax.set_ylim(-0.02, 1.02)
        ax.set_ylabel("pairwise accuracy")
        ax.set_title(title, fontsize=9)
        _save(fig, out / "accuracy_by_group.png")
        plt.close(fig)
        written.append("accuracy_by_group.png")
    binned = {cfg: m for cfg, m in configs.items() if m["by_bin"]}
    if binned:
        fig, ax = plt.subplots(figsize=(6, 3.6))
        for cfg, m in binned.items():
            series: dict[str, dict[int, float]] = {}
            for key, c in m["by_group_bin"].items():
                g, b = key.rsplit("|", 1)
                series.setdefault(g, {})[int(b)] = c["accuracy"]
            if not series:
                series = {"all": {int(b): c["accuracy"] for b, c in m["by_bin"].items()}}
            for g, pts in sorted(series.items()):
                xs = sorted(pts)
                label = g if len(binned) == 1 else f"{cfg}/{g}"
                ax.plot(xs, [pts[x] for x in xs], marker="o", ms=3, label=label)
        ax.axhline(0.5, color="grey", lw=0.8, ls="--")
        ax.set_xlabel("frequency bin")
        ax.xaxis.get_major_locator().set_params(integer=True)
        ax.set_ylabel("pairwise accuracy")
        ax.set_ylim(-0.02, 1.02)
        ax.set_title(title, fontsize=9)
        ax.legend(fontsize=7, ncol=2)
        _save(fig, out / "accuracy_by_bin.png")
        plt.close(fig)
        written.append("accuracy_by_bin.png")
    return written
