"""The papers' headline numbers (``results.json`` → ``benchmarks``) from scored pairs and release roles.

Every number, its paper definition and its key: ``docs/metrics.md``.

- **LT-Swap** (§2.1, §4.2, Tables 1, 2, 7–10; the reference's ``get_correlations``): an accuracy per
  (frequency bin, subtask) cell, subtask ∈ WordSwap, InflectionSwap, AgreementSwap; a subtask's cell
  is the mean over its categories present in that bin (WS/IS: NOUN, VERB; AS: SHORT = SVSHORT,
  ANAPHORASHORT, DET; LONG = SVLONG, ANAPHORALONG). ``score`` = mean of all cells; WordSwap has no
  bin 0. ``accuracy_drop`` = score in the series' own lowest bin minus its highest bin (Table 2: bin 0
  for the overall score, InflectionSwap and AgreementSwap, bin 1 for WordSwap), negative when rare
  words are harder. Spearman of per-bin score with bin index per model; averaged across models (Fisher
  z) and the spread ratios in ``corpusbench compare``. The ``-prefix`` configs (§4.4) are reported apart.
- **FIT-CLAMS** (§4.3, §6, Table 4): per evaluation lexicon (the pair set of one corpus, e.g. FIT-CLAMS-C
  and FIT-CLAMS-W), ``score`` = unweighted mean of its paradigm accuracies; accuracy per noun and verb
  frequency bin of the training corpus; OLS of ΔP on z-scored smoothed log counts of the verb and the
  grammatical / ungrammatical subject forms on simple agreement, fitted per lexicon.

One tie rule everywhere (:data:`TIE_RULE`), with the tie-as-half accuracy beside the strict one. Cells with
zero correct pairs are 0.0 (not NaN). 95% intervals: :data:`corpusbench.eval.metrics.INTERVAL`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from corpusbench.eval.records import MinimalPair, PairScore

TIE_RULE = (
    "a pair is correct only when log P(good) > log P(bad); a tie (equal scores) is not a win and "
    "is counted separately (n_ties, tie_share); accuracy_ties_half counts each tie as 0.5"
)

Scored = Sequence[tuple[MinimalPair, PairScore]]
Cells = dict[str, tuple[int, int]]  # key -> (n, n_correct)


def fisher_mean(rhos: Sequence[float | None]) -> float | None:
    """Mean of correlations through Fisher z (|rho| clipped below 1), as the reference averages Spearman."""
    vals = [float(np.clip(r, -0.999999, 0.999999)) for r in rhos if r is not None]
    return float(np.tanh(np.mean(np.arctanh(vals)))) if vals else None
