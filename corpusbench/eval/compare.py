"""``corpusbench compare RUN...``: several eval runs in the papers' shape, with CIs and figures.

Everything comes from each run's ``results.json`` (``benchmarks`` block). 95% CIs are percentile
bootstrap intervals of a stratified bootstrap over pairs: each (category × bin) or paradigm cell is
resampled on its own, so a cell's accuracy is redrawn as Binomial(n, acc) / n and the score is
recomputed from the redrawn cells. LT-Swap Spearman (bin index vs per-bin score) is computed per
model and averaged across models through Fisher z (Table 1); the spread ratio is (max − min across
models in the rarest bin) / (max − min in the most frequent bin) (Table 2).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from corpusbench.errors import InputError
from corpusbench.eval.benchmarks import SUBTASK_SHORT, fisher_mean
from corpusbench.eval.metrics import spread_ratio
from corpusbench.io import atomic_dir, read_json

SHORT_SUBTASK = {v: k for k, v in SUBTASK_SHORT.items()}
Cells = dict[str, tuple[int, int]]  # key -> (n, n_correct)


@dataclass(frozen=True, slots=True, kw_only=True)
class Run:
    label: str
    path: Path
    results: dict[str, Any]

    @property
    def bench(self) -> dict[str, Any]:
        return self.results.get("benchmarks") or {}


def load_runs(dirs: Sequence[str | Path]) -> list[Run]:
    """Each folder's ``results.json``; labels are model names, made unique with the folder name."""
    raw = []
    for d in dirs:
        path = Path(d) / "results.json"
        if not path.is_file():
            raise InputError(f"{d}: not an eval output folder (no results.json)")
        raw.append((Path(d), read_json(path)))
    names = [_model_label(r["provenance"]["model"]) for _, r in raw]
    labels = [n if names.count(n) == 1 else f"{n} ({p.name})" for n, (p, _) in zip(names, raw, strict=True)]
    return [Run(label=lab, path=p, results=r) for lab, (p, r) in zip(labels, raw, strict=True)]


def _model_label(model: Mapping[str, Any]) -> str:
    name = str(model.get("model_id", "?")).rstrip("/").split("/")[-1]
    arch = str(model.get("arch", ""))
    return f"{arch}:{name}" if arch.startswith("ngram") else name


def _draw(cells: Cells, rng: np.random.Generator, n_boot: int) -> dict[str, np.ndarray]:
    return {k: rng.binomial(n, k_ / n, size=n_boot) / n for k, (n, k_) in cells.items() if n}


def _ci(stat: Callable[[Mapping[str, Any]], float], cells: Cells, n_boot: int, seed: int) -> list[float]:
    if not cells or n_boot <= 0:
        return [float("nan"), float("nan")]
    rng = np.random.default_rng(seed)
    draws = stat(_draw(cells, rng, n_boot))
    lo, hi = np.percentile(draws, [2.5, 97.5])
    return [float(lo), float(hi)]


def ltswap_cells(lt: Mapping[str, Any]) -> Cells:
    return {k: (v["n"], v["n_correct"]) for k, v in lt["category_cells"].items()}


def ltswap_stat(acc: Mapping[str, Any], bin_: int | None = None, subtask: str | None = None) -> Any:
    """LT-Swap score from category-cell accuracies ``{"WS-NOUN|3": acc}`` (scalars or arrays): mean over
    (subtask, bin) cells, each the mean of its categories; optionally one bin or one subtask only."""
    groups: dict[tuple[str, int], list[Any]] = {}
    for key, a in acc.items():
        cat, b = key.rsplit("|", 1)
        sub = SHORT_SUBTASK[cat.split("-")[0]]
        if (bin_ is None or int(b) == bin_) and (subtask is None or sub == subtask):
            groups.setdefault((sub, int(b)), []).append(a)
    return np.mean([np.mean(v, axis=0) for v in groups.values()], axis=0)


def _fc_cells(part: Mapping[str, Any]) -> Cells:
    return {k: (v["n"], v["n_correct"]) for k, v in part.items()}


def _mean_stat(acc: Mapping[str, Any]) -> Any:
    return np.mean(list(acc.values()), axis=0)


