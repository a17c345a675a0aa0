"""Human-side formulas: Yang's predicted overlap, bias, overlap, TPR and the tests (hand-computed)."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest
from cac_helpers import make_site

from corpusbench.errors import ConfigError
from corpusbench.families.cac.records import GroupStats
from corpusbench.families.cac.sites import link_antecedents
from corpusbench.families.cac.stats import (
    bias_from_counts,
    empirical_overlap,
    human_stats,
    human_tests,
    one_sample_test,
    paired_test,
    tpr_from_sites,
    yang_predicted_overlap,
)

# The paper's tables (Table C1: Yang's prediction, the §4 tests) are checked in
# tests/conformance/test_cac_paper.py; here: hand-computed cases.


def test_yang_hand_computed_cases():
    # One noun type, two tokens, b = 0.5: overlap iff the two tokens differ -> 0.5.
    assert yang_predicted_overlap(1, 2, 0.5) == pytest.approx(0.5)
    # One token can never show both determiners.
    assert yang_predicted_overlap(2, 1, 0.8) == pytest.approx(0.0, abs=1e-15)
    # N = 2, S = 2: E_r = 2 b (1-b) p_r^2 with p = (2/3, 1/3): mean = 0.32 * (4/9 + 1/9) / 2 = 4/45.
    assert yang_predicted_overlap(2, 2, 0.8) == pytest.approx(4 / 45)
    # b = 1: every noun shows one determiner only.
    assert yang_predicted_overlap(50, 500, 1.0) == pytest.approx(0.0, abs=1e-12)
    assert math.isnan(yang_predicted_overlap(0, 10, 0.8))
    # The Zipf exponent matters (reference check A1: a = 0.9 / 1.1 give ~0.169 / ~0.127 for Gail child).
    assert yang_predicted_overlap(316, 863, 0.868, 0.9) == pytest.approx(0.169, abs=1e-3)
    assert yang_predicted_overlap(316, 863, 0.868, 1.1) == pytest.approx(0.127, abs=1e-3)


def test_yang_agrees_with_simulation_of_a_productive_grammar():
    rng = np.random.default_rng(0)
    n, s, b, reps = 40, 120, 0.75, 4000
    p = 1 / np.arange(1, n + 1)
    p /= p.sum()
    fav = rng.integers(0, 2, n)  # each noun's favourite determiner
    vals = []
    for _ in range(reps):
        nouns = rng.choice(n, size=s, p=p)
        dets = np.where(rng.random(s) < b, fav[nouns], 1 - fav[nouns])
        seen = np.zeros((n, 2), bool)
        seen[nouns, dets] = True
        vals.append(seen.all(axis=1).sum() / n)  # Yang averages over all N ranks
    assert np.mean(vals) == pytest.approx(yang_predicted_overlap(n, s, b), abs=0.004)


def test_bias_and_overlap_from_counts():
    counts = {"dog": Counter(the=3, a=1), "cat": Counter(a=2), "ball": Counter(the=1, a=1)}
    assert bias_from_counts(counts) == pytest.approx((3 + 2 + 1) / 8)
    assert empirical_overlap(counts, ("the", "a")) == pytest.approx(2 / 3)
    with pytest.raises(ConfigError, match="exactly two"):
        empirical_overlap(counts, ("this", "that", "the"))


def test_tpr_cases_hand_computed():
    seq = [
        make_site(0, "caretaker", "the", "dog"),
        make_site(1, "child", "a", "dog"),  # case (after caretaker), switch
        make_site(2, "caretaker", "the", "ball"),
        make_site(3, "child", "the", "ball"),  # case, no switch
        make_site(4, "child", "a", "ball"),  # latest by the child itself: not a case
        make_site(5, "caretaker", "a", "ball"),  # case (after child 'a'), no switch
        make_site(6, "other", "the", "ball"),  # investigator: neither counts nor resets
        make_site(7, "child", "the", "ball"),  # case: latest dyad mention is caretaker 'a' (pos 5) -> switch
        make_site(9, "child", "a", "cup"),  # first mention: no antecedent
    ]
    linked = list(link_antecedents(seq))
    assert [s.tpr_case for s in linked] == [False, True, False, True, False, True, False, True, False]
    assert linked[7].prev_site_id == "f:5:0" and linked[7].prev_distance == 2 and linked[7].prev_choice == "a"
    assert linked[4].prev_role == "child" and linked[8].prev_site_id is None
    child = [s for s in linked if s.role == "child"]
    assert tpr_from_sites(child) == (3, pytest.approx(2 / 3))
    assert tpr_from_sites([s for s in linked if s.role == "caretaker"]) == (1, 0.0)
    stats = {s.role: s for s in human_stats(linked)}
    assert set(stats) == {"child", "caretaker"}  # "other" gets no statistics
    c = stats["child"]
    assert (c.n_types, c.n_tokens, c.n_tpr) == (3, 5, 3)
    assert c.bias == pytest.approx((1 + 2 + 1) / 5)  # dog: a1; ball: the2 a1; cup: a1
    assert c.overlap == pytest.approx(1 / 3)
    assert c.predicted_overlap == pytest.approx(yang_predicted_overlap(3, 5, 0.8))


def test_tests_refuse_too_few_dyads():
    t = paired_test([0.3], [0.2], name="x", role="child")
    assert t.passed is None and "needs >= 2" in t.note and math.isnan(t.p_value)
    t = one_sample_test([0.2, 0.3, 0.9], 0.2155, name="x", role="child", alpha=0.5)
    assert t.passed is not None and t.n == 3


def test_human_tests_section4_set_and_pairing():
    """Per role: D×N, TPR vs 0.2155, bias vs 0.82; children vs caretakers paired over dyads with both."""

    def g(dyad: str, role: str, bias: float, overlap: float, tpr: float) -> GroupStats:
        return GroupStats(source="human", dyad=dyad, role=role, n_types=10, n_tokens=30, bias=bias,
                          overlap=overlap, predicted_overlap=overlap + 0.01, n_tpr=5, tpr=tpr)  # fmt: skip

    rows = [
        g("a", "child", 0.80, 0.20, 0.20),
        g("a", "caretaker", 0.85, 0.30, 0.25),
        g("b", "child", 0.90, 0.10, 0.30),
        g("b", "caretaker", 0.84, 0.35, 0.20),
        g("c", "child", 0.70, 0.40, 0.10),  # no caretaker: left out of the paired comparisons
    ]
    res = {(t.name, t.role): t for t in human_tests(rows, bias_level=0.8)}
    assert set(res) == {
        *((n, r) for n in ("dxn_overlap", "tpr_vs_adult_baseline", "bias_vs_adult_level")
          for r in ("child", "caretaker")),
        *((f"{w}_child_vs_caretaker", "child-caretaker") for w in ("tpr", "bias", "overlap")),
    }  # fmt: skip
    bias = res[("bias_vs_adult_level", "child")]
    assert bias.n == 3 and bias.mean_a == pytest.approx(0.8) and bias.mean_b == 0.8
    assert bias.statistic == pytest.approx(0.0) and bias.passed is True
    paired = res[("bias_child_vs_caretaker", "child-caretaker")]
    assert paired.n == 2 and paired.mean_a == pytest.approx(0.85) and paired.mean_b == pytest.approx(0.845)
    ov = res[("overlap_child_vs_caretaker", "child-caretaker")]
    # differences -0.10, -0.25: t = mean / (sd / sqrt 2) = -0.175 / (0.106066 / 1.41421) = -2.3333
    assert ov.statistic == pytest.approx(-2.33333, abs=1e-4)
