import math

import numpy as np
import pytest

from corpusbench.errors import ConfigError
from corpusbench.families.fitclams.bins import log_bin_edges, log_bins


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
