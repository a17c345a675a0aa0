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

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from corpusbench.errors import ConfigError
from corpusbench.eval.metrics import accuracy_cell, cells_interval, ols, smoothed_log_count, spearman
from corpusbench.eval.records import MinimalPair, PairScore
from corpusbench.eval.release import ConfigEntry

TIE_RULE = (
    "a pair is correct only when log P(good) > log P(bad); a tie (equal scores) is not a win and "
    "is counted separately (n_ties, tie_share); accuracy_ties_half counts each tie as 0.5"
)
SUBTASKS = ("wordswap", "inflectionswap", "agreementswap")
SUBTASK_SHORT = {"wordswap": "WS", "inflectionswap": "IS", "agreementswap": "AG"}
SHORT_SUBTASK = {v: k for k, v in SUBTASK_SHORT.items()}
SIMPLE_AGREEMENT = "simple_agrmt"

Scored = Sequence[tuple[MinimalPair, PairScore]]
Cells = dict[str, tuple[int, int]]  # key -> (n, n_correct)


def ltswap_category(subtask: str, rule: str | None) -> str:
    """Table 9/10 column: WS-NOUN, IS-VERB, AG-SHORT, AG-LONG ..."""
    rule = (rule or "").upper()
    if subtask == "agreementswap":
        cat = "LONG" if rule.endswith("LONG") else "SHORT"  # SVSHORT, ANAPHORASHORT, DET
    else:
        cat = rule.split("-")[0] or "ALL"
    return f"{SUBTASK_SHORT[subtask]}-{cat}"


def ltswap_weights(
    keys: Iterable[str], bin_: int | None = None, subtask: str | None = None
) -> dict[str, float]:
    """The LT-Swap score as a weighted sum of category cells ``"WS-NOUN|3"``: the mean over (subtask, bin)
    cells of the mean of each one's categories; optionally one bin and/or one subtask only."""
    groups: dict[tuple[str, int], list[str]] = defaultdict(list)
    for key in keys:
        cat, b = key.rsplit("|", 1)
        sub = SHORT_SUBTASK[cat.split("-")[0]]
        if (bin_ is None or int(b) == bin_) and (subtask is None or sub == subtask):
            groups[(sub, int(b))].append(key)
    return {k: 1.0 / (len(groups) * len(ks)) for ks in groups.values() for k in ks}


def _lt_aggregates(acc: Mapping[str, float], cells: Cells | None = None) -> dict[str, Any]:
    """Score, per subtask, per bin and per (subtask, bin) cell from category-cell values ``acc``; with
    ``cells`` ({key: (n, n_correct)}) also their 95% intervals (``ci95``)."""
    subs_bins = sorted({(SHORT_SUBTASK[k.split("-")[0]], int(k.rsplit("|", 1)[1])) for k in acc})
    bins = sorted({b for _, b in subs_bins})
    subs = [s for s in SUBTASKS if any(ss == s for ss, _ in subs_bins)]
    parts: dict[str, dict[str, float]] = {
        "score": ltswap_weights(acc),
        **{f"per_subtask|{s}": ltswap_weights(acc, subtask=s) for s in subs},
        **{f"per_bin|{b}": ltswap_weights(acc, bin_=b) for b in bins},
        **{f"cells|{s}|{b}": ltswap_weights(acc, bin_=b, subtask=s) for s, b in subs_bins},
    }
    out: dict[str, Any] = {"score": None, "per_subtask": {}, "per_bin": {}, "cells": {}}
    ci: dict[str, Any] = {"score": None, "per_subtask": {}, "per_bin": {}, "cells": {}}
    for name, w in parts.items():
        value = float(sum(wt * acc[k] for k, wt in w.items()))
        interval = cells_interval(cells, w) if cells is not None else None
        if name == "score":
            out["score"], ci["score"] = value, interval
        else:
            block, key = name.split("|", 1)
            out[block][key], ci[block][key] = value, interval
    if cells is not None:
        out["ci95"] = ci
    return out


