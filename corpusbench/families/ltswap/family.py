"""The LT-Swap family: release configs ``ltswap-<subtask>[-prefix]``, the LT-Swap score, its demo line."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from corpusbench.families.ltswap import bins, cli, params, release, review, score, validity
from corpusbench.family import (
    DemoLine,
    DemoStep,
    EvalHelp,
    EvalKind,
    Family,
    OutputFolder,
    ParamsSchema,
    ReviewKind,
    number,
)


def _is_ltswap(m: dict[str, Any]) -> bool:
    return m.get("kind") == "corpusbench.ltswap"


def _demo_line(m: dict[str, Any], _: Path) -> tuple[str, str]:
    counts = m.get("counts", {})
    llm = m.get("llm") or {}
    model = llm.get("model", "") if isinstance(llm, dict) else str(llm)
    key = "quadruplets: " + ", ".join(f"{s} {number(n)}" for s, n in counts.items())
    return "SUBTASK.parquet, funnel.json, rejects.jsonl", key + (f"; LLM {Path(model).name}" if model else "")


FAMILY = Family(
    name="ltswap",
    title="LT-Swap",
    rank=10,
    cli=cli.register,
    release=release.build_configs,
    params=ParamsSchema(  # generated from LtswapFamilyParams (families/ltswap/params.py)
        types=(params.LtswapSpec,),
        needs_corpus=True,
        needs_llm=True,
        from_spec=("lang", "seed"),
        cli_names={
            "threshold": "filter_threshold",
            "pos_check": "check_pos",
            "no_pos_check": "check_pos",
            "confirm": "confirm_inflections",
            "llm_backend": "llm.backend",
            "model": "llm.model",
        },
    ),
    eval=EvalKind(
        role="ltswap_rule",
        benchmark=score.ltswap_benchmark,
        markdown=score.ltswap_markdown,
        console=score.ltswap_console,
        columns=score.ltswap_columns,
        covers=score.ltswap_covers,
        notes=score.ltswap_notes,
        run_figures=(score.plot_ltswap_bins,),
        figures=(score.plot_ltswap,),
        help=EvalHelp(score="score = mean of bin × subtask accuracies"),
        averaged=("score", "bin", "subtask"),
    ),
    roles={
        "ltswap_rule": (
            "LT-Swap rule (NOUN/VERB, SVSHORT...); qualifier = wordswap|inflectionswap|agreementswap"
        ),
        "quadruplet": "LT-Swap quadruplet id (two pairs per quadruplet)",
    },
    demo=(DemoLine(file="manifest.json", recognises=_is_ltswap, line=_demo_line),),
    labels=validity.read_labels,
    output=OutputFolder(
        label="LT-Swap run",
        recognises=_is_ltswap,
        configs=release.output_configs,
    ),
    review=ReviewKind(
        titles=release.TITLES,
        claims={
            "wordswap": "Swapping in the other rare word makes the sentence's meaning wrong.",
            "inflswap": "The other inflection of the rare word makes the sentence ungrammatical.",
            "agrswap": "The noun in the other number disagrees with its verb, pronoun or determiner "
            "(the sentences stop right after the word that agrees).",
        },
        subtask=review.subtask,
        bin=review.bin_label,
        judged=True,  # a release holds the quadruplets the LLM judge kept
        recognises=_is_ltswap,
        run=review.run_items,
        run_label="an LT-Swap run",
        rejected=review.rejected_items,
    ),
    demo_steps=(DemoStep(title="LT-Swap", path="out/demo/ltswap", order=120),),
    stats_view=bins.bins_table,
)
