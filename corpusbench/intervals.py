"""The Wilson score interval of one proportion: shared by the eval metrics and the release cards, so
it lives below both (``corpusbench.eval.metrics`` builds the averaged-score intervals on it)."""

from __future__ import annotations

import math

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
