"""Hand-computed cases for every metric."""

from __future__ import annotations

import math

import numpy as np
import pytest

from corpusbench.eval.metrics import (
    accuracy_cell,
    cells_interval,
    config_metrics,
    mover,
    ols,
    smoothed_log_count,
    spread_ratio,
    wilson,
)
from corpusbench.eval.records import PairScore


def ps(i, good, bad, group=None, bin=None):
    return PairScore(
        id=str(i),
        config="c",
        logprob_good=good,
        logprob_bad=bad,
        n_tokens_good=1,
        n_tokens_bad=1,
        group=group,
        bin=bin,
    )


def test_accuracy_ties_are_not_wins_and_counted():
    cell = accuracy_cell([ps(0, -1, -2), ps(1, -2, -2), ps(2, -3, -1), ps(3, -1, -5)])
    assert cell["accuracy"] == 0.5 and cell["n_ties"] == 1 and cell["n_correct"] == 2
    assert cell["mean_delta"] == pytest.approx((1 + 0 - 2 + 4) / 4)
    # the tie beside the strict accuracy: its share and the accuracy with a tie counted as half a win
    assert cell["tie_share"] == 0.25 and cell["accuracy_ties_half"] == pytest.approx(2.5 / 4)
    assert cell["ci95"] == pytest.approx(list(wilson(2, 4)))


@pytest.mark.parametrize(
    ("k", "n", "low", "high"),
    [  # Newcombe (1998), Stat. Med. 17:857, Table II, method 3 (Wilson score, no continuity correction)
        (81, 263, 0.2553, 0.3662),
        (15, 148, 0.0624, 0.1605),
        (0, 20, 0.0000, 0.1611),
        (1, 29, 0.0061, 0.1718),
    ],
)
def test_wilson_interval_matches_the_published_table(k, n, low, high):
    lo, hi = wilson(k, n)
    assert (round(lo, 4), round(hi, 4)) == (low, high)


def test_small_n_intervals_are_never_zero_width():
    """What the percentile bootstrap of Binomial(n, k/n) gave as [0, 0] and [1, 1] at n = 2."""
    lo, hi = wilson(0, 2)
    assert lo == 0.0 and hi == pytest.approx(3.8415 / 5.8415, abs=1e-4)  # z² / (n + z²)
    lo, hi = wilson(2, 2)
    assert hi == 1.0 and lo == pytest.approx(2 / 5.8415, abs=1e-4)
    assert all(math.isnan(x) for x in wilson(0, 0))


def test_mover_for_a_mean_of_cells_by_hand():
    """Mean of two cells (weights 1/2), MOVER (Zou & Donner 2008): lower L - sqrt(Σ (w (p - l))²), upper
    L + sqrt(Σ (w (u - p))²), with (l, u) each cell's Wilson interval."""
    (l1, u1), (l2, u2) = wilson(3, 4), wilson(1, 4)
    lo, hi = cells_interval({"a": (4, 3), "b": (4, 1)}, {"a": 0.5, "b": 0.5})
    assert lo == pytest.approx(0.5 - math.sqrt((0.5 * (0.75 - l1)) ** 2 + (0.5 * (0.25 - l2)) ** 2))
    assert hi == pytest.approx(0.5 + math.sqrt((0.5 * (u1 - 0.75)) ** 2 + (0.5 * (u2 - 0.25)) ** 2))
    assert cells_interval({"a": (4, 3)}, {"a": 1.0}) == pytest.approx([l1, u1])  # one cell: Wilson
    assert mover([(1.0, 0.0, 0.0, 0.5), (1.0, 0.0, 0.0, 0.5)])[0] == 0.0  # clipped at 0


def test_spread_ratio():
    models = {"m1": {"1": 0.55, "5": 0.90}, "m2": {"1": 0.75, "5": 0.95}, "m3": {"1": 0.60, "5": 0.93}}
    assert spread_ratio(models) == pytest.approx(0.20 / 0.05)
    assert spread_ratio({"m1": models["m1"]}) is None
    # the series' own lowest bin: bin 0 when the series has it (nothing is skipped)
    with_zero = {k: {"0": v["1"] - 0.1 * i, **v} for i, (k, v) in enumerate(models.items())}
    assert spread_ratio(with_zero) == pytest.approx((0.65 - 0.40) / 0.05)  # bin 0: .55, .65, .40


