"""Metrics of the three papers over :class:`PairScore` records.

- Pairwise accuracy: good wins strictly; a tie is not a win and is counted (``n_ties``, ``tie_share``),
  with the tie-as-half accuracy beside it (``accuracy_ties_half``: a tie counts 0.5, as a coin flip).
- 95% intervals honest at small n: the Wilson score interval for one proportion, and for a score that
  averages several cells (a family's score over bins, subtasks or paradigms) the MOVER combination of the
  cells' Wilson limits (Zou & Donner 2008; Newcombe 1998): never zero-width at 0/n or n/n.
- Spearman, the spread ratio across models, the smoothed log count and the OLS (statsmodels) of
  ΔP = log P(good) - log P(bad) on z-scored predictors. The benchmark scores that combine them are the
  families' (``corpusbench/families/<family>/score.py``).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from corpusbench.eval.records import PairScore
from corpusbench.intervals import Z95 as Z95  # re-exported, as wilson: they live below eval and publish
from corpusbench.intervals import wilson as wilson


def interval_note() -> str:
    """How the 95% intervals are made (``results.json`` ``interval``, summary.md, compare's notes), naming
    the scores that average cells (each family's ``EvalKind.averaged``, under its title)."""
    from corpusbench.family import families

    averaged = "; ".join(
        f"{f.title} {', '.join(f.eval.averaged)}" for f in families.with_eval() if f.eval and f.eval.averaged
    )
    return (
        "95% Wilson score interval for one proportion; for a score that averages cells"
        + (f" ({averaged})" if averaged else "")
        + ", the MOVER combination of the cells' Wilson limits (Zou & Donner 2008)"
    )


def mover(parts: Sequence[tuple[float, float, float, float]]) -> tuple[float, float]:
    """95% interval of ``sum(w * p)`` from ``(w, p, lo, hi)`` per cell (w > 0; lo, hi: each p's interval):
    MOVER, ``L - sqrt(sum (w (p - lo))²)``, ``L + sqrt(sum (w (hi - p))²)`` (Zou & Donner 2008)."""
    parts = [x for x in parts if not math.isnan(x[2])]
    if not parts:
        return float("nan"), float("nan")
    est = sum(w * p for w, p, _, _ in parts)
    down = math.sqrt(sum((w * (p - lo)) ** 2 for w, p, lo, _ in parts))
    up = math.sqrt(sum((w * (hi - p)) ** 2 for w, p, _, hi in parts))
    return max(0.0, est - down), min(1.0, est + up)


def cells_interval(cells: Mapping[str, tuple[int, int]], weights: Mapping[str, float]) -> list[float]:
    """95% interval of ``sum(weights[k] * n_correct_k / n_k)`` over cells ``{k: (n, n_correct)}``: Wilson
    for one cell, MOVER over the cells' Wilson limits for several."""
    parts = []
    for k, w in weights.items():
        n, c = cells[k]
        if n and w:
            parts.append((w, c / n, *wilson(c, n)))
    lo, hi = mover(parts)  # one cell of weight 1: its Wilson interval
    return [float(lo), float(hi)]


def accuracy_cell(scores: Sequence[PairScore]) -> dict[str, Any]:
    """Strict accuracy (ties are not wins) with its Wilson 95% interval, ties (count, share) and the
    tie-as-half accuracy; ``mean_delta`` = mean log P(good) - log P(bad)."""
    n = len(scores)
    correct = sum(s.correct for s in scores)
    ties = sum(s.logprob_good == s.logprob_bad for s in scores)
    deltas = [s.delta for s in scores]
    return {
        "accuracy": correct / n if n else None,
        "ci95": list(wilson(correct, n)) if n else None,
        "n": n,
        "n_correct": correct,
        "n_ties": ties,
        "tie_share": ties / n if n else None,
        "accuracy_ties_half": (correct + 0.5 * ties) / n if n else None,
        "mean_delta": float(np.mean(deltas)) if n else None,
    }


def group_by(
    scores: Iterable[PairScore], key: Callable[[PairScore], Hashable]
) -> dict[Hashable, list[PairScore]]:
    out: dict[Hashable, list[PairScore]] = defaultdict(list)
    for s in scores:
        k = key(s)
        if k is not None:
            out[k].append(s)
    return dict(sorted(out.items(), key=lambda kv: (str(type(kv[0])), kv[0])))


def spearman(x: Sequence[float], y: Sequence[float]) -> dict[str, float | None]:
    from scipy.stats import spearmanr

    if len(x) < 3 or len(set(y)) < 2:
        return {"rho": None, "p": None}
    res = spearmanr(x, y)
    return {"rho": float(res.statistic), "p": float(res.pvalue)}


def spread_ratio(avg_bin_by_model: Mapping[str, Mapping[str, float]]) -> float | None:
    """(max - min across models in the lowest bin) / (max - min across models in the highest bin), over
    the bins every model has: the series' own lowest bin (a series without bin 0 starts at bin 1)."""
    common = set.intersection(*(set(m) for m in avg_bin_by_model.values())) if avg_bin_by_model else set()
    if len(avg_bin_by_model) < 2 or len(common) < 2:
        return None
    lo, hi = min(common, key=int), max(common, key=int)
    low = [m[lo] for m in avg_bin_by_model.values()]
    high = [m[hi] for m in avg_bin_by_model.values()]
    den = max(high) - min(high)
    return (max(low) - min(low)) / den if den > 0 else None


def smoothed_log_count(count: float) -> float:
    """A count as a regression predictor: ln(c) for c >= 2, ln 1.5 for c = 1, 0 when absent."""
    if count is None or (isinstance(count, float) and math.isnan(count)) or count <= 0:
        return 0.0
    return math.log(1.5) if count < 2 else math.log(count)


def ols(y: Sequence[float], columns: Mapping[str, Sequence[float]]) -> dict[str, Any] | None:
    """OLS (statsmodels) of ``y`` on z-scored predictors (population sd) with an intercept.

    Returns n, R², adjusted R², and per term (``const`` and each predictor) the coefficient,
    standard error, t and two-sided p-value; ``None`` when no predictor varies or n <= terms.
    """
    import statsmodels.api as sm

    names = [k for k, v in columns.items() if np.std(np.asarray(v, dtype=float)) > 0]
    n = len(y)
    if not names or n <= len(names) + 1:
        return None
    x = np.column_stack(
        [(np.asarray(columns[k], float) - np.mean(columns[k])) / np.std(columns[k]) for k in names]
    )
    yv = np.asarray(y, dtype=float)
    fit = sm.OLS(yv, sm.add_constant(x, has_constant="add")).fit()
    terms = ["const", *names]

    def vals(a: Any) -> dict[str, float]:
        return {k: float(v) for k, v in zip(terms, np.asarray(a), strict=True)}

    finite = np.isfinite(fit.rsquared)
    return {
        "n": n,
        "r2": float(fit.rsquared) if finite else None,
        "r2_adj": float(fit.rsquared_adj) if finite else None,
        "coef": vals(fit.params),
        "se": vals(fit.bse),
        "t": vals(fit.tvalues),
        "p": vals(fit.pvalues),
    }


def config_metrics(scores: Sequence[PairScore]) -> dict[str, Any]:
    """Everything reported for one config: overall, per group, per bin, group × bin.

    The benchmark numbers (a family's score, its regressions...) span several configs and come from the
    release's roles: each family's ``EvalKind.benchmark``.
    """
    out: dict[str, Any] = accuracy_cell(scores)
    by_group = group_by(scores, lambda s: s.group)
    by_bin = group_by(scores, lambda s: s.bin)
    out["by_group"] = {str(k): accuracy_cell(v) for k, v in by_group.items()}
    out["by_bin"] = {str(k): accuracy_cell(v) for k, v in by_bin.items()}
    out["by_group_bin"] = {
        f"{g}|{b}": accuracy_cell(v)
        for (g, b), v in group_by(
            scores, lambda s: None if s.group is None or s.bin is None else (s.group, s.bin)
        ).items()
    }
    out["macro_groups"] = (
        float(np.mean([c["accuracy"] for c in out["by_group"].values()])) if by_group else None
    )
    return out
