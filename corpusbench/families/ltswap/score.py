"""LT-Swap's scores: its block of ``results.json`` (``benchmarks.ltswap``), its lines of ``summary.md``,
its run figure, its ``compare`` columns, notes and figure (hooks of :data:`family.FAMILY`).

LT-Swap (§2.1, §4.2, Tables 1, 2, 7–10; the reference's ``get_correlations``): an accuracy per
(frequency bin, subtask) cell, subtask ∈ WordSwap, InflectionSwap, AgreementSwap; a subtask's cell
is the mean over its categories present in that bin (WS/IS: NOUN, VERB; AS: SHORT = SVSHORT,
ANAPHORASHORT, DET; LONG = SVLONG, ANAPHORALONG). ``score`` = mean of all cells; WordSwap has no
bin 0. ``accuracy_drop`` = score in the series' own lowest bin minus its highest bin (Table 2: bin 0
for the overall score, InflectionSwap and AgreementSwap, bin 1 for WordSwap), negative when rare
words are harder. Spearman of per-bin score with bin index per model; averaged across models (Fisher
z) and the spread ratios in ``corpusbench compare``. The ``-prefix`` configs (§4.4) are reported apart.
Every number, its paper definition and its key: ``docs/metrics.md``.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from corpusbench.eval.benchmarks import Cells, Scored, fisher_mean
from corpusbench.eval.compare import by_bin
from corpusbench.eval.compare_plots import model_lines
from corpusbench.eval.metrics import (
    accuracy_cell,
    cells_interval,
    spearman,
    spread_ratio,
)
from corpusbench.eval.plots import (
    MIN_N,
    Point,
    Series,
    bin_axis,
    draw_lines,
    legend_below,
    plot_title,
    point,
    pyplot,
    save_png,
)
from corpusbench.eval.records import MinimalPair, PairScore
from corpusbench.eval.release import ConfigEntry
from corpusbench.eval.results import ci_text, fmt, tie_text
from corpusbench.eval.runs import Run
from corpusbench.family import Metric

SUBTASKS = ("wordswap", "inflectionswap", "agreementswap")


SUBTASK_SHORT = {"wordswap": "WS", "inflectionswap": "IS", "agreementswap": "AG"}


SHORT_SUBTASK = {v: k for k, v in SUBTASK_SHORT.items()}


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


def _subtask(entry: ConfigEntry) -> str | None:
    """The subtask of an LT-Swap config: the qualifier of its ``ltswap_rule`` role."""
    subs = list(entry.qualified("ltswap_rule"))
    return subs[0] if subs else None


def ltswap_benchmark(entries: Sequence[ConfigEntry], scored: Mapping[str, Scored]) -> dict[str, Any] | None:
    """LT-Swap numbers over the LT-Swap configs present; ``prefix``: the §4.4 variant apart."""
    plain, prefixed = [], []
    for e in entries:
        if e.kind != "ltswap" or e.name not in scored or _subtask(e) not in SUBTASKS:
            continue
        rows = [(_subtask(e), p, s) for p, s in scored[e.name]]
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


def ltswap_cells(lt: Mapping[str, Any]) -> Cells:
    return {k: (v["n"], v["n_correct"]) for k, v in lt["category_cells"].items()}


def ltswap_stat(acc: Mapping[str, Any], bin_: int | None = None, subtask: str | None = None) -> Any:
    """LT-Swap score from category-cell accuracies ``{"WS-NOUN|3": acc}``: mean over (subtask, bin)
    cells, each the mean of its categories; optionally one bin or one subtask only."""
    return sum(w * acc[k] for k, w in ltswap_weights(acc, bin_=bin_, subtask=subtask).items())


def ltswap_ci(lt: Mapping[str, Any], bin_: int | None = None, subtask: str | None = None) -> list[float]:
    """95% interval of the LT-Swap score (or one bin / subtask): MOVER over the category cells' Wilson."""
    cells = ltswap_cells(lt)
    return cells_interval(cells, ltswap_weights(cells, bin_=bin_, subtask=subtask))


