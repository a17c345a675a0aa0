"""Figures of ``corpusbench compare``: accuracy vs frequency bin per model (LT-Swap Fig. 3 style,
FIT-CLAMS noun/verb bins), ΔP vs log frequency (FIT-CLAMS §6) and CAC model-vs-human metrics.

Each family names its figures (``EvalKind.figures``); :func:`plot_all` draws those of the families the
runs have. Every figure is titled and axis-labelled, shows n, draws 95% intervals (as the table: Wilson,
MOVER for averaged scores), dodges models along x so markers and bars do not overlap, and keeps the
legend outside the axes. Points with fewer than ``MIN_N`` pairs are drawn hollow; points with ties get a
grey tick at the tie-as-half accuracy. FIT-CLAMS draws one line per run and evaluation lexicon.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from corpusbench.eval.benchmarks import fitclams_lexicons
from corpusbench.eval.plots import MARKERS, MIN_N, Point, _plt, _save, bin_axis, draw_lines
from corpusbench.eval.plots import legend_below as _legend
from corpusbench.eval.runs import Run, lexicon_prefix, ltswap_cells, ltswap_ci, prop_ci
from corpusbench.families import families, load


def _lines(
    ax: Any, runs: Sequence[Run], series: Callable[[Run], dict[str, dict[int, Point]]]
) -> dict[int, int]:
    """One line per model and series label (``plots.draw_lines``); the largest n per bin."""
    return draw_lines(ax, [(f"{r.label} {lab}".strip(), pts) for r in runs for lab, pts in series(r).items()])


def plot_ltswap(runs: Sequence[Run], out: Path, **_options: Any) -> str | None:
    """LT-Swap score per frequency bin per model (Fig. 3), 95% interval (MOVER over the cells' Wilson)."""

    def series(run: Run) -> dict[str, dict[int, Point]]:
        lt = run.bench.get("ltswap")
        if not lt:
            return {}
        cells = ltswap_cells(lt)
        half = (lt.get("ties_half") or {}).get("per_bin", {}) if lt.get("n_ties") else {}
        pts = {}
        for b, v in lt["per_bin"].items():
            n = sum(c[0] for k, c in cells.items() if int(k.rsplit("|", 1)[1]) == int(b))
            pts[int(b)] = (v, ltswap_ci(lt, bin_=int(b)), n, half.get(b))
        return {"": pts}

    if not any(r.bench.get("ltswap") for r in runs):
        return None
    plt = _plt()
    fig, ax = plt.subplots(figsize=(6.4, 3.8))
    ns = _lines(ax, runs, series)
    bin_axis(ax, ns, "frequency bin (under it: pairs in the bin)")
    ax.set_ylabel("LT-Swap score (mean of subtasks)")
    ax.set_title(
        f"LT-Swap score by frequency bin, 95% CI (bin 0: InflectionSwap + AgreementSwap only; "
        f"hollow: n < {MIN_N})",
        fontsize=9,
    )
    _legend(fig, ax)
    _save(fig, out / "ltswap_by_bin.png")
    plt.close(fig)
    return "ltswap_by_bin.png"


def plot_fitclams_bins(runs: Sequence[Run], out: Path, **_options: Any) -> str | None:
    """FIT-CLAMS accuracy per subject-noun and verb bin of the training corpus, per run and lexicon."""
    if not any(r.bench.get("fitclams") for r in runs):
        return None

    def series(key: str) -> Callable[[Run], dict[str, dict[int, Point]]]:
        def get(run: Run) -> dict[str, dict[int, Point]]:
            fc = run.bench.get("fitclams")
            if not fc:
                return {}
            return {
                lexicon_prefix(fc, lex).strip(): {
                    int(b): (c["accuracy"], prop_ci(c), c["n"], _half(c)) for b, c in one[key].items()
                }
                for lex, one in fitclams_lexicons(fc).items()
            }

        return get

    plt = _plt()
    fig, axes = plt.subplots(1, 2, figsize=(9.0, 3.8), sharey=True)
    for ax, key, what in ((axes[0], "per_noun_bin", "subject noun"), (axes[1], "per_verb_bin", "verb")):
        ns = _lines(ax, runs, series(key))
        bin_axis(ax, ns, f"{what} frequency bin")
        ax.set_title(f"by {what} bin", fontsize=9)
    axes[1].set_ylabel("")
    fig.suptitle(
        "FIT-CLAMS accuracy by training-corpus frequency bin (all paradigms; n = pairs per bin; Wilson 95% "
        f"CI; hollow: n < {MIN_N})",
        fontsize=10,
    )
    _legend(fig, axes[0])
    _save(fig, out / "fitclams_by_bin.png")
    plt.close(fig)
    return "fitclams_by_bin.png"


def _half(cell: Mapping[str, Any]) -> float | None:
    """The tie-as-half accuracy of a cell with ties (None without)."""
    if not cell.get("n_ties"):
        return None
    return (cell["n_correct"] + 0.5 * cell["n_ties"]) / cell["n"]


def plot_delta(runs: Sequence[Run], out: Path, **_options: Any) -> str | None:
    pts = {
        f"{r.label} {lexicon_prefix(fc, lex)}".strip(): p
        for r in runs
        if (fc := r.bench.get("fitclams"))
        for lex, one in fitclams_lexicons(fc).items()
        if (p := (one.get("delta_ols") or {}).get("points"))
    }
    if not pts:
        return None
    plt = _plt()
    fig, axes = plt.subplots(1, 2, figsize=(9.0, 3.8), sharey=True)
    for ax, key, what in (
        (axes[0], "verb", "verb form"),
        (axes[1], "subject_good", "grammatical subject form"),
    ):
        for i, (label, p) in enumerate(pts.items()):
            x, y = np.asarray(p[key], float), np.asarray(p["delta"], float)
            dots = ax.scatter(
                x, y, s=10, alpha=0.45, marker=MARKERS[i % len(MARKERS)], label=f"{label} (n={len(y)})"
            )
            if len(set(x.tolist())) > 1:
                slope, icept = np.polyfit(x, y, 1)
                r2 = float(np.corrcoef(x, y)[0, 1] ** 2)
                xs = np.linspace(x.min(), x.max(), 20)
                ax.plot(xs, slope * xs + icept, color=dots.get_facecolor()[0][:3], lw=1.4)
                ax.text(
                    0.02,
                    0.97 - 0.07 * i,
                    f"{label}: R² {r2:.2f}",
                    transform=ax.transAxes,
                    fontsize=7,
                    va="top",
                    color=dots.get_facecolor()[0][:3],
                )
        ax.axhline(0, color="grey", lw=0.8, ls="--")
        if ax is axes[0]:  # shared y: headroom once, so the R² lines sit above the points
            lo, hi = ax.get_ylim()
            ax.set_ylim(lo, hi + (hi - lo) * 0.07 * (len(pts) + 1))
        ax.set_xlabel(f"smoothed ln count of the {what}")
        ax.set_title(f"ΔP vs {what} frequency", fontsize=9)
    axes[0].set_ylabel("ΔP = log P(good) − log P(bad) (nats)")
    fig.suptitle(
        "FIT-CLAMS simple agreement: ΔP vs training-corpus log frequency (line and R²: this predictor alone)",
        fontsize=10,
    )
    _legend(fig, axes[0])
    _save(fig, out / "fitclams_delta_vs_logfreq.png")
    plt.close(fig)
    return "fitclams_delta_vs_logfreq.png"


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
    plt = _plt()
    fig, axes = plt.subplots(1, 2, figsize=(9.0, 3.8))
    width = 0.8 / len(series)
    for ax, key, what in ((axes[0], "overlap", "overlap"), (axes[1], "tpr", "TPR")):
        for i, (label, rows) in enumerate(series):
            stats = [
                _mean_ci([r.get(key) for r in rows if str(r["role"]) == role], n_boot, seed) for role in roles
            ]
            ys = np.array([m for m, _ in stats])
            err = np.vstack(
                [np.nan_to_num(ys - [c[0] for _, c in stats]), np.nan_to_num([c[1] for _, c in stats] - ys)]
            )
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
    _legend(fig, axes[0])
    _save(fig, out / "cac_overlap_tpr.png")
    plt.close(fig)
    return "cac_overlap_tpr.png"


def plot_all(runs: Sequence[Run], out: Path, *, n_boot: int = 2000, seed: int = 0) -> list[str]:
    """Each family's compare figures (its ``figures`` hooks, family order) for the runs that have its
    block; returns the file names written."""
    made = []
    for family in families.with_eval():
        if family.eval is not None and any(r.bench.get(family.name) for r in runs):
            made += [load(fig)(runs, out, n_boot=n_boot, seed=seed) for fig in family.eval.figures]
    return [m for m in made if m]
