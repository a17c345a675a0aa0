"""CAC in ``corpusbench compare``: its columns, how each run cut its contexts, its figure (model vs
humans per role; hooks of :data:`family.FAMILY`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from corpusbench.eval.plots import legend_below, pyplot, save_png
from corpusbench.eval.runs import Run
from corpusbench.family import Metric
from corpusbench.intervals import error_bars


def cac_columns(cac: Mapping[str, Any]) -> list[Metric]:
    """CAC: the agreement with the children (headline) and the model-vs-human summary metrics."""
    out = [Metric(column="CAC", value=cac.get("score"), headline=True)]
    out += [
        Metric(column=f"CAC {k}", value=float(v))
        for k, v in sorted((cac.get("summary") or {}).items())
        if isinstance(v, int | float)
    ]
    return out


def _cac_window(run: Run) -> str | None:
    """How a run cut its CAC contexts (tokens, step), from its CAC configs; None without CAC."""
    cfgs = ((run.bench.get("cac") or {}).get("configs") or {}).values()
    cuts = sorted({f"{c['window']} tokens, step {c.get('context_step', 0)}" for c in cfgs if c.get("window")})
    return "; ".join(cuts) or None


def cac_settings(runs: Sequence[Run]) -> list[str]:
    """How each run cut its CAC contexts."""
    notes: list[str] = []
    windows = {r.label: _cac_window(r) for r in runs}
    if any(windows.values()):
        notes.append("CAC context window: " + ", ".join(f"{k} {v}" for k, v in windows.items() if v))
    return notes


def _dyad_rows(run: Run, key: str) -> list[dict[str, Any]]:
    cac = run.bench.get("cac") or {}
    return [r for c in (cac.get("configs") or {}).values() for r in (c.get(key) or [])]


def _mean_ci(vals: Sequence[float], n_boot: int, seed: int) -> tuple[float, list[float]]:
    """Mean over dyads and a percentile-bootstrap 95% CI over dyads."""
    v = np.asarray([x for x in vals if x is not None and x == x], dtype=float)
    if not len(v):
        return float("nan"), [float("nan"), float("nan")]
    rng = np.random.default_rng(seed)
    boots = v[rng.integers(0, len(v), size=(max(n_boot, 1), len(v)))].mean(axis=1)
    return float(v.mean()), [float(x) for x in np.percentile(boots, [2.5, 97.5])]


def plot_cac(runs: Sequence[Run], out: Path, *, n_boot: int = 2000, seed: int = 0) -> str | None:
    """Model-side expected overlap and TPR per role next to the humans' (bars: mean over dyads, 95% CI)."""
    shown = [r for r in runs if _dyad_rows(r, "model_stats")]
    if not shown:
        return None
    humans = _dyad_rows(shown[0], "human_stats")
    series = [("humans", humans)] + [(r.label, _dyad_rows(r, "model_stats")) for r in shown]
    roles = sorted({str(r["role"]) for _, rows in series for r in rows})
    plt = pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(9.0, 3.8))
    width = 0.8 / len(series)
    for ax, key, what in ((axes[0], "overlap", "overlap"), (axes[1], "tpr", "TPR")):
        for i, (label, rows) in enumerate(series):
            stats = [
                _mean_ci([r.get(key) for r in rows if str(r["role"]) == role], n_boot, seed) for role in roles
            ]
            ys = np.array([m for m, _ in stats])
            err = error_bars(ys, [c[0] for _, c in stats], [c[1] for _, c in stats])
            xs = np.arange(len(roles)) + (i - (len(series) - 1) / 2) * width
            color = "black" if label == "humans" else None
            ax.bar(
                xs, np.nan_to_num(ys), width * 0.9, yerr=err, capsize=2, label=label, color=color, alpha=0.8
            )
        n_dyads = {role: sum(1 for r in humans if str(r["role"]) == role) for role in roles}
        ax.set_xticks(range(len(roles)), [f"{role}\n{n_dyads[role]} dyads" for role in roles], fontsize=8)
        ax.set_ylim(0, 1.05)
        ax.set_ylabel(what)
        ax.set_title(f"{what}: model (expected) vs humans", fontsize=9)
    fig.suptitle(
        "CAC: determiner overlap and TPR per role, mean over dyads (95% bootstrap CI over dyads)", fontsize=10
    )
    legend_below(fig, axes[0])
    save_png(fig, out / "cac_overlap_tpr.png")
    plt.close(fig)
    return "cac_overlap_tpr.png"