def _fmt(x: float | None, ci: Sequence[float] | None = None) -> str:
    if x is None or (isinstance(x, float) and np.isnan(x)):
        return ""
    if ci and not np.isnan(ci[0]):
        return f"{x:.3f} [{ci[0]:.3f}, {ci[1]:.3f}]"
    return f"{x:.3f}"


@dataclass(frozen=True, slots=True, kw_only=True)
class Table:
    columns: list[str]
    rows: list[dict[str, Any]]  # label -> {column: (value, ci or None)}
    notes: list[str]

    def markdown(self) -> str:
        head = ["model", *self.columns]
        lines = ["| " + " | ".join(head) + " |", "|---|" + "---:|" * len(self.columns)]
        for r in self.rows:
            cells = [_fmt(*r[c]) if c in r else "" for c in self.columns]
            lines.append("| " + " | ".join([r["model"], *cells]) + " |")
        return "\n".join(lines) + "\n"

    def csv(self) -> str:
        buf = io.StringIO()
        w = csv.writer(buf)
        head = ["model"]
        for c in self.columns:
            head += [c, f"{c} ci_low", f"{c} ci_high"]
        w.writerow(head)
        for r in self.rows:
            row = [r["model"]]
            for c in self.columns:
                val, ci = r.get(c, (None, None))
                row.append("" if val is None else f"{val:.6f}")
                has_ci = bool(ci) and not np.isnan(ci[0])
                row += [f"{ci[0]:.6f}", f"{ci[1]:.6f}"] if has_ci else ["", ""]
            w.writerow(row)
        return buf.getvalue()


def _by_bin(per_bin: Mapping[str, Any]) -> list[tuple[str, Any]]:
    """``{"10": …, "2": …}`` (JSON keys) in bin order: 2 before 10."""
    return sorted(per_bin.items(), key=lambda kv: int(kv[0]))


def comparison_table(runs: Sequence[Run], n_boot: int = 2000, seed: int = 0) -> Table:
    """Rows models; columns: benchmark scores (CI), LT-Swap subtasks, categories and bins, FIT-CLAMS
    paradigms and bins, ΔP OLS R², CAC score and model-side metrics, other pair configs."""
    cols: list[str] = []
    rows: list[dict[str, Any]] = []

    def put(row: dict[str, Any], col: str, val: float | None, ci: list[float] | None = None) -> None:
        if col not in cols:
            cols.append(col)
        row[col] = (val, ci)

    for i, run in enumerate(runs):
        row: dict[str, Any] = {"model": run.label}
        b = run.bench
        s = seed + 1000 * i
        if lt := b.get("ltswap"):
            cells = ltswap_cells(lt)
            put(row, "LT-Swap", lt["score"], _ci(ltswap_stat, cells, n_boot, s))
            for sub, v in lt["per_subtask"].items():
                put(
                    row,
                    SUBTASK_SHORT[sub],
                    v,
                    _ci(lambda a, sub=sub: ltswap_stat(a, subtask=sub), cells, n_boot, s),
                )
            for cat, v in lt["per_category"].items():
                put(row, cat, v)
            for bn, v in _by_bin(lt["per_bin"]):
                put(
                    row,
                    f"LT bin {bn}",
                    v,
                    _ci(lambda a, bn=bn: ltswap_stat(a, bin_=int(bn)), cells, n_boot, s),
                )
            put(row, "LT drop", lt["accuracy_drop"])
            if pre := lt.get("prefix"):
                put(row, "WS+prefix", pre["score"], _ci(ltswap_stat, ltswap_cells(pre), n_boot, s))
        if fc := b.get("fitclams"):
            cells = _fc_cells(fc["per_paradigm"])
            put(row, "FIT-CLAMS", fc["score"], _ci(_mean_stat, cells, n_boot, s))
            for p, v in fc["per_paradigm"].items():
                put(row, p, v["accuracy"], _ci(_mean_stat, {p: cells[p]}, n_boot, s))
            for bn, v in _by_bin(fc["per_noun_bin"]):
                put(row, f"noun bin {bn}", v["accuracy"])
            for bn, v in _by_bin(fc["per_verb_bin"]):
                put(row, f"verb bin {bn}", v["accuracy"])
            if (o := fc.get("delta_ols")) and o.get("full"):
                put(row, "ΔP OLS R²", o["full"]["r2"])
        if cac := b.get("cac"):
            put(row, "CAC", cac.get("score"))
            for k, v in sorted((cac.get("summary") or {}).items()):
                if isinstance(v, int | float):
                    put(row, f"CAC {k}", float(v))
        other = {
            c: m
            for c, m in run.results.get("configs", {}).items()
            if not _in_benchmark(c, b) and m.get("accuracy") is not None
        }
        for c, m in other.items():
            put(row, c, m["accuracy"], _ci(_mean_stat, {c: (m["n"], m["n_correct"])}, n_boot, s))
        rows.append(row)
    return Table(columns=cols, rows=rows, notes=_notes(runs))


