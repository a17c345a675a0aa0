"""Human-side formulas: Yang's predicted overlap, bias, overlap, TPR and the tests (hand-computed + paper)."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest
from cac_helpers import make_site

from corpusbench.errors import ConfigError
from corpusbench.generators.cac.records import GroupStats
from corpusbench.generators.cac.sites import link_antecedents
from corpusbench.generators.cac.stats import (
    bias_from_counts,
    empirical_overlap,
    human_stats,
    human_tests,
    one_sample_test,
    paired_test,
    tpr_from_sites,
    yang_predicted_overlap,
)

# Paper Table C1 (children; caretakers): N, S, bias, empirical, predicted, n_TPR, TPR.
TABLE_C1 = {
    "Gail": ((316, 863, 0.868, 0.193, 0.148, 224, 0.241), (838, 3578, 0.839, 0.251, 0.217, 286, 0.192)),
    "Dominic": ((123, 323, 0.904, 0.130, 0.132, 172, 0.221), (539, 4205, 0.791, 0.282, 0.417, 188, 0.261)),
    "Becky": ((364, 1385, 0.846, 0.255, 0.212, 438, 0.194), (592, 3519, 0.831, 0.326, 0.304, 548, 0.197)),
    "Liz": ((312, 1291, 0.862, 0.269, 0.217, 373, 0.166), (619, 3022, 0.838, 0.265, 0.252, 410, 0.193)),
    "Carl": ((407, 3684, 0.770, 0.386, 0.494, 910, 0.260), (516, 3669, 0.794, 0.355, 0.389, 1077, 0.208)),
    "Joel": ((336, 1020, 0.889, 0.179, 0.144, 331, 0.145), (819, 3550, 0.836, 0.220, 0.223, 445, 0.133)),
    "Ruth": ((203, 747, 0.798, 0.246, 0.258, 279, 0.272), (707, 4668, 0.796, 0.310, 0.355, 372, 0.183)),
    "Aran": ((376, 1635, 0.813, 0.258, 0.263, 802, 0.261), (1072, 8272, 0.807, 0.312, 0.372, 1079, 0.152)),
    "Anne": ((317, 1170, 0.815, 0.290, 0.233, 500, 0.168), (720, 6083, 0.831, 0.368, 0.386, 657, 0.158)),
    "John": ((333, 1615, 0.807, 0.279, 0.296, 473, 0.307), (740, 3876, 0.789, 0.341, 0.301, 526, 0.276)),
    "Nicole": ((195, 492, 0.860, 0.210, 0.152, 234, 0.214), (833, 4372, 0.836, 0.262, 0.260, 280, 0.179)),
    "Warren": ((397, 2314, 0.782, 0.320, 0.355, 826, 0.262), (854, 6080, 0.797, 0.316, 0.367, 944, 0.265)),
}


@pytest.mark.parametrize(
    ("n", "s", "b", "expected"),
    [
        (316, 863, 0.868, 0.148),
        (838, 3578, 0.839, 0.217),
        (539, 4205, 0.791, 0.417),
        (407, 3684, 0.770, 0.494),
    ],
)
def test_yang_reproduces_paper_table_c1(n, s, b, expected):
    # The paper prints b rounded to 3 d.p.; with the printed b, E is 0.1475, 0.2171, 0.4171 and 0.4947
    # (reference check A1), so two rows land one unit off in the 3rd decimal. With b inside its rounding
    # interval the printed value is hit exactly:
    got = yang_predicted_overlap(n, s, b)
    assert got == pytest.approx(expected, abs=1e-3)
    hit = [round(yang_predicted_overlap(n, s, b + d), 3) for d in np.linspace(-5e-4, 5e-4, 21)]
    assert expected in hit


def test_yang_matches_all_24_table_c1_rows_within_bias_rounding():
    for child, care in TABLE_C1.values():
        for n, s, b, _emp, pred, *_ in (child, care):
            lo, hi = sorted((yang_predicted_overlap(n, s, b - 5e-4), yang_predicted_overlap(n, s, b + 5e-4)))
            assert lo - 5e-4 <= pred <= hi + 5e-4, (n, s, b, pred, lo, hi)


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


def test_tests_reproduce_paper_human_results():
    rows = [
        GroupStats(
            source="human",
            dyad=d,
            role=role,
            n_types=r[0],
            n_tokens=r[1],
            bias=r[2],
            overlap=r[3],
            predicted_overlap=r[4],
            n_tpr=r[5],
            tpr=r[6],
        )
        for d, pair in TABLE_C1.items()
        for role, r in zip(("child", "caretaker"), pair, strict=True)
    ]
    res = {(t.name, t.role): t for t in human_tests(rows)}
    # Paper §4: TPR vs 0.2155: children t = 0.724, p = 0.484; caretakers p = 0.256 (rounded table: 0.260).
    t = res[("tpr_vs_adult_baseline", "child")]
    assert (round(t.statistic, 3), round(t.p_value, 3), t.passed, t.n) == (0.724, 0.484, True, 12)
    assert res[("tpr_vs_adult_baseline", "caretaker")].p_value == pytest.approx(0.256, abs=0.01)
    # D×N paired tests: paper p = 0.527 (children) and 0.191 (caretakers); the table is rounded to 3 d.p.
    assert res[("dxn_overlap", "child")].p_value == pytest.approx(0.527, abs=0.01)
    assert res[("dxn_overlap", "caretaker")].p_value == pytest.approx(0.191, abs=0.01)
    # Children vs caretakers TPR, paired: paper p = 0.064.
    assert res[("tpr_child_vs_caretaker", "child-caretaker")].p_value == pytest.approx(0.064, abs=0.005)


def test_tests_refuse_too_few_dyads():
    t = paired_test([0.3], [0.2], name="x", role="child")
    assert t.passed is None and "needs >= 2" in t.note and math.isnan(t.p_value)
    t = one_sample_test([0.2, 0.3, 0.9], 0.2155, name="x", role="child", alpha=0.5)
    assert t.passed is not None and t.n == 3
