"""The CAC family: release config ``cac-<alternatives>`` (determiner sites), the agreement with the
children, its demo line."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from corpusbench.families.cac import cli, compare, lm_eval, params, release, score
from corpusbench.families.cac.lm_eval import NOTE
from corpusbench.family import (
    DemoLine,
    DemoNext,
    DemoStep,
    EvalHelp,
    EvalKind,
    Family,
    OutputFolder,
    ParamsSchema,
    TaskKind,
    number,
)


def _is_cac(m: dict[str, Any]) -> bool:
    return m.get("kind") == "cac" or str(m.get("schema", "")).startswith("cac.")


def _is_cac_output(m: dict[str, Any]) -> bool:
    return m.get("kind") == "cac"


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
    cli=cli.register,
    release=release.build_configs,
    params=ParamsSchema(  # generated from CacParams (families/cac/params.py)
        types=(params.CacSpec,), needs_corpus=True
    ),
    # scored site by site, not as pairs: its own ``score`` hook
    eval=EvalKind(
        task="cac",
        score=score.score_release,
        refuses=score.refuses,
        folder=score.folder_eval,
        markdown=score.cac_markdown,
        columns=compare.cac_columns,
        settings=compare.cac_settings,
        figures=(compare.plot_cac,),
        run_options=params.CacRunOptions,
        help=EvalHelp(
            score="determiner choice", limit="sites per dyad and role, contexts cut to 1024 tokens", boot=True
        ),
        rows=score.cac_rows,
    ),
    # one row per determiner site (corpusbench.families.cac.table); context_new is a list column
    tasks={
        "cac": TaskKind(
            columns=("site_id", "session", "speaker", "role", "utterance", "determiner", "choice", "noun"),
            roles={
                "id": "site_id",
                "group": "dyad",
                "context": "context_new",
                "text": "utterance",
                "choice": "choice",
            },
            lm_eval=lm_eval.files,
            lm_eval_note=NOTE,
        )
    },
    demo=(DemoLine(file="manifest.json", recognises=_is_cac, line=_demo_line),),
    output=OutputFolder(  # scored by the ``folder`` hook
        label="CAC output", recognises=_is_cac_output, help="a `corpusbench cac` folder"
    ),
    demo_steps=(DemoStep(title="CAC (CHILDES Eve)", path="out/demo/cac", order=20),),
    demo_next=(
        DemoNext(
            after="out/demo/cac",
            command="open out/demo/cac/overlap.png out/demo/cac/tpr.png",
            what="CAC human statistics",
            order=20,
        ),
    ),
)
