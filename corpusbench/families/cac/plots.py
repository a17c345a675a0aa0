"""CAC plots (matplotlib, Agg): empirical vs predicted overlap with the identity line; TPR vs baseline;
model vs humans per dyad (:func:`plot_dyads`, the eval run's ``cac_dyads.png``).

The first two take any list of :class:`GroupStats` (humans and/or models); points are grouped by
``source``/``role``. Files are written atomically.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from corpusbench.families.cac.records import (
    ADULT_TPR_BASELINE,
    DEGENERATE_BIAS,
    UNIVERSAL_BIAS,
    GroupStats,
)
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


def _dot(
    ax: Any, x: float, y: float, *, marker: str, size: int, colour: str, hollow: bool, zorder: int
) -> None:
    """One point of the dyad panel: filled, or hollow when it rests on too few cases."""
    ax.scatter(
        x,
        y,
        marker=marker,
        s=size,
        zorder=zorder,
        clip_on=False,
        edgecolors=colour,
        facecolors="white" if hollow else colour,
    )


MIN_TPR_CASES = 10  # a dyad's TPR from fewer cases is drawn hollow


def _p(tests: Sequence[Mapping[str, Any]], name: str) -> str:
    """`` (model p=0.123, pass)`` for the test ``name`` among a role's test rows (TestResult.as_row)."""
    t = next((t for t in tests if t.get("name") == name), None)
    p = None if t is None else t.get("p_value")
    if p is None or math.isnan(p):
        return ""
    return f" (model p={p:.3f}, {'pass' if t['passed'] else 'fail'})"


def plot_dyads(
    human: Sequence[GroupStats],
    model: Sequence[GroupStats],
    path: str | Path,
    *,
    tests: Mapping[str, Sequence[Mapping[str, Any]]] | None = None,
    baseline: float = ADULT_TPR_BASELINE,
    bias_level: float = UNIVERSAL_BIAS,
    min_cases: int = MIN_TPR_CASES,
    title: str = "CAC: model vs humans per dyad",
    footnote: str = "",
) -> None:
    """Model vs human overlap, bias and TPR per dyad: one row of panels per role the model was scored
    on, one line per dyad (human ●, model ▲, joined). The overlap is the human empirical (Eq 9) and the
    model expected overlap (Eq 2); bias is Eq 1 / Eq 3 with the adult level and the degenerate limit;
    TPR has the adult baseline, and a dyad's TPR from fewer than ``min_cases`` cases is drawn hollow.
    ``tests`` (per role: the model's test rows) put the D×N and TPR p-values in the panel titles.
    Written at 300 dpi."""
    plt = _pyplot()
    roles = [r for r in ("child", "caretaker") if any(s.role == r for s in model)]
    hum = {(s.dyad, s.role): s for s in human}
    n_dyads = max([1] + [sum(s.role == r for s in model) for r in roles])
    fig, axes = plt.subplots(
        len(roles) or 1,
        3,
        figsize=(10, 0.9 + len(roles or [0]) * (0.9 + 0.26 * n_dyads)),
        squeeze=False,
        sharey="row",
    )
    panels = (
        ("overlap", "D×N overlap", "dxn_overlap", (0.0, None)),
        ("bias", "determiner bias", "", (0.5, 1.0)),
        ("tpr", "TPR", "tpr_vs_adult_baseline", (0.0, None)),
    )
    sparse = False
    for row, role in enumerate(roles):
        rows = sorted((s for s in model if s.role == role), key=lambda s: s.dyad)
        ys = list(range(len(rows)))[::-1]
        for col, (attr, label, test, (lo, hi)) in enumerate(panels):
            ax = axes[row][col]
            for y, m in zip(ys, rows, strict=True):
                h = hum.get((m.dyad, role))
                mv, hv = getattr(m, attr), getattr(h, attr) if h else math.nan
                if not (math.isnan(mv) or math.isnan(hv)):
                    ax.plot([hv, mv], [y, y], color="lightgrey", lw=1, zorder=1)
                hollow_m = attr == "tpr" and m.n_tpr < min_cases
                hollow_h = attr == "tpr" and h is not None and h.n_tpr < min_cases
                sparse |= hollow_m or hollow_h
                if not math.isnan(hv):
                    _dot(ax, hv, y, marker="o", size=28, colour="black", hollow=hollow_h, zorder=2)
                if not math.isnan(mv):
                    _dot(ax, mv, y, marker="^", size=32, colour="tab:blue", hollow=hollow_m, zorder=3)
            if attr == "bias":
                ax.axvline(bias_level, ls="--", color="grey", lw=1)
                ax.axvline(DEGENERATE_BIAS, ls=":", color="firebrick", lw=1)
            if attr == "tpr":
                ax.axvline(baseline, ls="--", color="firebrick", lw=1)
            ax.set_xlim(lo, hi if hi is not None else max(0.1, ax.get_xlim()[1]))
            ax.set_title(
                f"{role}: {label}{_p((tests or {}).get(role, ()), test) if test else ''}", fontsize=9
            )
            ax.set_yticks(ys, [s.dyad for s in rows], fontsize=7)
            ax.tick_params(axis="x", labelsize=8)
            ax.grid(axis="x", color="#eeeeee", lw=0.5)
    handles = [
        plt.Line2D([], [], marker="o", ls="", color="black", label="humans"),
        plt.Line2D([], [], marker="^", ls="", color="tab:blue", label="model"),
        plt.Line2D([], [], ls="--", color="grey", label=f"adult bias {bias_level:g}"),
        plt.Line2D([], [], ls=":", color="firebrick", label=f"degenerate bias {DEGENERATE_BIAS:g}"),
        plt.Line2D([], [], ls="--", color="firebrick", label=f"adult TPR {baseline:g}"),
    ]
    top = 1 - 0.55 / fig.get_figheight()  # title and legend: a fixed 0.55 in at the top
    fig.suptitle(title, fontsize=10, y=1 - 0.1 / fig.get_figheight(), va="top")
    fig.legend(
        handles=handles, loc="lower center", bbox_to_anchor=(0.5, top), ncol=5, fontsize=8, frameon=False
    )
    notes = [footnote] if footnote else []
    if sparse:
        notes.append(f"hollow: TPR from fewer than {min_cases} cases in the dyad")
    fig.tight_layout(rect=(0, 0, 1, top))
    if notes:
        fig.text(0.5, 0, "; ".join(notes), ha="center", va="top", fontsize=7)
    with atomic_path(Path(path)) as tmp:
        fig.savefig(tmp, format="png", dpi=300, bbox_inches="tight", metadata={"Software": None})
    plt.close(fig)
