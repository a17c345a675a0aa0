"""The release card's per-bin table: pairs per bin with the 95% Wilson interval at 0.5, bins without
candidates named."""

from collections import Counter

from corpusbench.eval.metrics import wilson
from corpusbench.families.ltswap.release import bins_markdown


def _meta(cells=None):
    funnel = [{"subtask": "inflswap", "bin": b, "candidates": 0 if b == 0 else 4} for b in range(3)]
    return {"funnel": funnel, **({"cells": cells} if cells else {})}


def test_bins_table_shows_n_and_interval_and_names_empty_bins():
    md = bins_markdown(_meta(), "inflswap", Counter({1: 6, 2: 40}))
    lo, hi = wilson(3, 6)
    assert f"| [1] | 6 | 6 | [{lo:.2f}, {hi:.2f}] |" in md  # k = n without a cluster count
    assert "| [2,4) | 40 |" in md
    assert md.strip().endswith("Bins without candidates in this corpus: [0].")
    assert hi - lo > wilson(20, 40)[1] - wilson(20, 40)[0]  # fewer pairs, wider


def test_per_cell_runs_leave_the_empty_bins_to_the_cell_table():
    md = bins_markdown(_meta(cells=[{"subtask": "inflswap"}]), "inflswap", Counter({1: 6}))
    assert "without candidates" not in md


def test_card_names_the_filter_rule_and_counts_lemmas_per_bin():
    import pandas as pd

    from corpusbench.families.ltswap.release import bins_markdown, clusters_per_bin, filter_line

    point = {"judge": {"rule": "pointwise", "threshold": 0.1, "wordswap_corpus_sentence": False}}
    assert "did not see the corpus sentence" in filter_line(point, "wordswap")
    nonce = {"judge": {"rule": "nonce", "threshold": 0.1, "wordswap_corpus_sentence": True}}
    assert "`nonce`" in filter_line(nonce, "wordswap") and "feasibility game" in filter_line(
        nonce, "wordswap"
    )
    assert "corpus sentence" not in filter_line(nonce, "agrswap")
    own = {"judge": {"rule": "pointwise", "threshold": 0.1, "thresholds_by_subtask": {"wordswap": 0.5}}}
    assert "(threshold 0.5)" in filter_line(own, "wordswap")  # WordSwap's own threshold (#37)
    assert "(threshold 0.1)" in filter_line(own, "inflswap")
    table = pd.DataFrame({"bin": [3, 3, 3, 4], "cluster": ["noise", "noise", "day", "spirit"]})
    k = clusters_per_bin(table)
    assert k == {3: 2, 4: 1}
    md = bins_markdown({"funnel": []}, "agrswap", __import__("collections").Counter({3: 3, 4: 1}), k)
    assert "| [4,8) | 3 | 2 |" in md
