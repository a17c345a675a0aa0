"""LT-Swap eval numbers (#37): WordSwap per part of speech, and cell intervals clustered by lemma."""

from __future__ import annotations

from corpusbench.eval.records import MinimalPair, PairScore
from corpusbench.families.ltswap.score import _ltswap_matrix, cluster_bootstrap


def _pair(n: int, pos: str, ok: bool, cluster: str) -> tuple[str, MinimalPair, PairScore]:
    p = MinimalPair(id=f"p{n}", good="a", bad="b", group=pos, bin=3, meta=(("cluster", cluster),))
    s = PairScore(id=f"p{n}", config="c", logprob_good=-1.0 if ok else -3.0, logprob_bad=-2.0,
                  n_tokens_good=1, n_tokens_bad=1)  # fmt: skip
    return "wordswap", p, s


def test_wordswap_by_pos_and_clustered_cells() -> None:
    rows = [_pair(0, "NOUN", True, "otter"), _pair(1, "NOUN", True, "otter"), _pair(2, "VERB", False, "mend")]
    out = _ltswap_matrix(rows)
    assert out is not None
    assert out["wordswap_by_pos"]["NOUN"]["n"] == 2 and out["wordswap_by_pos"]["VERB"]["accuracy"] == 0.0
    lo, hi = out["cells_cluster_ci95"]["wordswap|3"]
    assert 0.0 <= lo <= 2 / 3 <= hi <= 1.0


def test_cluster_bootstrap_is_wider_when_pairs_share_a_lemma() -> None:
    alike = [(f"l{k // 4}", k // 4 % 2 == 0) for k in range(40)]  # 10 lemmas, 4 identical outcomes each
    apart = [(f"l{k}", k % 2 == 0) for k in range(40)]
    lo_a, hi_a = cluster_bootstrap(alike)
    lo_b, hi_b = cluster_bootstrap(apart)
    assert hi_a - lo_a > hi_b - lo_b
    assert cluster_bootstrap(alike) == [lo_a, hi_a]  # seeded
