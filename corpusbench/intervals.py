"""The Wilson score interval of one proportion: shared by the eval metrics and the release cards, so
it lives below both (``corpusbench.eval.metrics`` builds the averaged-score intervals on it); and the
error bars every figure draws from such intervals."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

Z95 = 1.959963984540054  # the 97.5% standard normal quantile


def wilson(k: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of the proportion k/n (Wilson 1927; Newcombe 1998, method 3); NaN when n = 0."""
    if n <= 0:
        return float("nan"), float("nan")
    p = k / n
    den = 1 + z * z / n
    mid = (p + z * z / (2 * n)) / den
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    return max(0.0, mid - half), min(1.0, mid + half)


def error_bars(values: Sequence[float], lows: Sequence[float], highs: Sequence[float]) -> Any:
    """matplotlib's ``yerr`` (a 2 x n array) for values with their interval limits: the distance down to each
    lower and up to each upper limit, 0 where a limit is missing (NaN) and never below 0 (rounding can put
    a limit a hair past its value: ``wilson(0, n)``'s lower limit is 5.6e-17, and matplotlib refuses a
    negative bar)."""
    import numpy as np

    ys = np.asarray(values, dtype=float)
    down = np.nan_to_num(ys - np.asarray(lows, dtype=float))
    up = np.nan_to_num(np.asarray(highs, dtype=float) - ys)
    return np.vstack([down, up]).clip(min=0)
