"""The release card's per-bin table: pairs per bin with the 95% Wilson interval at 0.5, bins without
candidates named."""

from collections import Counter

from corpusbench.eval.metrics import wilson
from corpusbench.publish.adapters.ltswap import bins_markdown


def _meta(cells=None):
    funnel = [{"subtask": "inflswap", "bin": b, "candidates": 0 if b == 0 else 4} for b in range(3)]
    return {"funnel": funnel, **({"cells": cells} if cells else {})}


def test_bins_table_shows_n_and_interval_and_names_empty_bins():
    md = bins_markdown(_meta(), "inflswap", Counter({1: 6, 2: 40}))
    lo, hi = wilson(3, 6)
    assert f"| [1] | 6 | [{lo:.2f}, {hi:.2f}] |" in md
    assert "| [2,4) | 40 |" in md
    assert md.strip().endswith("Bins without candidates in this corpus: [0].")
    assert hi - lo > wilson(20, 40)[1] - wilson(20, 40)[0]  # fewer pairs, wider


def test_per_cell_runs_leave_the_empty_bins_to_the_cell_table():
    md = bins_markdown(_meta(cells=[{"subtask": "inflswap"}]), "inflswap", Counter({1: 6}))
    assert "without candidates" not in md
