"""Gradient judgments (the LI-Adger analysis of Vázquez Martínez et al. 2023, §4): model scores vs human
z-scores per sentence type.

Input: one row per sentence with its type id (sentences of one type share a structure and vary in
the words) and the human judgment as a z-score. Each model measure (summed log-probability, mean
log-probability per token, and SLOR for n-gram models) is z-scored over all sentences; then per type
the mean and standard deviation of model and human judgments, their correlations across types, and the
average within-type SD ("how much does the judgment vary inside one construction").
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from corpusbench.errors import InputError


def load_judgments(
    path: Path, sentence: str = "sentence", type_col: str = "type", human: str = "z"
) -> pd.DataFrame:
    """Read csv/tsv/jsonl/parquet; returns columns sentence, type, human (checked)."""
    path = Path(path)
    if not path.is_file():
        raise InputError(f"{path}: no such file")
    readers = {".csv": pd.read_csv, ".tsv": lambda p: pd.read_csv(p, sep="\t"), ".parquet": pd.read_parquet}
    if path.suffix == ".jsonl":
        df = pd.read_json(path, lines=True)
    elif path.suffix in readers:
        df = readers[path.suffix](path)
    else:
        raise InputError(f"{path}: unsupported file type (use .csv, .tsv, .jsonl or .parquet)")
    missing = [c for c in (sentence, type_col, human) if c not in df.columns]
    if missing:
        raise InputError(
            f"{path}: missing column(s) {', '.join(missing)}; found {', '.join(map(str, df.columns))}"
        )
    out = pd.DataFrame({"sentence": df[sentence].astype(str), "type": df[type_col].astype(str)})
    out["human"] = pd.to_numeric(df[human], errors="coerce")
    bad = out.index[out["human"].isna()].tolist()
    if bad:
        raise InputError(f"{path}: row {bad[0] + 1}: {human} is not a number")
    if out.empty:
        raise InputError(f"{path}: no rows")
    return out


def _zscore(x: np.ndarray) -> np.ndarray:
    sd = x.std()
    return (x - x.mean()) / sd if sd > 0 else np.zeros_like(x)


def _pearson(a: np.ndarray, b: np.ndarray) -> float | None:
    ok = ~(np.isnan(a) | np.isnan(b))
    if ok.sum() < 3 or a[ok].std() == 0 or b[ok].std() == 0:
        return None
    return float(np.corrcoef(a[ok], b[ok])[0, 1])


def gradient_analysis(df: pd.DataFrame, measures: dict[str, np.ndarray]) -> dict[str, Any]:
    """Per measure: within-type SD of model vs human judgments and correlations of type means and SDs."""
    human_by = df.groupby("type", sort=True)["human"]
    h_mean, h_sd = human_by.mean(), human_by.std(ddof=0)
    out: dict[str, Any] = {
        "n_sentences": len(df),
        "n_types": int(h_mean.size),
        "human": {"mean_within_type_sd": float(h_sd.mean())},
        "measures": {},
    }
    for name, values in measures.items():
        z = pd.Series(_zscore(np.asarray(values, dtype=float)), index=df.index)
        by = z.groupby(df["type"], sort=True)
        m_mean, m_sd = by.mean(), by.std(ddof=0)
        out["measures"][name] = {
            "mean_within_type_sd": float(m_sd.mean()),
            "r_type_means": _pearson(m_mean.to_numpy(), h_mean.to_numpy()),
            "r_type_sds": _pearson(m_sd.to_numpy(), h_sd.to_numpy()),
            "r_sentences": _pearson(z.to_numpy(), df["human"].to_numpy()),
        }
    return out


def model_measures(
    scorer: Any, sentences: list[str], slor_scorer: Any | None = None
) -> dict[str, np.ndarray]:
    """Summed and per-token log-probability of whole sentences (and SLOR when an n-gram scorer is given)."""
    scores = scorer.score(sentences, [None] * len(sentences))
    lp = np.array([s for s, _ in scores])
    n = np.array([max(k, 1) for _, k in scores])
    out = {"logprob": lp, "mean_logprob": lp / n}
    if slor_scorer is not None:
        out["slor"] = np.array([s for s, _ in slor_scorer.score(sentences, [None] * len(sentences))])
    return out
