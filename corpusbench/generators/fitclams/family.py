"""The FIT-CLAMS family: release configs ``fitclams-<corpus>-<paradigm>``, the score per evaluation
lexicon, its demo line."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from corpusbench.families import DemoLine, EvalKind, Family, Nested, ParamsSchema, number


def _is_fitclams(m: dict[str, Any]) -> bool:
    return str(m.get("generator", "")).startswith("fitclams")


def _demo_line(m: dict[str, Any], _: Path) -> tuple[str, str]:
    counts: dict[str, dict[str, int]] = m.get("pair_counts", {})
    parts = [f"{c} {number(sum(p.values()))}" for c, p in counts.items()]
    n_paradigms = max((len(p) for p in counts.values()), default=0)
    key = f"{m.get('language', '?')}: {' + '.join(parts)} pairs, {n_paradigms} paradigms"
    return "pairs/CORPUS/PARADIGM.parquet, words/", key


FAMILY = Family(
    name="fitclams",
    title="FIT-CLAMS",
    rank=20,
    cli="corpusbench.generators.fitclams.cli:register",
    release="corpusbench.publish.adapters.fitclams:build_configs",
    params=ParamsSchema(
        types=("corpusbench.generators.fitclams.params:FitClamsSpecParams",),  # generated from FitClamsParams
        nested={
            "selection": Nested(target="corpusbench.generators.fitclams.select:SelectionConfig"),
            "overrides": Nested(target="corpusbench.generators.fitclams.lexicon:Overrides", typed=False),
        },
        corpus_keys=("corpora",),
    ),
    eval=EvalKind(
        role="paradigm",
        benchmark="corpusbench.eval.benchmarks:fitclams_benchmark",
        options=("train_corpus",),
        markdown="corpusbench.eval.runner:fitclams_markdown",
        columns="corpusbench.eval.compare:fitclams_columns",
        covers="corpusbench.eval.compare:fitclams_covers",
        figures=(
            "corpusbench.eval.compare_plots:plot_fitclams_bins",
            "corpusbench.eval.compare_plots:plot_delta",
        ),
    ),
    demo=(DemoLine(file="manifest.json", recognises=_is_fitclams, line=_demo_line),),
)
