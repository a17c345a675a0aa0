"""The ``detagr`` family: its release adapter, its benchmark (accuracy per determiner) and its
registration (``FAMILY``, named by the entry point ``detagr = detagr.family:FAMILY`` of the group
``corpusbench.families``)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from corpusbench.errors import InputError
from corpusbench.eval.metrics import accuracy_cell, cells_interval
from corpusbench.eval.plots import pyplot, save_png
from corpusbench.family import EvalKind, Family, ParamsSchema, ScoreRun, TaskKind, TaskScores
from corpusbench.publish.plugins import GeneratorContext, ReleaseConfig, parse_params
from detagr.generator import DetAgrParams, make_pairs


def build_configs(ctx: GeneratorContext) -> list[ReleaseConfig]:
    """One config, ``detagr-<corpus>``, from the text files of the generator's corpus."""
    params = parse_params(DetAgrParams, ctx.generator.params, f"families.{ctx.generator.id}.params")
    assert ctx.corpus is not None  # the schema says needs_corpus: the spec is refused without one
    path = ctx.corpus.path
    files = [path] if path.is_file() else sorted(p for p in Path(path).rglob("*.txt"))
    lines = [line for f in files for line in f.read_text(encoding="utf-8").splitlines()]
    rows = make_pairs(lines, params)
    if not rows:
        raise InputError(f"{path}: no determiner-noun site with a known noun number")
    return [
        ReleaseConfig(
            name=f"detagr-{ctx.corpus.key}",
            table=pd.DataFrame(rows),
            description="Determiner-noun agreement pairs: this/that vs these/those before a noun.",
            funnel={"sites": len(rows)},
            parameters={"max_pairs": params.max_pairs, "min_count": params.min_count},
            # the marker role `det_number` tells eval that the config is detagr's
            roles={"id": "pair_id", "group": "determiner", "det_number": "number"},
        ),
        ReleaseConfig(  # the same sentences as a choice between two options: a task that is not pairs
            name=f"detagr-{ctx.corpus.key}-choice",
            table=pd.DataFrame(choices(rows)),
            description="The determiner-noun agreement pairs as a choice between two sentences.",
            task=CHOICE,
            roles={"id": "item_id", "det_number": "number"},
        ),
    ]


CHOICE = "detagr_choice"  # the family's own task kind: which of two sentences is the good one


def choices(rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each pair as a choice: the good sentence is option ``a`` in even items, ``b`` in odd ones."""
    out = []
    for k, r in enumerate(rows):
        a, b = (
            (r["sentence_good"], r["sentence_bad"]) if k % 2 == 0 else (r["sentence_bad"], r["sentence_good"])
        )
        answer = "a" if k % 2 == 0 else "b"
        out.append(
            {"item_id": r["pair_id"], "option_a": a, "option_b": b, "answer": answer, "number": r["number"]}
        )
    return out


def score_choices(entries: Sequence[Any], run: ScoreRun) -> TaskScores:
    """The ``score`` hook of the choice task: an item is right when its answer's sentence scores higher."""
    right = n = 0
    for entry in entries:
        table = pd.concat(pd.read_parquet(f) for f in run.release.data_files(entry.name))
        texts = [*table["option_a"], *table["option_b"]]
        scores = [s for s, _ in run.scorer.score(texts, [None] * len(texts))]
        half = len(table)
        for k, answer in enumerate(table["answer"]):
            a, b = scores[k], scores[half + k]
            right += (a > b) if answer == "a" else (b > a)
            n += 1
    return TaskScores(block={"choice": {"accuracy": right / n if n else None, "n": n}})


def benchmark(entries: Sequence[Any], scored: Mapping[str, Any]) -> dict[str, Any] | None:
    """``accuracy`` = mean of the per-determiner accuracies over the detagr configs scored."""
    mine = [e.name for e in entries if e.kind == "detagr" and e.name in scored]
    by_det: dict[str, list[Any]] = defaultdict(list)
    for name in mine:
        for pair, score in scored[name]:
            by_det[str(pair.group)].append(score)
    if not by_det:
        return None
    cells = {d: accuracy_cell(s) for d, s in sorted(by_det.items())}
    counts = {d: (c["n"], c["n_correct"]) for d, c in cells.items()}
    return {
        "accuracy": sum(c["accuracy"] for c in cells.values()) / len(cells),
        "accuracy_ci95": cells_interval(counts, {d: 1 / len(cells) for d in cells}),
        "per_determiner": cells,
        "n": sum(c["n"] for c in cells.values()),
        "n_ties": sum(c["n_ties"] for c in cells.values()),
        "configs": sorted(mine),
    }


def plot_determiners(results: dict[str, Any], out: Path) -> str | None:
    """``detagr_by_determiner.png``: one eval run's accuracy per determiner (its figure of the run)."""
    cells = results["benchmarks"]["detagr"]["per_determiner"]
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(4.0, 3.0))
    ax.bar(list(cells), [c["accuracy"] for c in cells.values()], color="#4C72B0")
    ax.set_ylim(0, 1.02)
    ax.set_ylabel("pairwise accuracy")
    ax.set_title("DetAgr accuracy per determiner", fontsize=9)
    save_png(fig, out / "detagr_by_determiner.png")
    plt.close(fig)
    return "detagr_by_determiner.png"


FAMILY = Family(
    name="detagr",
    title="DetAgr",
    release=build_configs,
    params=ParamsSchema(types=(DetAgrParams,), needs_corpus=True),
    eval=EvalKind(
        role="det_number",
        benchmark=benchmark,
        headline="accuracy",
        run_figures=(plot_determiners,),
        score=score_choices,
    ),
    tasks={CHOICE: TaskKind(columns=("item_id", "option_a", "option_b", "answer"))},
)
