"""FIT-CLAMS's scores: its block of ``results.json`` (``benchmarks.fitclams``), its lines of
``summary.md``, its run figure, its ``compare`` columns and figures (hooks of :data:`family.FAMILY`).

FIT-CLAMS (§4.3, §6, Table 4): per evaluation lexicon (the pair set of one corpus, e.g. FIT-CLAMS-C and
FIT-CLAMS-W), ``score`` = unweighted mean of its paradigm accuracies; accuracy per noun and verb
frequency bin of the training corpus; OLS of ΔP on z-scored smoothed log counts of the verb and the
grammatical / ungrammatical subject forms on simple agreement, fitted per lexicon. Every number, its
paper definition and its key: ``docs/metrics.md``.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from corpusbench.errors import ConfigError
from corpusbench.eval.benchmarks import Scored
from corpusbench.eval.compare import by_bin
from corpusbench.eval.compare_plots import model_lines
from corpusbench.eval.metrics import (
    accuracy_cell,
    cells_interval,
    ols,
    smoothed_log_count,
)
from corpusbench.eval.plots import (
    MARKERS,
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
from corpusbench.eval.results import cell_text, ci_text, fmt, tie_text
from corpusbench.eval.runs import Run, mean_ci, prop_ci
from corpusbench.family import Metric

SIMPLE_AGREEMENT = "simple_agrmt"


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


def lexicon_prefix(fc: Mapping[str, Any], lexicon: str) -> str:
    """Column prefix of a FIT-CLAMS lexicon: none when the run has one lexicon."""
    return "" if len(fitclams_lexicons(fc)) == 1 or not lexicon else f"{lexicon} "


def fitclams_markdown(fc: dict[str, Any]) -> list[str]:
    """FIT-CLAMS's lines of summary.md, per evaluation lexicon: score, paradigms, bins, ΔP OLS."""

    lines: list[str] = []
    for lex, one in fitclams_lexicons(fc).items():
        paras = ", ".join(f"{k} {cell_text(v)}" for k, v in one["per_paradigm"].items())
        nb = ", ".join(f"{k}: {cell_text(v)}" for k, v in one["per_noun_bin"].items())
        vb = ", ".join(f"{k}: {cell_text(v)}" for k, v in one["per_verb_bin"].items())
        counts = sorted({c for c in one["counts_corpus"].values() if c})
        lines += [
            f"- **FIT-CLAMS score{f', lexicon {lex}:' if lex else ''} {one['score']:.4f}**"
            f"{ci_text(one.get('score_ci95'))} (mean over paradigms; n={one['n']}, "
            f"{tie_text(one['n_ties'], one['n'], one.get('score_ties_half'))})",
            f"  - paradigms: {paras}",
            f"  - bins of {', '.join(counts) or 'n/a'}: noun {nb or 'n/a'}; verb {vb or 'n/a'}",
        ]
        if (ols_ := one.get("delta_ols")) and ols_["full"]:
            o = ols_["full"]
            terms = ", ".join(f"{k} {o['coef'][k]:+.3f} (se {o['se'][k]:.3f})" for k in o["coef"])
            lines.append(
                f"  - ΔP OLS on {ols_['paradigm']} (n={o['n']}, counts of "
                f"{ols_.get('counts_corpus') or 'n/a'}): R² {fmt(o['r2'], '.3f')}, "
                f"adj. R² {fmt(o['r2_adj'], '.3f')}; {terms}"
            )
    return lines


def fitclams_columns(fc: Mapping[str, Any]) -> list[Metric]:
    """FIT-CLAMS per evaluation lexicon: score (headline, and its tie-as-half), paradigms, bins, ΔP OLS R²."""
    out: list[Metric] = []
    for lex, one in fitclams_lexicons(fc).items():
        pre_ = lexicon_prefix(fc, lex)
        out.append(
            Metric(
                column=f"FIT-CLAMS {pre_}".strip(),
                value=one["score"],
                ci=mean_ci(one["per_paradigm"]),
                headline=True,
            )
        )
        if one.get("n_ties") and one.get("score_ties_half") is not None:
            out.append(
                Metric(column=f"FIT-CLAMS {pre_}(ties ½)", value=one["score_ties_half"], headline=True)
            )
        out += [
            Metric(column=f"{pre_}{p}", value=v["accuracy"], ci=prop_ci(v))
            for p, v in one["per_paradigm"].items()
        ]
        for kind in ("noun", "verb"):
            out += [
                Metric(column=f"{pre_}{kind} bin {bn}", value=v["accuracy"], ci=prop_ci(v))
                for bn, v in by_bin(one[f"per_{kind}_bin"])
            ]
        if (o := one.get("delta_ols")) and o.get("full"):
            out.append(Metric(column=f"{pre_}ΔP OLS R²", value=o["full"]["r2"]))
    return out


def fitclams_covers(config: str, fc: Mapping[str, Any]) -> bool:
    return config in fc.get("counts_corpus", {})


def fitclams_series(fc: Mapping[str, Any], key: str) -> dict[str, Series]:
    """``key`` = ``per_noun_bin`` | ``per_verb_bin``: one series per evaluation lexicon."""
    return {
        lex: {int(b): point({"c": c}) for b, c in one[key].items()}
        for lex, one in fitclams_lexicons(fc).items()
    }