def ltswap_markdown(lt: dict[str, Any]) -> list[str]:
    """LT-Swap's lines of summary.md: score, subtasks, categories, bins, accuracy drop, prefix variant."""

    ci = lt.get("ci95") or {}
    subs = ", ".join(
        f"{k} {v:.4f}{ci_text((ci.get('per_subtask') or {}).get(k))}" for k, v in lt["per_subtask"].items()
    )
    cats = ", ".join(f"{k} {v:.4f}" for k, v in lt["per_category"].items())
    bin_ci = ci.get("per_bin") or {}
    bins = ", ".join(f"{k}: {v:.3f}{ci_text(bin_ci.get(k))}" for k, v in lt["per_bin"].items())
    drops = ", ".join(
        f"{SUBTASK_SHORT[s]} {fmt(d, '+.4f')}" for s, d in lt.get("accuracy_drop_subtask", {}).items()
    )
    ends = (lt.get("drop_bins") or {}).get("score")
    span = f", bins {ends[0]}–{ends[1]}" if ends else ""
    lines = [
        f"- **LT-Swap score {lt['score']:.4f}**{ci_text(ci.get('score'))} (mean of bin × subtask cells; "
        f"n={lt['n']}, {tie_text(lt['n_ties'], lt['n'], (lt.get('ties_half') or {}).get('score'))})",
        f"  - subtasks: {subs}; categories: {cats}",
        f"  - per bin: {bins}",
        f"  - accuracy drop (lowest − highest bin of each series{span})"
        f" {fmt(lt['accuracy_drop'], '+.4f')}; per subtask {drops or 'n/a'}; "
        f"Spearman(bin, score) {fmt(lt['spearman_bin']['rho'], '.3f')}",
    ]
    if pre := lt.get("prefix"):
        lines.append(
            f"  - prefix variant (§4.4): score {pre['score']:.4f}, gain on the 3 rarest bins "
            f"{fmt(pre['gain_lowest_3_bins'], '+.4f')}"
        )
    return lines


def ltswap_columns(lt: Mapping[str, Any]) -> list[Metric]:
    """LT-Swap: score (headline, and its tie-as-half), subtasks, categories, bins, drop, prefix variant."""
    out = [Metric(column="LT-Swap", value=lt["score"], ci=ltswap_ci(lt), headline=True)]
    if lt.get("n_ties") and lt.get("ties_half"):
        out.append(Metric(column="LT-Swap (ties ½)", value=lt["ties_half"]["score"], headline=True))
    out += [
        Metric(column=SUBTASK_SHORT[sub], value=v, ci=ltswap_ci(lt, subtask=sub))
        for sub, v in lt["per_subtask"].items()
    ]
    out += [Metric(column=cat, value=v) for cat, v in lt["per_category"].items()]
    out += [
        Metric(column=f"LT bin {bn}", value=v, ci=ltswap_ci(lt, bin_=int(bn)))
        for bn, v in by_bin(lt["per_bin"])
    ]
    out.append(Metric(column="LT drop", value=lt["accuracy_drop"]))
    if pre := lt.get("prefix"):
        out.append(Metric(column="WS+prefix", value=pre["score"], ci=ltswap_ci(pre)))
    return out


def ltswap_covers(config: str, lt: Mapping[str, Any]) -> bool:
    return config in lt.get("configs", []) or config.endswith("-prefix")


def _subtask_series(lt: Mapping[str, Any], sub: str) -> dict[str, float]:
    return {k.split("|")[1]: v for k, v in (lt.get("cells") or {}).items() if k.split("|")[0] == sub}


def ltswap_spread_ratios(lts: Mapping[str, Mapping[str, Any]]) -> dict[str, float | None]:
    """Table 2 spread ratios across models: the score (``LT-Swap``) and each subtask (WS, IS, AG), each
    between the series' own lowest and highest bin (bin 0 for the score, IS and AG; bin 1 for WS)."""
    out = {"LT-Swap": spread_ratio({k: lt["per_bin"] for k, lt in lts.items()})}
    for sub, short in SUBTASK_SHORT.items():
        series = {k: _subtask_series(lt, sub) for k, lt in lts.items()}
        if all(series.values()):
            out[short] = spread_ratio(series)
    return out


def ltswap_notes(runs: Sequence[Run]) -> list[str]:
    """Spearman (Fisher z over models), spread ratios and accuracy drops across the runs (Tables 1, 2)."""
    notes: list[str] = []
    lts = {r.label: r.bench["ltswap"] for r in runs if r.bench.get("ltswap")}
    if lts:
        rho = fisher_mean([lt["spearman_bin"]["rho"] for lt in lts.values()])
        notes.append(
            f"LT-Swap Spearman(bin, score) averaged over {len(lts)} model(s) (Fisher z): "
            + ("n/a" if rho is None else f"{rho:.3f}")
        )
        for sub in SUBTASK_SHORT:
            vals = [lt["spearman_bin_subtask"].get(sub, {}).get("rho") for lt in lts.values()]
            if any(v is not None for v in vals):
                notes.append(f"  {SUBTASK_SHORT[sub]}: {fisher_mean(vals):.3f}")
        ratios = ltswap_spread_ratios(lts)
        notes.append(
            "LT-Swap spread ratio (Table 2: max − min across models in the series' lowest bin / in its "
            "highest bin; bin 0 for LT-Swap, IS, AG, bin 1 for WS): "
            + ", ".join(f"{k} {'n/a' if v is None else f'{v:.2f}'}" for k, v in ratios.items())
        )
        if None in ratios.values():
            notes.append("  n/a: needs ≥ 2 models, ≥ 2 shared bins and a spread in the highest bin")
        drops = [lt["accuracy_drop"] for lt in lts.values() if lt["accuracy_drop"] is not None]
        if drops:
            per_sub = {
                short: [d for lt in lts.values() if (d := lt["accuracy_drop_subtask"].get(sub)) is not None]
                for sub, short in SUBTASK_SHORT.items()
            }
            parts = [f"LT-Swap {np.mean(drops):+.3f}"]
            parts += [f"{k} {np.mean(v):+.3f}" for k, v in per_sub.items() if v]
            notes.append(
                "LT-Swap accuracy drop (lowest − highest bin of each series), mean over models: "
                + ", ".join(parts)
            )
    return notes


