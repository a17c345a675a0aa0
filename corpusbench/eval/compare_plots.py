"""Figures of ``corpusbench compare``: the families' figures and what they share.

Each family names its figures (``EvalKind.figures``); :func:`plot_all` draws those of the families the
runs have. Every figure is titled and axis-labelled, shows n, draws 95% intervals (as the table: Wilson,
MOVER for averaged scores), dodges models along x so markers and bars do not overlap, and keeps the
legend outside the axes. Points with fewer than ``MIN_N`` pairs are drawn hollow; points with ties get a
grey tick at the tie-as-half accuracy.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from corpusbench.eval.plots import Point, draw_lines
from corpusbench.eval.runs import Run
from corpusbench.family import families, load


def model_lines(
    ax: Any, runs: Sequence[Run], series: Callable[[Run], dict[str, dict[int, Point]]]
) -> dict[int, int]:
    """One line per model and series label (``plots.draw_lines``); the largest n per bin."""
    return draw_lines(ax, [(f"{r.label} {lab}".strip(), pts) for r in runs for lab, pts in series(r).items()])


def plot_all(runs: Sequence[Run], out: Path, *, n_boot: int = 2000, seed: int = 0) -> list[str]:
    """Each family's compare figures (its ``figures`` hooks, family order) for the runs that have its
    block; returns the file names written."""
    made = []
    for family in families.with_eval():
        if family.eval is not None and any(r.bench.get(family.name) for r in runs):
            made += [load(fig)(runs, out, n_boot=n_boot, seed=seed) for fig in family.eval.figures]
    return [m for m in made if m]