def plot_fitclams_run_bins(results: dict[str, Any], out: Path) -> str | None:
    """``fitclams_by_bin.png`` of one run: accuracy per noun and per verb bin, one line per lexicon."""
    fc = results["benchmarks"].get("fitclams")
    if not fc:
        return None
    plt = pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(9.0, 3.8), sharey=True)
    for ax, key, what in ((axes[0], "per_noun_bin", "subject noun"), (axes[1], "per_verb_bin", "verb")):
        ns = draw_lines(ax, [(f"lexicon {k}".strip(), v) for k, v in fitclams_series(fc, key).items()])
        bin_axis(ax, ns, f"{what} bin (under it: pairs)")
    axes[1].set_ylabel("")
    what = f"FIT-CLAMS by frequency bin of the training corpus; ties {fc.get('n_ties', 0)}"
    fig.suptitle(plot_title(results, what), fontsize=9)
    legend_below(fig, axes[0])
    save_png(fig, out / "fitclams_by_bin.png")
    plt.close(fig)
    return "fitclams_by_bin.png"


def plot_fitclams_bins(runs: Sequence[Run], out: Path, **_options: Any) -> str | None:
    """FIT-CLAMS accuracy per subject-noun and verb bin of the training corpus, per run and lexicon."""
    if not any(r.bench.get("fitclams") for r in runs):
        return None

    def series(key: str) -> Callable[[Run], dict[str, dict[int, Point]]]:
        def get(run: Run) -> dict[str, dict[int, Point]]:
            fc = run.bench.get("fitclams")
            if not fc:
                return {}
            return {
                lexicon_prefix(fc, lex).strip(): {
                    int(b): (c["accuracy"], prop_ci(c), c["n"], _half(c)) for b, c in one[key].items()
                }
                for lex, one in fitclams_lexicons(fc).items()
            }

        return get

    plt = pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(9.0, 3.8), sharey=True)
    for ax, key, what in ((axes[0], "per_noun_bin", "subject noun"), (axes[1], "per_verb_bin", "verb")):
        ns = model_lines(ax, runs, series(key))
        bin_axis(ax, ns, f"{what} frequency bin")
        ax.set_title(f"by {what} bin", fontsize=9)
    axes[1].set_ylabel("")
    fig.suptitle(
        "FIT-CLAMS accuracy by training-corpus frequency bin (all paradigms; n = pairs per bin; Wilson 95% "
        f"CI; hollow: n < {MIN_N})",
        fontsize=10,
    )
    legend_below(fig, axes[0])
    save_png(fig, out / "fitclams_by_bin.png")
    plt.close(fig)
    return "fitclams_by_bin.png"


def _half(cell: Mapping[str, Any]) -> float | None:
    """The tie-as-half accuracy of a cell with ties (None without)."""
    if not cell.get("n_ties"):
        return None
    return (cell["n_correct"] + 0.5 * cell["n_ties"]) / cell["n"]


def plot_delta(runs: Sequence[Run], out: Path, **_options: Any) -> str | None:
    pts = {
        f"{r.label} {lexicon_prefix(fc, lex)}".strip(): p
        for r in runs
        if (fc := r.bench.get("fitclams"))
        for lex, one in fitclams_lexicons(fc).items()
        if (p := (one.get("delta_ols") or {}).get("points"))
    }
    if not pts:
        return None
    plt = pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(9.0, 3.8), sharey=True)
    for ax, key, what in (
        (axes[0], "verb", "verb form"),
        (axes[1], "subject_good", "grammatical subject form"),
    ):
        for i, (label, p) in enumerate(pts.items()):
            x, y = np.asarray(p[key], float), np.asarray(p["delta"], float)
            dots = ax.scatter(
                x, y, s=10, alpha=0.45, marker=MARKERS[i % len(MARKERS)], label=f"{label} (n={len(y)})"
            )
            if len(set(x.tolist())) > 1:
                slope, icept = np.polyfit(x, y, 1)
                r2 = float(np.corrcoef(x, y)[0, 1] ** 2)
                xs = np.linspace(x.min(), x.max(), 20)
                ax.plot(xs, slope * xs + icept, color=dots.get_facecolor()[0][:3], lw=1.4)
                ax.text(
                    0.02,
                    0.97 - 0.07 * i,
                    f"{label}: R² {r2:.2f}",
                    transform=ax.transAxes,
                    fontsize=7,
                    va="top",
                    color=dots.get_facecolor()[0][:3],
                )
        ax.axhline(0, color="grey", lw=0.8, ls="--")
        if ax is axes[0]:  # shared y: headroom once, so the R² lines sit above the points
            lo, hi = ax.get_ylim()
            ax.set_ylim(lo, hi + (hi - lo) * 0.07 * (len(pts) + 1))
        ax.set_xlabel(f"smoothed ln count of the {what}")
        ax.set_title(f"ΔP vs {what} frequency", fontsize=9)
    axes[0].set_ylabel("ΔP = log P(good) − log P(bad) (nats)")
    fig.suptitle(
        "FIT-CLAMS simple agreement: ΔP vs training-corpus log frequency (line and R²: this predictor alone)",
        fontsize=10,
    )
    legend_below(fig, axes[0])
    save_png(fig, out / "fitclams_delta_vs_logfreq.png")
    plt.close(fig)
    return "fitclams_delta_vs_logfreq.png"


def fitclams_console(fc: Mapping[str, Any]) -> list[str]:
    """The lines ``eval run`` prints: the score of each evaluation lexicon, its interval and its ties."""
    lines = []
    for lex, one in fitclams_lexicons(fc).items():
        name = f"fitclams score, lexicon {lex}:" if lex else "fitclams score"
        lines.append(
            f"{name} {fmt(one['score'])}{ci_text(one.get('score_ci95'))} "
            f"({tie_text(one['n_ties'], one['n'], one.get('score_ties_half'))})"
        )
    return lines
