"""Substitutable precision/recall and the gold-standard measures on hand-computed cases."""

from __future__ import annotations

import pytest

from corpusbench.families.frames.metrics import (
    UNCLUSTERED,
    contingency,
    f_score,
    gold_scores,
    pairwise_table,
    spearman,
    substitutable_pr,
    with_unclustered,
    word_distributions,
)

S = [{"a", "b", "c"}, {"a", "d"}]


def test_sp_sr_hand_computed() -> None:
    # pairs: clusters 3*2 + 2*1 + 3*2 = 14; S-clusters 3*2 + 2*1 = 8
    # shared: s1∩C1 = {a, b} -> 2, s2∩C1 = {a, d} -> 2, everything else < 2 -> 0
    clusters = {"C1": {"a", "b", "d"}, "C2": {"c", "e"}, "C3": {"f", "g", "h"}}
    s = substitutable_pr(S, clusters)
    assert (s.shared_pairs, s.cluster_pairs, s.class_pairs) == (4, 14, 8)
    assert s.precision == pytest.approx(2 / 7) and s.recall == pytest.approx(0.5)
    assert s.f == pytest.approx(4 / 11)


def test_overlapping_clusters_count_in_each() -> None:
    # a is in C1 and C2: s1∩C2 = {a, c} now adds 2; C2 grows to 3 words (6 pairs)
    clusters = {"C1": {"a", "b", "d"}, "C2": {"a", "c", "e"}}
    s = substitutable_pr(S, clusters)
    assert (s.shared_pairs, s.cluster_pairs) == (6, 12)
    assert s.precision == pytest.approx(0.5) and s.recall == pytest.approx(0.75)


def test_singletons_and_unclustered_conditions() -> None:
    assert substitutable_pr(S, {}).precision == 0.0 and substitutable_pr([], {"C": {"a", "b"}}).recall == 0.0
    clusters = {"C1": {"a", "b"}}
    split = substitutable_pr(S, with_unclustered(clusters, {"a", "b", "c", "d"}, "split"))
    merge = substitutable_pr(S, with_unclustered(clusters, {"a", "b", "c", "d"}, "merge"))
    assert split.shared_pairs == 2 and split.cluster_pairs == 2
    # merge: {c, d} become one cluster; no S-cluster holds both, so only the denominator grows
    assert merge.shared_pairs == 2 and merge.cluster_pairs == 4
    assert with_unclustered(clusters, {"a", "c"}, "merge")[UNCLUSTERED] == {"c"}


GOLD = {"the": {"DET": 10.0}, "cat": {"NOUN": 4.0}, "dog": {"NOUN": 2.0}, "run": {"VERB": 3.0, "NOUN": 1.0}}


def test_gold_measures_hand_computed() -> None:
    dist = word_distributions({"k0": {"the"}, "k1": {"cat", "dog", "run"}})
    g = gold_scores(contingency(dist, GOLD))
    # n(k0,DET)=10, n(k1,NOUN)=7, n(k1,VERB)=3 -> MA = 17/20
    assert g.matched_accuracy == pytest.approx(0.85)
    # same-cluster same-tag pairs 90+42+6 = 138; cluster pairs 90+90; tag pairs 90+42+6
    assert g.pairwise_precision == pytest.approx(138 / 180) and g.pairwise_recall == pytest.approx(1.0)
    assert g.pairwise_f == pytest.approx(f_score(138 / 180, 1.0)) and g.tokens == 20


def test_gold_unclustered_split_vs_merge() -> None:
    dist = word_distributions({"k1": {"cat", "dog"}})
    split = gold_scores(contingency(dist, GOLD, "split"))
    merge = gold_scores(contingency(dist, GOLD, "merge"))
    assert split.matched_accuracy == pytest.approx((10 + 3 + 6) / 20) and split.n_clusters == 3
    assert merge.matched_accuracy == pytest.approx((10 + 6) / 20) and merge.n_clusters == 2


def test_overlapping_words_share_tokens_by_cluster_size() -> None:
    dist = word_distributions({"big": {"x", "y", "z"}, "small": {"x"}})
    assert dist["x"] == {"big": pytest.approx(0.75), "small": pytest.approx(0.25)}
    table = contingency(dist, {"x": {"NOUN": 4.0}})
    assert table == {("NOUN", "big"): pytest.approx(3.0), ("NOUN", "small"): pytest.approx(1.0)}


def test_token_unit_sp_sr_hand_computed() -> None:
    # frame f1 holds 3 tokens of cluster A and 1 of B; frame f2 holds 2 of A and 2 of B.
    # shared = 3*2 + 0 + 2*1 + 2*1 = 10; frame pairs 4*3 + 4*3 = 24; cluster pairs A 5*4 + B 3*2 = 26
    s = pairwise_table({("f1", "A"): 3, ("f1", "B"): 1, ("f2", "A"): 2, ("f2", "B"): 2})
    assert (s.shared_pairs, s.class_pairs, s.cluster_pairs) == (10, 24, 26)
    assert s.precision == pytest.approx(10 / 26) and s.recall == pytest.approx(10 / 24)
    # every token its own cluster: nothing shared; one cluster for all: SR = 1
    assert pairwise_table({("f1", i): 1 for i in range(4)}).recall == 0.0
    assert pairwise_table({("f1", "A"): 4, ("f2", "A"): 4}).recall == 1.0


def test_token_unit_through_words() -> None:
    # S-cluster token counts per word, a type clustering, split vs merge of the unclustered word "x"
    counts = {"a": {"f1": 2.0}, "b": {"f1": 1.0, "f2": 1.0}, "x": {"f2": 2.0}}
    dist = word_distributions({"K": {"a", "b"}})
    split = pairwise_table(contingency(dist, counts, "split"))
    # f1: K 3 -> 6; f2: K 1, <x> 2 -> 2; clusters K 4 -> 12, <x> 2 -> 2; frames f1 3 -> 6, f2 3 -> 6
    assert (split.shared_pairs, split.cluster_pairs, split.class_pairs) == (8, 14, 12)
    merge = pairwise_table(contingency(dist, counts, "merge"))
    assert merge.shared_pairs == 8 and merge.cluster_pairs == 14  # "x" alone in the merged cluster


def test_spearman_ranks() -> None:
    rho, p = spearman([1, 2, 3, 4], [10, 20, 30, 40])
    assert rho == pytest.approx(1.0) and p < 0.1
    assert spearman([1, 2, 3, 4], [4, 3, 2, 1])[0] == pytest.approx(-1.0)
    rho, _ = spearman([1, 2, 3], [5, 5, 5])
    assert rho != rho  # undefined for a constant input
