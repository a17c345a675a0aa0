"""What the families' benchmark blocks (``results.json`` → ``benchmarks``) share: the tie rule, the
scored-pairs and accuracy-cell types, Fisher z averaging. Each family computes its own block (its
``EvalKind.benchmark`` hook, in ``corpusbench/families/<family>/score.py``); every number, its paper
definition and its key: ``docs/metrics.md``.

One tie rule everywhere (:data:`TIE_RULE`), with the tie-as-half accuracy beside the strict one. Cells with
zero correct pairs are 0.0 (not NaN). 95% intervals: :data:`corpusbench.eval.metrics.INTERVAL`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from corpusbench.eval.records import MinimalPair, PairScore

TIE_RULE = (
    "a pair is correct only when log P(good) > log P(bad); a tie (equal scores) is not a win and "
    "is counted separately (n_ties, tie_share); accuracy_ties_half counts each tie as 0.5"
)

Scored = Sequence[tuple[MinimalPair, PairScore]]
Cells = dict[str, tuple[int, int]]  # key -> (n, n_correct)


def fisher_mean(rhos: Sequence[float | None]) -> float | None:
    """Mean of correlations through Fisher z (|rho| clipped below 1), as the reference averages Spearman."""
    vals = [float(np.clip(r, -0.999999, 0.999999)) for r in rhos if r is not None]
    return float(np.tanh(np.mean(np.arctanh(vals)))) if vals else None
