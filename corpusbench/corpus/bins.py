"""Frequency bins shared by the generators.

- LT-Swap: 11 power-of-two bins ``[0], [1], [2,4), [4,8), ..., [256,512), [512, inf)`` indexed 0-10;
  a count ``f`` goes to the largest ``i`` with ``f >= edges[i]``.
- FIT-CLAMS: 10 log-spaced bins over one candidate list, edges ``logspace(log10(min), log10(max), 11)``;
  bin ``i`` holds ``edges[i] < f <= edges[i+1]``, the minimum clipped into bin 0 (``numpy.digitize``
  with ``right=True`` minus one, clipped to 0-9) — the reference's exact computation.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Sequence

import numpy as np

from corpusbench.errors import ConfigError

LTSWAP_EDGES: tuple[float, ...] = (0, 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, math.inf)
LTSWAP_N_BINS = len(LTSWAP_EDGES) - 1  # 11


def ltswap_bin(count: int) -> int:
    """Bin index 0-10 of an absolute count (bin 0 holds only unseen forms)."""
    if count < 0:
        raise ValueError(f"negative count {count}")
    return bisect.bisect_right(LTSWAP_EDGES, count) - 1


def ltswap_bin_label(index: int) -> str:
    lo, hi = LTSWAP_EDGES[index], LTSWAP_EDGES[index + 1]
    if index == 0:
        return "[0]"
    if index == 1:
        return "[1]"
    return f"[{int(lo)},inf)" if math.isinf(hi) else f"[{int(lo)},{int(hi)})"


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
