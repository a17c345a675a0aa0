"""``corpusbench compare RUN...``: several eval runs in the papers' shape, with CIs and figures.

Everything comes from each run's ``results.json`` (``benchmarks`` block). 95% intervals are honest at
small n (:func:`corpusbench.eval.metrics.interval_note`): Wilson for one proportion (a paradigm, a config, a
bin), MOVER over the cells' Wilson limits for a score that averages cells. Each family gives its columns,
notes (statistics across the runs) and figures by hooks (``EvalKind.columns``, ``notes``, ``settings``,
``figures``). Ties are shown apart, with the tie-as-half scores.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from corpusbench.eval.metrics import interval_note
from corpusbench.eval.results import in_benchmark
from corpusbench.eval.runs import Run, load_runs, prop_ci
from corpusbench.family import Family, Metric, families, load
from corpusbench.io import atomic_dir


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
    headline: tuple[str, ...] = ()  # the benchmark-score columns (the families' headline metrics)

    def markdown(self) -> str:
        head = ["model", *self.columns]
        lines = ["| " + " | ".join(head) + " |", "|---|" + "---:|" * len(self.columns)]
        for r in self.rows:
            cells = [_fmt(*r[c]) if c in r else "" for c in self.columns]
            lines.append("| " + " | ".join([r["model"], *cells]) + " |")
        return "\n".join(lines) + "\n"

    def only(self, columns: Sequence[str]) -> Table:
        """The same rows with ``columns`` only (in this table's order)."""
        keep = [c for c in self.columns if c in columns]
        return Table(
            columns=keep,
            rows=[{"model": r["model"], **{c: r[c] for c in keep if c in r}} for r in self.rows],
            notes=self.notes,
            headline=tuple(c for c in self.headline if c in keep),
        )

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


def by_bin(per_bin: Mapping[str, Any]) -> list[tuple[str, Any]]:
    """``{"10": …, "2": …}`` (JSON keys) in bin order: 2 before 10."""
    return sorted(per_bin.items(), key=lambda kv: int(kv[0]))


def comparison_table(runs: Sequence[Run]) -> Table:
    """Rows models; columns: each family's compare columns in family order (its ``columns`` hook, else its
    headline metric), then the other pair configs; tie-as-half scores where a run has ties."""
    cols: list[str] = []
    headline: list[str] = []
    rows: list[dict[str, Any]] = []

    def put(row: dict[str, Any], col: str, val: float | None, ci: list[float] | None = None) -> None:
        if col not in cols:
            cols.append(col)
        row[col] = (val, ci)

    fams = families.with_eval()
    for run in runs:
        row: dict[str, Any] = {"model": run.label}
        b = run.bench
        for family in fams:
            if block := b.get(family.name):
                for m in family_columns(family, block):
                    put(row, m.column, m.value, m.ci)
                    if m.headline and m.column not in headline:
                        headline.append(m.column)
        other = {
            c: m
            for c, m in run.results.get("configs", {}).items()
            if not in_benchmark(c, b) and m.get("accuracy") is not None
        }
        for c, m in other.items():
            put(row, c, m["accuracy"], prop_ci(m))
            if m.get("n_ties"):
                put(row, f"{c} (ties ½)", (m["n_correct"] + 0.5 * m["n_ties"]) / m["n"])
        rows.append(row)
    return Table(columns=cols, rows=rows, notes=_notes(runs, fams), headline=tuple(headline))


def family_columns(family: Family, block: Mapping[str, Any]) -> list[Metric]:
    """A run's compare columns for one family: its ``columns`` hook, else its headline metric (with
    ``<metric>_ci95`` when the block has it) under the family's title."""
    kind = family.eval
    assert kind is not None
    if kind.columns is not None:
        return list(load(kind.columns)(block))
    value = block.get(kind.headline)
    ci = block.get(f"{kind.headline}_ci95")
    column = family.title if kind.headline == "score" else f"{family.title} {kind.headline}"
    return [Metric(column=column, value=value, ci=ci, headline=True)]


HEADLINE_MAX = 8  # columns of the headline when the runs have no benchmark score (only pair configs)


def headline_columns(table: Table) -> list[str]:
    """The families' headline columns (each family's score, its tie-as-half score...);
    runs with none get their first ``HEADLINE_MAX`` columns (pair configs)."""
    bench = [c for c in table.columns if c in table.headline]
    return bench or table.columns[:HEADLINE_MAX]


def _notes(runs: Sequence[Run], fams: Sequence[Family]) -> list[str]:
    notes = [f"95% intervals: {interval_note()}."]
    notes += _family_notes(runs, fams, "notes")
    ties = {r.label: (r.results.get("n_ties", 0), r.results.get("n_pairs", 0)) for r in runs}
    notes.append(
        "ties (not wins, counted apart; the (ties ½) columns count them as 0.5): "
        + ", ".join(f"{k} {t}/{n}" + (f" ({t / n:.1%})" if n else "") for k, (t, n) in ties.items())
    )
    modes = {
        r.label: ",".join(sorted(set((r.results.get("scoring_mode") or {}).get("per_config", {}).values())))
        for r in runs
    }
    notes.append("scoring mode: " + ", ".join(f"{k} {v or 'n/a'}" for k, v in modes.items()))
    return notes + _family_notes(runs, fams, "settings")


def _family_notes(runs: Sequence[Run], fams: Sequence[Family], hook: str) -> list[str]:
    """The ``notes`` (statistics across runs) or ``settings`` (how each run was made) of each family the
    runs have, in family order."""
    out: list[str] = []
    for family in fams:
        target = getattr(family.eval, hook, None)
        if target is not None and any(r.bench.get(family.name) for r in runs):
            out += load(target)(runs)
    return out


def write_comparison(
    dirs: Sequence[str | Path], out: Path, *, n_boot: int = 2000, seed: int = 0
) -> list[str]:
    """Write ``compare.md`` (a headline table: one row per model, its benchmark scores), ``compare-full.md``
    and ``compare.csv`` (every column), and the figures into ``out`` (atomically); return file names."""
    from corpusbench.eval import compare_plots

    runs = load_runs(dirs)
    table = comparison_table(runs)
    head = table.only(headline_columns(table))
    title = [
        "# corpusbench compare",
        "",
        f"{len(runs)} run(s): " + ", ".join(f"`{r.path}`" for r in runs),
        "",
    ]
    notes = ["", *[f"- {n}" if not n.startswith("  ") else f"  - {n.strip()}" for n in table.notes], ""]
    rest = len(table.columns) - len(head.columns)
    with atomic_dir(out) as tmp:
        md = [*title, "Scores with 95% intervals [low, high] (method under the table).", "", head.markdown()]
        if rest:
            md += [
                f"All {len(table.columns)} columns ({rest} more: subtasks, bins, paradigms, configs): "
                "[compare-full.md](compare-full.md), compare.csv."
            ]
        md += notes
        figures = compare_plots.plot_all(runs, tmp, n_boot=n_boot, seed=seed)
        md += [f"![{f}]({f})" for f in figures]
        (tmp / "compare.md").write_text("\n".join(md) + "\n", encoding="utf-8")
        full = [*title, "Every column, 95% intervals [low, high].", "", table.markdown(), *notes]
        (tmp / "compare-full.md").write_text("\n".join(full) + "\n", encoding="utf-8")
        (tmp / "compare.csv").write_text(table.csv(), encoding="utf-8")
    return ["compare.md", "compare-full.md", "compare.csv", *figures]
