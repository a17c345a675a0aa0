"""LT-Swap's frequency bins: 11 power-of-two bins ``[0], [1], [2,4), [4,8), ..., [256,512), [512, inf)``
indexed 0-10; a count ``f`` goes to the largest ``i`` with ``f >= edges[i]``."""

from __future__ import annotations

import bisect
import math
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.table import Table

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


def bins_table(stats: Path) -> Table:
    """Noun and verb types per LT-Swap frequency bin of a stats folder: what the generator will draw from
    (the family's ``stats_view``, printed by ``corpusbench stats``)."""
    from rich.table import Table

    from corpusbench.corpus.store import CorpusStats

    c = CorpusStats.load(stats).counts
    table = Table(title="noun and verb forms per LT-Swap frequency bin")
    table.add_column("bin")
    for pos in ("NOUN", "VERB"):
        table.add_column(pos, justify="right")
    per_pos = {}
    for pos in ("NOUN", "VERB"):
        sub = c[c["pos"] == pos].groupby("form")["count"].sum()
        hist = [0] * LTSWAP_N_BINS
        for n in sub.to_numpy():
            hist[ltswap_bin(int(n))] += 1
        per_pos[pos] = hist
    for b in range(1, LTSWAP_N_BINS):
        table.add_row(ltswap_bin_label(b), *(f"{per_pos[p][b]:,}" for p in ("NOUN", "VERB")))
    return table