def _in_benchmark(config: str, bench: Mapping[str, Any]) -> bool:
    if config in (bench.get("ltswap") or {}).get("configs", []):
        return True
    lt = bench.get("ltswap") or {}
    if lt and config.endswith("-prefix"):
        return True
    return config in (bench.get("fitclams") or {}).get("counts_corpus", {})


def _notes(runs: Sequence[Run]) -> list[str]:
    notes = []
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
        ratio = spread_ratio(
            {k: {b: v for b, v in lt["per_bin"].items() if int(b) > 0} for k, lt in lts.items()}
        )
        notes.append(
            "LT-Swap spread ratio (rarest vs most frequent bin, across models): "
            + (
                "n/a (needs ≥ 2 models, ≥ 2 shared bins and a spread in the most frequent bin)"
                if ratio is None
                else f"{ratio:.2f}"
            )
        )
        drops = [lt["accuracy_drop"] for lt in lts.values() if lt["accuracy_drop"] is not None]
        if drops:
            notes.append(
                f"LT-Swap accuracy drop (rarest − most frequent bin), mean over models: {np.mean(drops):+.3f}"
            )
    ties = {r.label: r.results.get("n_ties", 0) for r in runs}
    notes.append("ties (not wins, counted apart): " + ", ".join(f"{k} {v}" for k, v in ties.items()))
    modes = {
        r.label: ",".join(sorted(set((r.results.get("scoring_mode") or {}).get("per_config", {}).values())))
        for r in runs
    }
    notes.append("scoring mode: " + ", ".join(f"{k} {v or 'n/a'}" for k, v in modes.items()))
    windows = {r.label: _cac_window(r) for r in runs}
    if any(windows.values()):
        notes.append("CAC context window: " + ", ".join(f"{k} {v}" for k, v in windows.items() if v))
    return notes


def _cac_window(run: Run) -> str | None:
    """How a run cut its CAC contexts (tokens, step), from its CAC configs; None without CAC."""
    cfgs = ((run.bench.get("cac") or {}).get("configs") or {}).values()
    cuts = sorted({f"{c['window']} tokens, step {c.get('context_step', 0)}" for c in cfgs if c.get("window")})
    return "; ".join(cuts) or None


def write_comparison(
    dirs: Sequence[str | Path], out: Path, *, n_boot: int = 2000, seed: int = 0
) -> list[str]:
    """Write ``compare.md``, ``compare.csv`` and the figures into ``out`` (atomically); return file names."""
    from corpusbench.eval import compare_plots

    runs = load_runs(dirs)
    table = comparison_table(runs, n_boot=n_boot, seed=seed)
    with atomic_dir(out) as tmp:
        md = [
            "# corpusbench compare",
            "",
            f"{len(runs)} run(s): " + ", ".join(f"`{r.path}`" for r in runs),
            "",
        ]
        md += ["Scores with percentile-bootstrap 95% CIs (stratified over cells).", "", table.markdown()]
        md += ["", *[f"- {n}" if not n.startswith("  ") else f"  - {n.strip()}" for n in table.notes], ""]
        figures = compare_plots.plot_all(runs, tmp, n_boot=n_boot, seed=seed)
        md += [f"![{f}]({f})" for f in figures]
        (tmp / "compare.md").write_text("\n".join(md) + "\n", encoding="utf-8")
        (tmp / "compare.csv").write_text(table.csv(), encoding="utf-8")
    return ["compare.md", "compare.csv", *figures]


def delta_points(run: Run) -> dict[str, list[float]] | None:
    fc = run.bench.get("fitclams") or {}
    o = fc.get("delta_ols") or {}
    return o.get("points")