def _ltswap_matrix(scored: Sequence[tuple[str, MinimalPair, PairScore]]) -> dict[str, Any] | None:
    """Cells and aggregates over (subtask, pair, score) triples of one variant (plain or prefix)."""
    cats: dict[str, list[PairScore]] = defaultdict(list)
    clustered: dict[str, list[tuple[str, bool]]] = defaultdict(list)  # "subtask|bin" -> (cluster, correct)
    for sub, p, s in scored:
        if p.bin is None or (sub == "wordswap" and p.bin == 0):
            continue
        cats[f"{ltswap_category(sub, p.group)}|{p.bin}"].append(s)
        clustered[f"{sub}|{p.bin}"].append((str(dict(p.meta).get("cluster", p.id)), s.correct))
    if not cats:
        return None
    cat_cells = {k: accuracy_cell(v) for k, v in sorted(cats.items())}
    counts = {k: (c["n"], c["n_correct"]) for k, c in cat_cells.items()}
    out = _lt_aggregates({k: c["accuracy"] for k, c in cat_cells.items()}, counts)
    half = _lt_aggregates({k: c["accuracy_ties_half"] for k, c in cat_cells.items()})
    task_bin = {(k.split("|")[0], int(k.split("|")[1])): v for k, v in out["cells"].items()}
    per_bin = {int(b): v for b, v in out["per_bin"].items()}
    subs = list(out["per_subtask"])
    series = {"score": per_bin} | {s: {b: v for (ss, b), v in task_bin.items() if ss == s} for s in subs}
    categories = sorted({k.split("|")[0] for k in cat_cells})
    n_ties = sum(c["n_ties"] for c in cat_cells.values())
    n = sum(c["n"] for c in cat_cells.values())
    return {
        **out,
        "per_category": {
            c: float(np.mean([v["accuracy"] for k, v in cat_cells.items() if k.split("|")[0] == c]))
            for c in categories
        },
        "category_cells": cat_cells,
        "accuracy_drop": _drop(per_bin),
        "accuracy_drop_subtask": {s: _drop(series[s]) for s in subs},
        "drop_bins": {k: _drop_bins(v) for k, v in series.items()},
        "spearman_bin": spearman([float(b) for b in per_bin], list(per_bin.values())),
        "spearman_bin_subtask": {
            s: spearman([float(b) for b in series[s]], list(series[s].values())) for s in subs
        },
        "n": n,
        "n_ties": n_ties,
        "tie_share": n_ties / n,
        "wordswap_by_pos": _by_pos(cat_cells),
        "cells_cluster_ci95": {k: cluster_bootstrap(v) for k, v in sorted(clustered.items())},
        "ties_half": {k: half[k] for k in ("score", "per_subtask", "per_bin")},
    }


