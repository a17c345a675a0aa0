"""LT-Swap paper (Algayres et al.) definitions as tests: score, accuracy drop and spread ratio.

A small fixed score matrix for two models, 4 pairs per (category, bin) cell, scored through the same
code as ``corpusbench eval`` (``ltswap_benchmark``) and ``corpusbench compare`` (``ltswap_spread_ratios``).
The expected values are worked out below by hand from the paper's definitions, so the module runs
everywhere:

- §2.1 / Fig. 3: a subtask's cell in a bin is the mean of its categories (WordSwap, InflectionSwap:
  NOUN, VERB; AgreementSwap: SHORT, LONG); the LT-Swap score is the mean of the (subtask, bin) cells; the
  per-bin score averages the subtasks present, so bin 0 (unseen forms) has no WordSwap (Fig. 3's star).
- §4.2 / Table 2: accuracy drop = score in the lowest bin minus the highest bin (negative: rare words are
  harder); spread ratio = (best - worst model in the lowest bin) / (best - worst in the highest bin). The
  lowest bin is each series' own: bin 0 for the score, InflectionSwap and AgreementSwap; bin 1 for
  WordSwap.

Model A, accuracy per category (bins 0, 1, 2):

    WS-NOUN  -, .50, 1.00    WS-VERB  -, .50, .75     -> WS  -,   .500, .875
    IS-NOUN .25, .50, .75    IS-VERB .25, .75, 1.00   -> IS .250, .625, .875
    AG-SHORT .75, .75, 1.00  AG-LONG .25, .50, .75    -> AG .500, .625, .875

    score = (.5 + .875 + .25 + .625 + .875 + .5 + .625 + .875) / 8 = 5.125 / 8 = .640625
    per bin: 0 = (.25 + .5) / 2 = .375; 1 = (.5 + .625 + .625) / 3 = .58333; 2 = .875
    drop: LT-Swap .375 - .875 = -.5; WS .5 - .875 = -.375; IS .25 - .875 = -.625; AG .5 - .875 = -.375

Model B: every category .75 in bins 0 and 1, 1.00 in bin 2 (per bin .75, .75, 1.0).

    spread ratio: LT-Swap |.375 - .75| / |.875 - 1| = 3.0; WS |.5 - .75| / .125 = 2.0;
                  IS |.25 - .75| / .125 = 4.0; AG |.5 - .75| / .125 = 2.0

Skipping bin 0 (the old behaviour) would give drop -.291667 and a score spread ratio of 1.3333.
"""

from __future__ import annotations

import pytest

from corpusbench.eval.records import MinimalPair, PairScore
from corpusbench.eval.release import ConfigEntry
from corpusbench.families.ltswap.score import ltswap_benchmark, ltswap_spread_ratios

PAIRS_PER_CELL = 4
# (subtask, rule as released, category) -> accuracy per bin (None: no such cell)
MODEL_A = {
    ("wordswap", "NOUN"): (None, 0.50, 1.00),
    ("wordswap", "VERB"): (None, 0.50, 0.75),
    ("inflectionswap", "NOUN"): (0.25, 0.50, 0.75),
    ("inflectionswap", "VERB"): (0.25, 0.75, 1.00),
    ("agreementswap", "SVSHORT"): (0.75, 0.75, 1.00),
    ("agreementswap", "SVLONG"): (0.25, 0.50, 0.75),
}
MODEL_B = {
    k: tuple(None if a is None else (1.0 if b == 2 else 0.75) for b, a in enumerate(v))
    for k, v in MODEL_A.items()
}


def _benchmark(matrix: dict[tuple[str, str], tuple[float | None, ...]]) -> dict:
    entries, scored = [], {}
    for sub in ("wordswap", "inflectionswap", "agreementswap"):
        entry = ConfigEntry(name=f"ltswap-{sub}", task="minimal_pairs", roles={f"ltswap_rule:{sub}": "group"})
        rows = []
        for (s, rule), accs in matrix.items():
            if s != sub:
                continue
            for b, acc in enumerate(accs):
                if acc is None:
                    continue
                for k in range(PAIRS_PER_CELL):
                    pid = f"{sub}-{rule}-{b}-{k}"
                    p = MinimalPair(id=pid, good="g", bad="b", config=entry.name, group=rule, bin=b)
                    good = -1.0 if k < acc * PAIRS_PER_CELL else -3.0
                    s = PairScore(id=pid, config=entry.name, logprob_good=good, logprob_bad=-2.0,
                                  n_tokens_good=1, n_tokens_bad=1, group=rule, bin=b)  # fmt: skip
                    rows.append((p, s))
        entries.append(entry)
        scored[entry.name] = rows
    lt = ltswap_benchmark(entries, scored)
    assert lt is not None
    return lt


def test_score_cells_and_bins_by_hand() -> None:
    lt = _benchmark(MODEL_A)
    assert lt["score"] == pytest.approx(5.125 / 8)
    assert lt["per_bin"] == pytest.approx({"0": 0.375, "1": 1.75 / 3, "2": 0.875})
    assert lt["per_subtask"] == pytest.approx(
        {"wordswap": (0.5 + 0.875) / 2, "inflectionswap": 1.75 / 3, "agreementswap": 2.0 / 3}
    )
    assert "wordswap|0" not in lt["cells"] and lt["cells"]["agreementswap|0"] == pytest.approx(0.5)


def test_accuracy_drop_uses_each_series_lowest_bin() -> None:
    lt = _benchmark(MODEL_A)
    assert lt["accuracy_drop"] == pytest.approx(0.375 - 0.875)  # not bin 1: -0.291667
    assert lt["accuracy_drop_subtask"] == pytest.approx(
        {"wordswap": 0.5 - 0.875, "inflectionswap": 0.25 - 0.875, "agreementswap": 0.5 - 0.875}
    )
    assert lt["drop_bins"]["score"] == [0, 2] and lt["drop_bins"]["wordswap"] == [1, 2]


def test_spread_ratio_of_the_score_and_of_each_subtask() -> None:
    ratios = ltswap_spread_ratios({"A": _benchmark(MODEL_A), "B": _benchmark(MODEL_B)})
    assert ratios == pytest.approx({"LT-Swap": 3.0, "WS": 2.0, "IS": 4.0, "AG": 2.0})
