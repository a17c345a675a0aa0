import math

import numpy as np
import pytest

from corpusbench.corpus.bins import LTSWAP_N_BINS, log_bin_edges, log_bins, ltswap_bin, ltswap_bin_label
from corpusbench.errors import ConfigError


@pytest.mark.parametrize(
    ("count", "expected"),
    [
        (0, 0),
        (1, 1),
        (2, 2),
        (3, 2),
        (4, 3),
        (7, 3),
        (8, 4),
        (255, 8),
        (256, 9),
        (511, 9),
        (512, 10),
        (10**7, 10),
    ],
)
def test_ltswap_bins_are_powers_of_two(count, expected):
    assert ltswap_bin(count) == expected


def test_ltswap_bin_labels():
    labels = [ltswap_bin_label(i) for i in range(LTSWAP_N_BINS)]
    assert labels[0] == "[0]" and labels[1] == "[1]" and labels[2] == "[2,4)" and labels[-1] == "[512,inf)"
    assert len(set(labels)) == LTSWAP_N_BINS == 11


def test_log_bins_match_reference_edges():
    # EN nouns CHILDES in the reference notes: min 2, max 7777, edges 2, 4.6, 10.4, ..., 3403, 7777
    edges = log_bin_edges([2, 50, 7777])
    assert len(edges) == 11
    assert edges[0] == pytest.approx(2) and edges[-1] == pytest.approx(7777)
    assert edges[1] == pytest.approx(4.6, abs=0.05) and edges[9] == pytest.approx(3403, abs=1)


def test_log_bins_semantics_right_closed_and_clipped():
    counts = [2, 3, 4.6, 5, 7777]
    edges = log_bin_edges(counts)
    bins = log_bins(counts, edges)
    assert bins[0] == 0  # the minimum is clipped into bin 0
    assert bins[-1] == 9  # the maximum is in the last bin (right-closed)
    # a value equal to an inner edge belongs to the lower bin (edges[i] < f <= edges[i+1])
    inner = float(edges[3])
    assert log_bins([inner], edges) == [2]
    assert log_bins([math.nextafter(inner, np.inf)], edges) == [3]


def test_log_bins_reject_bad_input():
    with pytest.raises(ConfigError):
        log_bin_edges([])
    with pytest.raises(ConfigError):
        log_bin_edges([0, 5])
