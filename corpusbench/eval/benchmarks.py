"""The papers' headline numbers (``results.json`` → ``benchmarks``) from scored pairs and release roles.

- **LT-Swap** (§2.1, Tables 1, 2, 7–10; the reference's ``get_correlations``): an accuracy per
  (frequency bin, subtask) cell, subtask ∈ WordSwap, InflectionSwap, AgreementSwap; a subtask's cell
  is the mean over its categories present in that bin (WS/IS: NOUN, VERB; AS: SHORT = SVSHORT,
  ANAPHORASHORT, DET; LONG = SVLONG, ANAPHORALONG). ``score`` = mean of all cells; WordSwap has no
  bin 0. ``accuracy_drop`` = per-bin score in the rarest bin (bin 0 left out when other bins exist,
  it lacks WordSwap) minus the most frequent bin: negative when rare words are harder (Table 2's
  sign). Spearman of per-bin score with bin index per model; averaged across models (Fisher z) and
  the spread ratio in ``corpusbench compare``. The ``-prefix`` configs (§4.4) are reported apart.
- **FIT-CLAMS** (§4.3, §6): ``score`` = unweighted mean of paradigm accuracies; accuracy per noun
  and verb frequency bin of the training corpus; OLS of ΔP on z-scored smoothed log counts of the verb
  and the grammatical / ungrammatical subject forms, on simple agreement.

One tie rule everywhere (:data:`TIE_RULE`). Cells with zero correct pairs are 0.0 (not NaN).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from corpusbench.errors import ConfigError
from corpusbench.eval.metrics import ols, smoothed_log_count, spearman
from corpusbench.eval.records import MinimalPair, PairScore
from corpusbench.eval.release import ConfigEntry

TIE_RULE = (
    "a pair is correct only when log P(good) > log P(bad); a tie (equal scores) is not a win and "
    "is counted separately (n_ties)"
)
SUBTASKS = ("wordswap", "inflectionswap", "agreementswap")
SUBTASK_SHORT = {"wordswap": "WS", "inflectionswap": "IS", "agreementswap": "AG"}
SIMPLE_AGREEMENT = "simple_agrmt"

Scored = Sequence[tuple[MinimalPair, PairScore]]


def _acc(items: Sequence[PairScore]) -> dict[str, Any]:
    n = len(items)
    correct = sum(s.correct for s in items)
    return {
        "accuracy": correct / n if n else None,
        "n": n,
        "n_correct": correct,
        "n_ties": sum(s.logprob_good == s.logprob_bad for s in items),
    }


def ltswap_category(subtask: str, rule: str | None) -> str:
    """Table 9/10 column: WS-NOUN, IS-VERB, AG-SHORT, AG-LONG ..."""
    rule = (rule or "").upper()
    if subtask == "agreementswap":
        cat = "LONG" if rule.endswith("LONG") else "SHORT"  # SVSHORT, ANAPHORASHORT, DET
    else:
        cat = rule.split("-")[0] or "ALL"
    return f"{SUBTASK_SHORT[subtask]}-{cat}"


def _ltswap_matrix(scored: Sequence[tuple[str, MinimalPair, PairScore]]) -> dict[str, Any] | None:
    """Cells and aggregates over (subtask, pair, score) triples of one variant (plain or prefix)."""
    cats: dict[tuple[str, str, int], list[PairScore]] = defaultdict(list)
    for sub, p, s in scored:
        if p.bin is None or (sub == "wordswap" and p.bin == 0):
            continue
        cats[(sub, ltswap_category(sub, p.group), p.bin)].append(s)
    if not cats:
        return None
    cat_cells = {k: _acc(v) for k, v in cats.items()}
    task_bin: dict[tuple[str, int], float] = {}
    for sub in SUBTASKS:
        for b in sorted({b for (s, _, b) in cats if s == sub}):
            vals = [c["accuracy"] for (s, _, bb), c in cat_cells.items() if s == sub and bb == b]
            task_bin[(sub, b)] = float(np.mean(vals))
    bins = sorted({b for _, b in task_bin})
    per_bin = {b: float(np.mean([v for (_, bb), v in task_bin.items() if bb == b])) for b in bins}
    subs = [s for s in SUBTASKS if any(k[0] == s for k in task_bin)]
    per_subtask = {s: float(np.mean([v for (ss, _), v in task_bin.items() if ss == s])) for s in subs}
    categories = sorted({c for (_, c, _) in cats})
    per_category = {
        c: float(np.mean([v["accuracy"] for (_, cc, _), v in cat_cells.items() if cc == c]))
        for c in categories
    }
    return {
        "score": float(np.mean(list(task_bin.values()))),
        "per_subtask": per_subtask,
        "per_bin": {str(b): v for b, v in per_bin.items()},
        "per_category": per_category,
        "cells": {f"{s}|{b}": v for (s, b), v in task_bin.items()},
        "category_cells": {f"{c}|{b}": v for (_, c, b), v in cat_cells.items()},
        "accuracy_drop": _drop(per_bin),
        "accuracy_drop_subtask": {
            s: _drop({b: v for (ss, b), v in task_bin.items() if ss == s}) for s in subs
        },
        "spearman_bin": spearman([float(b) for b in bins], [per_bin[b] for b in bins]),
        "spearman_bin_subtask": {
            s: spearman(
                [float(b) for (ss, b) in task_bin if ss == s],
                [v for (ss, _), v in task_bin.items() if ss == s],
            )
            for s in subs
        },
        "n": sum(len(v) for v in cats.values()),
        "n_ties": sum(c["n_ties"] for c in cat_cells.values()),
    }


def _drop(per_bin: Mapping[int, float]) -> float | None:
    """Rarest bin minus most frequent bin (bin 0 left out when other bins exist)."""
    bins = sorted(b for b in per_bin if b > 0) or sorted(per_bin)
    return per_bin[bins[0]] - per_bin[bins[-1]] if len(bins) > 1 else None


def ltswap_benchmark(entries: Sequence[ConfigEntry], scored: Mapping[str, Scored]) -> dict[str, Any] | None:
    """LT-Swap numbers over the LT-Swap configs present; ``prefix``: the §4.4 variant apart."""
    plain, prefixed = [], []
    for e in entries:
        if e.kind != "ltswap" or e.name not in scored or e.ltswap_subtask not in SUBTASKS:
            continue
        rows = [(e.ltswap_subtask, p, s) for p, s in scored[e.name]]
        (prefixed if e.is_prefix_variant else plain).extend(rows)
    out = _ltswap_matrix(plain)
    if out is None:
        return None
    out["configs"] = sorted(e.name for e in entries if e.kind == "ltswap" and not e.is_prefix_variant)
    pre = _ltswap_matrix(prefixed)
    if pre is not None:
        # Table 3: WordSwap accuracy gain from the prefix, averaged over the three rarest shared bins
        ws, ws_pre = _subtask_bins(out, "wordswap"), _subtask_bins(pre, "wordswap")
        low = sorted(set(ws) & set(ws_pre))[:3]
        pre["gain_lowest_3_bins"] = float(np.mean([ws_pre[b] - ws[b] for b in low])) if low else None
        out["prefix"] = pre
    return out


def _subtask_bins(lt: Mapping[str, Any], subtask: str) -> dict[int, float]:
    return {int(k.split("|")[1]): v for k, v in lt["cells"].items() if k.split("|")[0] == subtask}


def _fitclams_corpus(entry: ConfigEntry, train_corpus: str | None) -> str | None:
    corpora = entry.qualified("noun_bin")
    if train_corpus is not None:
        if train_corpus not in corpora:
            raise ConfigError(
                f"--train-corpus {train_corpus!r}: config {entry.name!r} has counts for "
                f"{', '.join(sorted(corpora)) or 'no corpus'}"
            )
        return train_corpus
    own = [c for c, col in corpora.items() if col == entry.roles.get("bin")]
    return own[0] if own else (next(iter(sorted(corpora))) if corpora else None)


def fitclams_benchmark(
    entries: Sequence[ConfigEntry], scored: Mapping[str, Scored], train_corpus: str | None = None
) -> dict[str, Any] | None:
    """FIT-CLAMS numbers over the FIT-CLAMS configs present (counts of ``train_corpus``, else each
    config's own corpus)."""
    cfgs = [e for e in entries if e.kind == "fitclams" and e.name in scored]
    if not cfgs:
        return None
    by_paradigm: dict[str, list[PairScore]] = defaultdict(list)
    noun_bins: dict[int, list[PairScore]] = defaultdict(list)
    verb_bins: dict[int, list[PairScore]] = defaultdict(list)
    corpora: dict[str, str | None] = {}
    reg: dict[str, list[float]] = defaultdict(list)
    for e in cfgs:
        corpus = corpora[e.name] = _fitclams_corpus(e, train_corpus)
        for p, s in scored[e.name]:
            meta = dict(p.meta)
            paradigm = str(meta.get("paradigm") or p.group or e.name)
            by_paradigm[paradigm].append(s)
            if corpus is None:
                continue
            nb, vb = meta.get(f"noun_bin:{corpus}"), meta.get(f"verb_bin:{corpus}")
            if nb is not None and nb >= 0:
                noun_bins[int(nb)].append(s)
            if vb is not None and vb >= 0:
                verb_bins[int(vb)].append(s)
            counts = [
                meta.get(f"{r}:{corpus}") for r in ("verb_count", "subject_good_count", "subject_bad_count")
            ]
            if paradigm == SIMPLE_AGREEMENT and all(c is not None for c in counts):
                reg["delta"].append(s.delta)
                for name, c in zip(("verb", "subject_good", "subject_bad"), counts, strict=True):
                    reg[name].append(smoothed_log_count(float(c)))  # type: ignore[arg-type]
    per_paradigm = {k: _acc(v) for k, v in sorted(by_paradigm.items())}
    out: dict[str, Any] = {
        "score": float(np.mean([c["accuracy"] for c in per_paradigm.values()])),
        "per_paradigm": per_paradigm,
        "per_noun_bin": {str(b): _acc(v) for b, v in sorted(noun_bins.items())},
        "per_verb_bin": {str(b): _acc(v) for b, v in sorted(verb_bins.items())},
        "train_corpus": train_corpus,
        "counts_corpus": corpora,
        "n": sum(len(v) for v in by_paradigm.values()),
        "n_ties": sum(c["n_ties"] for c in per_paradigm.values()),
    }
    if reg["delta"]:
        y = reg["delta"]
        out["delta_ols"] = {
            "paradigm": SIMPLE_AGREEMENT,
            "predictors": "z-scored smoothed ln counts (ln c; ln 1.5 for c = 1; 0 when absent)",
            "full": ols(y, {k: reg[k] for k in ("verb", "subject_good", "subject_bad")}),
            "nouns": ols(y, {k: reg[k] for k in ("subject_good", "subject_bad")}),
            "verb": ols(y, {"verb": reg["verb"]}),
            "points": {k: reg[k] for k in ("delta", "verb", "subject_good", "subject_bad")},
        }
    return out


def fisher_mean(rhos: Sequence[float | None]) -> float | None:
    """Mean of correlations through Fisher z (|rho| clipped below 1), as the reference averages Spearman."""
    vals = [float(np.clip(r, -0.999999, 0.999999)) for r in rhos if r is not None]
    return float(np.tanh(np.mean(np.arctanh(vals)))) if vals else None