def _by_pos(cat_cells: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """WordSwap per part of speech over all bins, beside the subtask score (the paper's per-subtask
    tables): pairs, correct, pooled accuracy and the mean of the bin cells."""
    out: dict[str, Any] = {}
    for pos in ("NOUN", "VERB"):
        cells = [c for k, c in cat_cells.items() if k.split("|")[0] == f"WS-{pos}"]
        n, ok = sum(c["n"] for c in cells), sum(c["n_correct"] for c in cells)
        if n:
            out[pos] = {
                "n": n,
                "n_correct": ok,
                "accuracy": ok / n,
                "mean_over_bins": float(np.mean([c["accuracy"] for c in cells])),
            }
    return out


CLUSTER_BOOTSTRAP = 2000  # resamples of a cell's clusters (words, lemmas) for its interval


def cluster_bootstrap(rows: Sequence[tuple[str, bool]], n_boot: int = CLUSTER_BOOTSTRAP) -> list[float]:
    """95% percentile interval of a cell's accuracy when its clusters (a lemma's or word's pairs, which are
    not independent) are resampled with replacement; seeded, so the same pairs give the same interval."""
    groups: dict[str, list[bool]] = defaultdict(list)
    for key, ok in rows:
        groups[key].append(ok)
    sums = np.array([sum(v) for v in groups.values()], dtype=float)
    sizes = np.array([len(v) for v in groups.values()], dtype=float)
    rng = np.random.default_rng(0)
    idx = rng.integers(0, len(sums), size=(n_boot, len(sums)))
    acc = sums[idx].sum(axis=1) / sizes[idx].sum(axis=1)
    return [float(np.quantile(acc, 0.025)), float(np.quantile(acc, 0.975))]


def _drop_bins(series: Mapping[int, float]) -> list[int] | None:
    """(lowest, highest) bin of a series: its own lowest bin (WordSwap has no bin 0)."""
    bins = sorted(series)
    return [bins[0], bins[-1]] if len(bins) > 1 else None


def _drop(series: Mapping[int, float]) -> float | None:
    """Accuracy drop (Table 2): the series' lowest bin minus its highest bin, None with one bin."""
    ends = _drop_bins(series)
    return series[ends[0]] - series[ends[1]] if ends else None


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


def fitclams_lexicon(entry: ConfigEntry, rows: Scored) -> str:
    """The evaluation lexicon (pair set) of a FIT-CLAMS config: the corpus whose frequency bins chose its
    words (the corpus of its ``bin`` column), else the config name without its paradigm."""
    own = [c for c, col in entry.qualified("noun_bin").items() if col == entry.roles.get("bin")]
    if own:
        return own[0]
    paradigm = next((str(v) for p, _ in rows if (v := dict(p.meta).get("paradigm"))), None)
    return entry.name.removesuffix(f"-{paradigm}") if paradigm else entry.name


def _paradigm(e: ConfigEntry, p: MinimalPair) -> str:
    return str(dict(p.meta).get("paradigm") or p.group or e.name)


def _fitclams_one(
    cfgs: Sequence[ConfigEntry], scored: Mapping[str, Scored], train_corpus: str | None
) -> dict[str, Any]:
    """One evaluation lexicon's numbers: paradigms, bins of the counts corpus, the ΔP OLS."""
    by_paradigm: dict[str, list[PairScore]] = defaultdict(list)
    noun_bins: dict[int, list[PairScore]] = defaultdict(list)
    verb_bins: dict[int, list[PairScore]] = defaultdict(list)
    corpora: dict[str, str | None] = {}
    reg: dict[str, list[float]] = defaultdict(list)
    for e in cfgs:
        corpus = corpora[e.name] = _fitclams_corpus(e, train_corpus)
        for p, s in scored[e.name]:
            meta = dict(p.meta)
            paradigm = _paradigm(e, p)
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
    per_paradigm = {k: accuracy_cell(v) for k, v in sorted(by_paradigm.items())}
    n = sum(c["n"] for c in per_paradigm.values())
    n_ties = sum(c["n_ties"] for c in per_paradigm.values())
    cells = {k: (c["n"], c["n_correct"]) for k, c in per_paradigm.items()}
    out: dict[str, Any] = {
        "score": float(np.mean([c["accuracy"] for c in per_paradigm.values()])),
        "score_ci95": cells_interval(cells, {k: 1 / len(cells) for k in cells}),
        "score_ties_half": float(np.mean([c["accuracy_ties_half"] for c in per_paradigm.values()])),
        "per_paradigm": per_paradigm,
        "per_noun_bin": {str(b): accuracy_cell(v) for b, v in sorted(noun_bins.items())},
        "per_verb_bin": {str(b): accuracy_cell(v) for b, v in sorted(verb_bins.items())},
        "train_corpus": train_corpus,
        "counts_corpus": corpora,
        "configs": sorted(corpora),
        "n": n,
        "n_ties": n_ties,
        "tie_share": n_ties / n if n else None,
    }
    if reg["delta"]:
        y = reg["delta"]
        used = sorted({c for c in corpora.values() if c is not None})
        out["delta_ols"] = {
            "paradigm": SIMPLE_AGREEMENT,
            "counts_corpus": used[0] if len(used) == 1 else used,
            "predictors": "z-scored smoothed ln counts (ln c; ln 1.5 for c = 1; 0 when absent)",
            "full": ols(y, {k: reg[k] for k in ("verb", "subject_good", "subject_bad")}),
            "nouns": ols(y, {k: reg[k] for k in ("subject_good", "subject_bad")}),
            "verb": ols(y, {"verb": reg["verb"]}),
            "points": {k: reg[k] for k in ("delta", "verb", "subject_good", "subject_bad")},
        }
    return out


def fitclams_benchmark(
    entries: Sequence[ConfigEntry], scored: Mapping[str, Scored], train_corpus: str | None = None
) -> dict[str, Any] | None:
    """FIT-CLAMS numbers per evaluation lexicon (``lexicons``: the pair set of each corpus, Table 4), each
    with the counts of ``train_corpus`` or else of its own corpus; never pooled across lexicons. With one
    lexicon its numbers are also at the top level."""
    cfgs = [e for e in entries if e.kind == "fitclams" and e.name in scored]
    if not cfgs:
        return None
    by_lexicon: dict[str, list[ConfigEntry]] = defaultdict(list)
    for e in cfgs:
        by_lexicon[fitclams_lexicon(e, scored[e.name])].append(e)
    lexicons = {lex: _fitclams_one(es, scored, train_corpus) for lex, es in sorted(by_lexicon.items())}
    n = sum(b["n"] for b in lexicons.values())
    n_ties = sum(b["n_ties"] for b in lexicons.values())
    out: dict[str, Any] = {
        "lexicons": lexicons,
        "train_corpus": train_corpus,
        "counts_corpus": {c: k for b in lexicons.values() for c, k in b["counts_corpus"].items()},
        "n": n,
        "n_ties": n_ties,
        "tie_share": n_ties / n if n else None,
    }
    if len(lexicons) == 1:
        out = {**next(iter(lexicons.values())), **out}
    return out


def fitclams_lexicons(fc: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    """``{lexicon: numbers}`` of a ``benchmarks.fitclams`` block (an older results.json without
    ``lexicons``: one unnamed lexicon)."""
    return dict(fc.get("lexicons") or {"": fc})


def fisher_mean(rhos: Sequence[float | None]) -> float | None:
    """Mean of correlations through Fisher z (|rho| clipped below 1), as the reference averages Spearman."""
    vals = [float(np.clip(r, -0.999999, 0.999999)) for r in rhos if r is not None]
    return float(np.tanh(np.mean(np.arctanh(vals)))) if vals else None
