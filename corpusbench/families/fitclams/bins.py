"""FIT-CLAMS's frequency bins: 10 log-spaced bins over one candidate list, edges
``logspace(log10(min), log10(max), 11)``; bin ``i`` holds ``edges[i] < f <= edges[i+1]``, the minimum
clipped into bin 0 (``numpy.digitize`` with ``right=True`` minus one, clipped to 0-9) — the reference's
exact computation."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from corpusbench.errors import ConfigError


def log_bin_edges(counts: Sequence[float], n_bins: int = 10) -> np.ndarray:
    """FIT-CLAMS edges: ``n_bins + 1`` log-spaced values from min to max of ``counts``."""
    if len(counts) == 0:
        raise ConfigError("cannot compute frequency bins of an empty candidate list")
    lo, hi = float(min(counts)), float(max(counts))
    if lo <= 0:
        raise ConfigError(f"log-spaced bins need positive counts (minimum is {lo})")
    return np.logspace(np.log10(lo), np.log10(hi), n_bins + 1)


def log_bins(counts: Sequence[float], edges: np.ndarray | None = None, n_bins: int = 10) -> list[int]:
    """FIT-CLAMS bin index (0..n_bins-1) for each count, with the reference's edge semantics."""
    if edges is None:
        edges = log_bin_edges(counts, n_bins)
    n = len(edges) - 1
    idx = np.clip(np.digitize(np.asarray(counts, dtype=float), edges, right=True) - 1, 0, n - 1)
    return [int(i) for i in idx]
