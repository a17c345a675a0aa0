"""The FIT-CLAMS family: release configs ``fitclams-<corpus>-<paradigm>``, the score per evaluation
lexicon, its demo line."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from corpusbench.family import (
    DemoLine,
    DemoNext,
    DemoStep,
    EvalHelp,
    EvalKind,
    Family,
    Nested,
    OutputFolder,
    ParamsSchema,
    ReviewKind,
    number,
)


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
    cli="corpusbench.families.fitclams.cli:register",
    release="corpusbench.families.fitclams.release:build_configs",
    params=ParamsSchema(
        types=("corpusbench.families.fitclams.params:FitClamsSpecParams",),  # generated from FitClamsParams
        nested={
            "selection": Nested(target="corpusbench.families.fitclams.select:SelectionConfig"),
            "overrides": Nested(target="corpusbench.families.fitclams.lexicon:Overrides", typed=False),
        },
        corpus_keys=("corpora",),
    ),
    eval=EvalKind(
        role="paradigm",
        benchmark="corpusbench.families.fitclams.score:fitclams_benchmark",
        options=("train_corpus",),
        markdown="corpusbench.families.fitclams.score:fitclams_markdown",
        console="corpusbench.families.fitclams.score:fitclams_console",
        columns="corpusbench.families.fitclams.score:fitclams_columns",
        covers="corpusbench.families.fitclams.score:fitclams_covers",
        run_figures=("corpusbench.families.fitclams.score:plot_fitclams_run_bins",),
        figures=(
            "corpusbench.families.fitclams.score:plot_fitclams_bins",
            "corpusbench.families.fitclams.score:plot_delta",
        ),
        run_options="corpusbench.families.fitclams.params:FitClamsRunOptions",
        help=EvalHelp(score="mean over paradigms, per frequency bin, ΔP OLS", region="verb"),
        averaged=("score",),
    ),
    roles={
        "paradigm": "FIT-CLAMS paradigm (marks a FIT-CLAMS config)",
        "noun_bin": "FIT-CLAMS: subject noun's frequency bin in corpus <qualifier>",
        "verb_bin": "FIT-CLAMS: verb's frequency bin in corpus <qualifier>",
        "subject_good_count": "FIT-CLAMS: count of the good sentence's subject form in corpus <qualifier>",
        "subject_bad_count": "FIT-CLAMS: count of the bad sentence's subject form in corpus <qualifier>",
        "verb_count": "FIT-CLAMS: count of the critical verb form in corpus <qualifier>",
    },
    demo=(DemoLine(file="manifest.json", recognises=_is_fitclams, line=_demo_line),),
    output=OutputFolder(
        label="FIT-CLAMS output",
        recognises=_is_fitclams,
        configs="corpusbench.families.fitclams.release:output_configs",
    ),
    review=ReviewKind(  # a subtask per paradigm, a cell per noun bin
        claim="The verb in the other number does not agree with its subject.",
        subtask="corpusbench.families.fitclams.review:subtask",
        bin="corpusbench.families.fitclams.review:bin_label",
    ),
    demo_steps=(
        DemoStep(title="FIT-CLAMS", path="out/demo/fitclams", order=30),
        DemoStep(title="FIT-CLAMS, two corpora", path="out/demo/fitclams-kjv-shakespeare", order=40),
        DemoStep(title="FIT-CLAMS, French", path="out/demo/fitclams-fr-bible", order=50),
        DemoStep(title="FIT-CLAMS, German", path="out/demo/fitclams-de-bible", order=60),
        DemoStep(title="eval: SmolLM2 on FIT-CLAMS", path="out/demo/eval-fitclams", order=70),
    ),
    demo_next=(
        DemoNext(
            after="out/demo/eval-fitclams",
            command="open out/demo/eval-fitclams/summary.md",
            what="per-config accuracy, plots next to it",
            order=10,
        ),
    ),
)
