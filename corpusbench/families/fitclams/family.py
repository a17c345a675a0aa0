"""The FIT-CLAMS family: release configs ``fitclams-<corpus>-<paradigm>``, the score per evaluation
lexicon, its demo line."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from corpusbench.families.fitclams import cli, lexicon, params, release, review, score, select
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
    cli=cli.register,
    release=release.build_configs,
    params=ParamsSchema(
        types=(params.FitClamsSpecParams,),  # generated from FitClamsParams
        nested={
            "selection": Nested(target=select.SelectionConfig),
            "overrides": Nested(target=lexicon.Overrides, typed=False),
        },
        corpus_keys=("corpora",),
    ),
    eval=EvalKind(
        role="paradigm",
        benchmark=score.fitclams_benchmark,
        options=("train_corpus",),
        markdown=score.fitclams_markdown,
        console=score.fitclams_console,
        columns=score.fitclams_columns,
        covers=score.fitclams_covers,
        run_figures=(score.plot_fitclams_run_bins,),
        figures=(
            score.plot_fitclams_bins,
            score.plot_delta,
        ),
        run_options=params.FitClamsRunOptions,
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
        configs=release.output_configs,
    ),
    review=ReviewKind(  # a subtask per paradigm, a cell per noun bin
        claim="The verb in the other number does not agree with its subject.",
        subtask=review.subtask,
        bin=review.bin_label,
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
