import pytest

from corpusbench.families.ltswap.bins import LTSWAP_N_BINS, ltswap_bin, ltswap_bin_label


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