def ltswap_series(lt: Mapping[str, Any]) -> dict[str, Series]:
    """Per bin: the LT-Swap score and each subtask (AgreementSwap as AG-SHORT and AG-LONG)."""
    cells = lt["category_cells"]
    by_bin: dict[int, list[str]] = {}
    for k in cells:
        by_bin.setdefault(int(k.rsplit("|", 1)[1]), []).append(k)
    out: dict[str, Series] = {"LT-Swap score": {}}
    for b, keys in sorted(by_bin.items()):
        sub = {k: cells[k] for k in keys}
        out["LT-Swap score"][b] = point(sub, ltswap_weights(sub))
        for short in SUBTASK_SHORT.values():
            cats = sorted({k.split("|")[0] for k in keys if k.startswith(f"{short}-")})
            groups = [[c] for c in cats] if short == "AG" else ([cats] if cats else [])
            for group in groups:
                label = group[0] if short == "AG" else short
                out.setdefault(label, {})[b] = point({k: cells[k] for k in (f"{c}|{b}" for c in group)})
    return out


def plot_ltswap_bins(results: dict[str, Any], out: Path) -> str | None:
    """``ltswap_by_bin.png`` of one run: the score and each subtask per frequency bin."""
    lt = results["benchmarks"].get("ltswap")
    if not lt:
        return None
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6.6, 3.8))
    ns = draw_lines(ax, list(ltswap_series(lt).items()))
    bin_axis(ax, ns, "frequency bin (under it: pairs in the bin, all subtasks)")
    what = f"LT-Swap per bin and subtask; bin 0 has no WordSwap; ties {lt.get('n_ties', 0)}"
    ax.set_title(plot_title(results, what), fontsize=8)
    legend_below(fig, ax)
    save_png(fig, out / "ltswap_by_bin.png")
    plt.close(fig)
    return "ltswap_by_bin.png"


def plot_ltswap(runs: Sequence[Run], out: Path, **_options: Any) -> str | None:
    """LT-Swap score per frequency bin per model (Fig. 3), 95% interval (MOVER over the cells' Wilson)."""

    def series(run: Run) -> dict[str, dict[int, Point]]:
        lt = run.bench.get("ltswap")
        if not lt:
            return {}
        cells = ltswap_cells(lt)
        half = (lt.get("ties_half") or {}).get("per_bin", {}) if lt.get("n_ties") else {}
        pts = {}
        for b, v in lt["per_bin"].items():
            n = sum(c[0] for k, c in cells.items() if int(k.rsplit("|", 1)[1]) == int(b))
            pts[int(b)] = (v, ltswap_ci(lt, bin_=int(b)), n, half.get(b))
        return {"": pts}

    if not any(r.bench.get("ltswap") for r in runs):
        return None
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6.4, 3.8))
    ns = model_lines(ax, runs, series)
    bin_axis(ax, ns, "frequency bin (under it: pairs in the bin)")
    ax.set_ylabel("LT-Swap score (mean of subtasks)")
    ax.set_title(
        f"LT-Swap score by frequency bin, 95% CI (bin 0: InflectionSwap + AgreementSwap only; "
        f"hollow: n < {MIN_N})",
        fontsize=9,
    )
    legend_below(fig, ax)
    save_png(fig, out / "ltswap_by_bin.png")
    plt.close(fig)
    return "ltswap_by_bin.png"


def ltswap_console(lt: Mapping[str, Any]) -> list[str]:
    """The line ``eval run`` prints: the score, its interval and its ties."""
    half = (lt.get("ties_half") or {}).get("score")
    return [
        f"ltswap score {fmt(lt['score'])}{ci_text((lt.get('ci95') or {}).get('score'))} "
        f"({tie_text(lt['n_ties'], lt['n'], half)})"
    ]
