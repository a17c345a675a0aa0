"""The CAC family: release config ``cac-<alternatives>`` (determiner sites), the agreement with the
children, its demo line."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from corpusbench.families import DemoLine, EvalKind, Family, ParamsSchema, number


def _is_cac(m: dict[str, Any]) -> bool:
    return m.get("kind") == "cac" or str(m.get("schema", "")).startswith("cac.")


def _demo_line(m: dict[str, Any], _: Path) -> tuple[str, str]:
    tests = [t for t in m.get("tests", []) if t.get("passed") is not None]
    passed = sum(1 for t in tests if t["passed"])
    key = (
        f"{number(m.get('n_sites', '?'))} determiner sites in {number(m.get('n_utterances', '?'))} utterances"
    )
    if tests:
        key += f"; {passed}/{len(tests)} across-dyad tests pass (p > alpha)"
    return "sites.parquet, human_stats.csv, overlap.png, tpr.png", key


FAMILY = Family(
    name="cac",
    title="CAC",
    rank=30,
    cli="corpusbench.generators.cac.cli:register",
    release="corpusbench.publish.adapters.cac:build_configs",
    params=ParamsSchema(  # generated from CacParams (generators/cac/params.py)
        types=("corpusbench.generators.cac.params:CacSpec",), needs_corpus=True
    ),
    # scored site by site (corpusbench.eval.cac_run), not as pairs: its block comes from the CAC path
    eval=EvalKind(
        task="cac",
        markdown="corpusbench.eval.runner:cac_markdown",
        columns="corpusbench.eval.compare:cac_columns",
        settings="corpusbench.eval.compare:cac_settings",
        figures=("corpusbench.eval.compare_plots:plot_cac",),
    ),
    demo=(DemoLine(file="manifest.json", recognises=_is_cac, line=_demo_line),),
)