def test_smoothed_log_count_and_ols():
    assert smoothed_log_count(0) == 0.0 and smoothed_log_count(1) == pytest.approx(math.log(1.5))
    assert smoothed_log_count(20) == pytest.approx(math.log(20))
    rng = np.random.default_rng(0)
    x1, x2 = rng.normal(size=50), rng.normal(size=50)
    z1, z2 = (x1 - x1.mean()) / x1.std(), (x2 - x2.mean()) / x2.std()
    y = 1.25 + 0.6 * z1 - 0.25 * z2
    fit = ols(list(y), {"a": list(x1), "b": list(x2)})
    assert fit["r2"] == pytest.approx(1.0)
    assert fit["coef"] == pytest.approx({"const": 1.25, "a": 0.6, "b": -0.25})
    noisy = ols(list(y + rng.normal(scale=0.5, size=50)), {"a": list(x1), "b": list(x2)})
    assert 0 < noisy["r2"] < 1 and set(noisy["p"]) == {"const", "a", "b"}
    assert ols([1.0, 2.0], {"a": [1.0, 2.0]}) is None and ols([1.0, 2.0, 3.0], {"a": [5.0] * 3}) is None


def test_ols_hand_computed():
    """y = (1, 2, 4) on x = (1, 2, 3), x z-scored with the population sd sqrt(2/3), worked by hand:
    slope on x 1.5 -> on z 1.5 sqrt(2/3); const = mean y = 7/3; SSR = 1/6, SST = 14/3, R² = 27/28;
    sigma² = SSR/(n-2) = 1/6; SE(z) = sqrt(sigma²/Sxx) sqrt(2/3) = sqrt(1/18); SE(const) = sqrt(1/18);
    t(z) = 3 sqrt(3); df = 1 (Cauchy): p = 1 - (2/pi) atan|t|."""
    fit = ols([1.0, 2.0, 4.0], {"x": [1.0, 2.0, 3.0]})
    assert fit["n"] == 3 and fit["r2"] == pytest.approx(27 / 28)
    assert fit["r2_adj"] == pytest.approx(1 - (1 / 28) * 2 / 1)
    assert fit["coef"] == pytest.approx({"const": 7 / 3, "x": 1.5 * math.sqrt(2 / 3)})
    assert fit["se"] == pytest.approx({"const": math.sqrt(1 / 18), "x": math.sqrt(1 / 18)})
    assert fit["t"]["x"] == pytest.approx(3 * math.sqrt(3))
    cauchy_p = lambda t: 1 - 2 / math.pi * math.atan(abs(t))  # noqa: E731
    assert fit["p"]["x"] == pytest.approx(cauchy_p(3 * math.sqrt(3)))
    assert fit["p"]["const"] == pytest.approx(cauchy_p((7 / 3) / math.sqrt(1 / 18)))


def test_config_metrics_groups_and_bins():
    scores = [ps(i, -1.0 - (i % 3), -2.0, "g1" if i < 6 else "g2", i % 2) for i in range(12)]
    m = config_metrics(scores)
    assert m["by_group"]["g1"]["n"] == 6 and m["by_bin"]["0"]["n"] == 6
    assert m["accuracy"] == pytest.approx(sum(s.correct for s in scores) / 12)
    assert m["macro_groups"] == pytest.approx(
        (m["by_group"]["g1"]["accuracy"] + m["by_group"]["g2"]["accuracy"]) / 2
    )
    assert "delta_ols" not in m and "ltswap" not in m  # benchmark numbers live in eval.benchmarks


def test_error_bars_are_never_negative_and_zero_without_a_limit() -> None:
    """What every figure passes to matplotlib's ``yerr``: down/up distances, NaN -> 0, rounding clipped."""
    from corpusbench.intervals import error_bars, wilson

    lo, hi = wilson(0, 7)
    err = error_bars([0.0, 0.5, 0.4], [lo, 0.25, float("nan")], [hi, 0.9, 0.6])
    assert err.shape == (2, 3) and (err >= 0).all()
    assert err[0].tolist() == [0.0, 0.25, 0.0] and err[1].tolist() == pytest.approx([hi, 0.4, 0.2])
